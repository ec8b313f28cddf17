import { describe, expect, it } from 'vitest';
import { DEFAULT_PRIORITY, defaultConfig, type TrainyardConfig } from '../../app/config/config.schema.ts';
import { parseConfig, parseConfigValue } from '../../app/config/load-config.ts';

function config(yaml: string): TrainyardConfig {
  const result = parseConfig(yaml);
  if (!result.ok) throw new Error(JSON.stringify(result.errors, null, 2));
  return result.config;
}

const CHECK_SUCCESS_CI = {
  kind: 'equality',
  source: 'check-success=ci',
  negated: false,
  attribute: 'check-success',
  operator: '=',
  value: 'ci',
};

describe('defaults', () => {
  it('without a file: one queue rule "default" with the documented defaults', () => {
    expect(defaultConfig).toEqual({
      queue_rules: [
        {
          name: 'default',
          queue_conditions: [],
          merge_conditions: [CHECK_SUCCESS_CI],
          autoqueue: false,
          batch_size: { min: 1, max: 1 },
          batch_max_wait_time: 30,
          checks_timeout: 3_600,
          max_checks_retries: 0,
          batch_max_failure_resolution_attempts: null,
          merge_method: 'merge',
        },
      ],
      priority_rules: [],
      partition_rules: [],
      merge_queue: {
        max_parallel_checks: 5,
        skip_intermediate_results: false,
        reset_on_external_merge: 'always',
        mode: 'fixed',
        queued_per_check: 8,
        bisect_aside: false,
      },
    });
  });

  it('the default configuration cannot be changed by accident', () => {
    expect(Object.isFrozen(defaultConfig)).toBe(true);
    expect(Object.isFrozen(defaultConfig.queue_rules[0]!.batch_size)).toBe(true);
  });

  it.each(['', '\n', '# nothing configured yet\n', '---\n', '~'])(
    '%j is the default configuration',
    (yaml) => {
      expect(config(yaml)).toEqual(defaultConfig);
    },
  );

  it('a rule with only a name gets every default', () => {
    expect(config('queue_rules: [{name: fast}]').queue_rules[0]).toEqual({
      ...defaultConfig.queue_rules[0],
      name: 'fast',
    });
  });

  it('a file without queue_rules still has the default rule', () => {
    expect(config('merge_queue: {max_parallel_checks: 1}').queue_rules).toEqual(defaultConfig.queue_rules);
  });

  it('a pull request without priority rule gets medium', () => {
    expect(DEFAULT_PRIORITY).toEqual({ priority: 2000, priority_alias: 'medium' });
  });
});

describe('the documented example', () => {
  it('parses to the normalized form', () => {
    const yaml = `
queue_rules:
  - name: default
    queue_conditions: []
    merge_conditions: [check-success=ci]
    autoqueue: false
    batch_size: 1
    batch_max_wait_time: 30s
    checks_timeout: 1h
    max_checks_retries: 0
    batch_max_failure_resolution_attempts: null
    merge_method: merge
priority_rules:
  - name: hotfix
    conditions: [label=hotfix]
    priority: high
    allow_checks_interruption: true
partition_rules:
  - name: web
    conditions: ["files~=^web/"]
merge_queue:
  max_parallel_checks: 5
  skip_intermediate_results: false
  reset_on_external_merge: always
`;
    expect(config(yaml)).toEqual({
      ...defaultConfig,
      priority_rules: [
        {
          name: 'hotfix',
          conditions: [{ ...CHECK_SUCCESS_CI, source: 'label=hotfix', attribute: 'label', value: 'hotfix' }],
          priority: 3000,
          priority_alias: 'high',
          allow_checks_interruption: true,
        },
      ],
      partition_rules: [
        {
          name: 'web',
          conditions: [
            {
              kind: 'regex',
              source: 'files~=^web/',
              negated: false,
              attribute: 'files',
              operator: '~=',
              pattern: '^web/',
              flags: '',
            },
          ],
        },
      ],
    });
  });
});

