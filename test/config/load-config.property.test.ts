import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { type ConfigResult, parseConfig, parseConfigValue } from '../../app/config/load-config.ts';

/** Whatever came in, the answer is well formed: a config, or errors that each say where and what. */
function expectWellFormed(result: ConfigResult): void {
  if (result.ok) {
    expect(result.config.queue_rules.length).toBeGreaterThan(0);
    for (const rule of result.config.queue_rules) {
      expect(rule.batch_size.min).toBeLessThanOrEqual(rule.batch_size.max);
    }
    return;
  }
  expect(result.errors.length).toBeGreaterThan(0);
  for (const error of result.errors) {
    expect(typeof error.path).toBe('string');
    expect(error.message.length).toBeGreaterThan(0);
  }
}

const YAML_TOKENS = [
  'queue_rules:',
  'merge_queue:',
  'priority_rules:',
  'name: ',
  'batch_size: ',
  '{min: 2, max: 1}',
  '- ',
  '[',
  ']',
  '{',
  '}',
  ': ',
  ',',
  '"',
  "'",
  '&a ',
  '*a',
  '<<: ',
  '!!str ',
  '!!binary ',
  '%YAML 1.2',
  '---',
  '...',
  '#',
  '\n',
  '  ',
  '\t',
  'null',
  '~',
  '.inf',
  '-.nan',
  '0x1F',
  '1e400',
  'label=hotfix',
  'schedule=Mon-Fri 09:00-17:00[Europe/Paris]',
  '__proto__',
  '?',
  '|',
  '>',
];

const yamlish = fc.array(fc.constantFrom(...YAML_TOKENS), { maxLength: 40 }).map((tokens) => tokens.join(''));

const settingValue = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom('30s', '1h30m', '500ms', 'high', 'low', 'merge', 'never', 'check-success=ci', '', null),
  fc.integer({ min: -5, max: 200 }),
  fc.array(
    fc.constantFrom('label=a', 'lable=b', '-draft', '#files>2', 'title~=(', { or: ['draft'] }, { not: [] }),
  ),
);

const nearlyValid = fc.record(
  {
    queue_rules: fc.array(
      fc.dictionary(
        fc.constantFrom(
          'name',
          'merge_conditions',
          'queue_conditions',
          'batch_size',
          'checks_timeout',
          'batchsize',
        ),
        settingValue,
      ),
      { maxLength: 3 },
    ),
    priority_rules: fc.array(fc.dictionary(fc.constantFrom('name', 'conditions', 'priority'), settingValue)),
    merge_queue: fc.dictionary(
      fc.constantFrom('max_parallel_checks', 'reset_on_external_merge', 'x'),
      settingValue,
    ),
  },
  { requiredKeys: [] },
);

describe('parseConfig never throws', () => {
  it('on arbitrary strings', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'grapheme', maxLength: 200 }), yamlish), (text) => {
        expectWellFormed(parseConfig(text));
      }),
      { numRuns: 1_000 },
    );
  });

  it('on arbitrary values written as YAML', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue({ maxDepth: 3 }), nearlyValid), (value) => {
        expectWellFormed(parseConfig(stringify(value)));
      }),
      { numRuns: 200 },
    );
  });
});

describe('parseConfigValue never throws', () => {
  it('on arbitrary JSON-ish and JavaScript values', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.anything({ maxDepth: 3 }), fc.jsonValue({ maxDepth: 3 }), nearlyValid),
        (value) => {
          expectWellFormed(parseConfigValue(value));
        },
      ),
      { numRuns: 1_000 },
    );
  });

  it('reads back valid settings, normalized', () => {
    const rule = fc.record({
      name: fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/),
      batch_size: fc.integer({ min: 1, max: 128 }),
      max_checks_retries: fc.nat(5),
      checks_timeout: fc.integer({ min: 1, max: 48 }).map((hours) => `${hours}h`),
    });
    fc.assert(
      fc.property(fc.uniqueArray(rule, { minLength: 1, maxLength: 4, selector: (r) => r.name }), (rules) => {
        const result = parseConfig(stringify({ queue_rules: rules }));
        expect(result.ok).toBe(true);
        if (!result.ok) return;
        expect(
          result.config.queue_rules.map((r) => [
            r.name,
            r.batch_size,
            r.max_checks_retries,
            r.checks_timeout,
          ]),
        ).toEqual(
          rules.map((r) => [
            r.name,
            { min: r.batch_size, max: r.batch_size },
            r.max_checks_retries,
            Number.parseInt(r.checks_timeout, 10) * 3_600,
          ]),
        );
      }),
    );
  });
});
