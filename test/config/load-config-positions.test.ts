import { describe, expect, it } from 'vitest';
import type { ConfigError } from '../../app/config/config-error.ts';
import { parseConfig, parseConfigValue } from '../../app/config/load-config.ts';

function errors(yaml: string): ConfigError[] {
  const result = parseConfig(yaml);
  if (result.ok) throw new Error('expected errors');
  return result.errors;
}

describe('parseConfig — positions', () => {
  it('every error is reported, in file order, with its line and column', () => {
    const yaml = [
      'queue_rules:', //                                1
      '  - name: default', //                           2
      '    merge_conditions:', //                       3
      '      - check-success=ci', //                    4
      '      - "#approved-reviews-by>=two"', //         5
      '    batch_size: {min: 1, max: 500}', //          6
      'merge_queue:', //                                7
      '  max_parallel_checks: 0', //                    8
      '  reset_on_external_merge: always', //          9
      'extra: true', //                                 10
    ].join('\n');
    expect(errors(yaml)).toEqual([
      {
        path: 'queue_rules[0].merge_conditions[1]',
        message:
          'invalid condition "#approved-reviews-by>=two": expected a whole number after ">=", found "two"',
        line: 5,
        column: 9,
      },
      {
        path: 'queue_rules[0].batch_size.max',
        message: 'expected an integer from 1 to 128, found 500',
        line: 6,
        column: 31,
      },
      {
        path: 'merge_queue.max_parallel_checks',
        message: 'expected an integer from 1 to 128, found 0',
        line: 8,
        column: 24,
      },
      {
        path: 'extra',
        message:
          'unknown key "extra"; expected one of: queue_rules, priority_rules, partition_rules, merge_queue',
        line: 10,
        column: 8,
      },
    ]);
  });

  it('a missing key points at the mapping that lacks it', () => {
    expect(errors('queue_rules:\n  - batch_size: 2\n')).toEqual([
      {
        path: 'queue_rules[0].name',
        message: 'expected a queue rule name, found nothing',
        line: 2,
        column: 5,
      },
    ]);
  });
});

describe('parseConfig — YAML errors', () => {
  it.each<[string, ConfigError]>([
    [
      'queue_rules: [{name: a}\nmerge_queue: {}\n',
      {
        path: '',
        message:
          'invalid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]',
        line: 2,
        column: 1,
      },
    ],
    [
      'merge_queue: {}\nmerge_queue: {}\n',
      { path: '', message: 'invalid YAML: Map keys must be unique', line: 2, column: 1 },
    ],
    [
      'merge_queue: {}\n---\nmerge_queue: {}\n',
      {
        path: '',
        message: 'invalid YAML: Source contains multiple documents; please use YAML.parseAllDocuments()',
        line: 2,
        column: 1,
      },
    ],
    ['a: "unterminated\n', { path: '', message: 'invalid YAML: Missing closing "quote', line: 2, column: 1 }],
  ])('%j', (yaml, error) => {
    expect(errors(yaml)[0]).toEqual(error);
  });

  it('a whole file that is not a mapping is refused at the top', () => {
    expect(errors('- name: default')).toEqual([
      { path: '', message: 'expected a mapping, found a list', line: 1, column: 1 },
    ]);
    expect(errors('just text')).toEqual([
      { path: '', message: 'expected a mapping, found "just text"', line: 1, column: 1 },
    ]);
  });

  it('an alias to a missing anchor is an error, not an exception', () => {
    expect(errors('queue_rules: *rules')[0]).toMatchObject({
      path: '',
      message: expect.stringContaining('alias'),
    });
  });

  it('an alias bomb is refused, not expanded', () => {
    const lines = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 8; i++) {
      const previous = String.fromCharCode(96 + i);
      const name = String.fromCharCode(97 + i);
      lines.push(
        `${name}: &${name} [*${previous}, *${previous}, *${previous}, *${previous}, *${previous}, *${previous}]`,
      );
    }
    const result = parseConfig(lines.join('\n'));
    expect(result.ok).toBe(false);
  });

  it('never throws on a non-string argument from an untyped caller', () => {
    expect(parseConfig(undefined as unknown as string)).toEqual({
      ok: false,
      errors: [{ path: '', message: 'expected the text of the file, found nothing' }],
    });
  });

  it('parseConfigValue reports errors without positions', () => {
    expect(parseConfigValue({ merge_queue: { max_parallel_checks: '5' } })).toEqual({
      ok: false,
      errors: [
        { path: 'merge_queue.max_parallel_checks', message: 'expected an integer from 1 to 128, found "5"' },
      ],
    });
  });
});