describe('normalization', () => {
  const rule = (settings: string) =>
    config(`queue_rules:\n  - name: q\n${settings.replace(/^/gm, '    ')}`).queue_rules[0]!;

  it.each([
    ['batch_size: 4', { min: 4, max: 4 }],
    ['batch_size: {min: 2, max: 8}', { min: 2, max: 8 }],
    ['batch_size: {max: 8}', { min: 1, max: 8 }],
    ['batch_size: {min: 128, max: 128}', { min: 128, max: 128 }],
  ])('%s → %j', (settings, batchSize) => {
    expect(rule(settings).batch_size).toEqual(batchSize);
  });

  it.each([
    ['batch_max_wait_time: 0s', 'batch_max_wait_time', 0],
    ['batch_max_wait_time: 2m', 'batch_max_wait_time', 120],
    ['batch_max_wait_time: 45', 'batch_max_wait_time', 45],
    ['checks_timeout: 1h30m', 'checks_timeout', 5_400],
    ['checks_timeout: 2d', 'checks_timeout', 172_800],
    ['checks_timeout: null', 'checks_timeout', null],
    ['checks_timeout: ~', 'checks_timeout', null],
  ] as const)('%s → %j seconds', (settings, key, seconds) => {
    expect(rule(settings)[key]).toBe(seconds);
  });

  it.each([
    ['max_checks_retries: 2', 'max_checks_retries', 2],
    ['batch_max_failure_resolution_attempts: 0', 'batch_max_failure_resolution_attempts', 0],
    ['merge_method: fast-forward', 'merge_method', 'fast-forward'],
    ['autoqueue: true', 'autoqueue', true],
  ] as const)('%s', (settings, key, value) => {
    expect(rule(settings)[key]).toBe(value);
  });

  it.each([
    ['low', 1000, 'low'],
    ['medium', 2000, 'medium'],
    ['high', 3000, 'high'],
    ['2500', 2500, '2500'],
    ['3000', 3000, 'high'],
    ['1', 1, '1'],
    ['10000', 10_000, '10000'],
  ])('priority %s → %i (%s)', (priority, number, alias) => {
    const [hotfix] = config(
      `priority_rules: [{name: p, conditions: [], priority: ${priority}}]`,
    ).priority_rules;
    expect(hotfix).toMatchObject({ priority: number, priority_alias: alias });
  });

  it('a priority rule defaults to medium and may interrupt checks', () => {
    expect(config('priority_rules: [{name: p, conditions: [label=x]}]').priority_rules[0]).toMatchObject({
      priority: 2000,
      priority_alias: 'medium',
      allow_checks_interruption: true,
    });
  });

  it('nested conditions become trees', () => {
    const yaml = 'queue_rules:\n  - name: q\n    merge_conditions:\n      - or: [label=a, {not: draft}]\n';
    expect(config(yaml).queue_rules[0]!.merge_conditions).toMatchObject([
      { kind: 'or', conditions: [{ kind: 'equality' }, { kind: 'not', condition: { kind: 'flag' } }] },
    ]);
  });

  it('YAML merge keys share settings between rules', () => {
    const yaml = `
queue_rules:
  - &base
    name: main
    batch_size: 4
    checks_timeout: 2h
  - <<: *base
    name: docs
`;
    expect(config(yaml).queue_rules.map((r) => [r.name, r.batch_size.max, r.checks_timeout])).toEqual([
      ['main', 4, 7_200],
      ['docs', 4, 7_200],
    ]);
  });

  it('parseConfigValue takes an already decoded value (e.g. JSON)', () => {
    const result = parseConfigValue({ queue_rules: [{ name: 'q', batch_size: { min: 1, max: 3 } }] });
    expect(result.ok && result.config.queue_rules[0]!.batch_size).toEqual({ min: 1, max: 3 });
    expect(parseConfigValue(undefined)).toEqual({ ok: true, config: defaultConfig });
  });
});
