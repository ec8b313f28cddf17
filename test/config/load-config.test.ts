import { describe, expect, it } from 'vitest';
import type { ConfigError } from '../../app/config/config-error.ts';
import { parseConfig } from '../../app/config/load-config.ts';

function errors(yaml: string): ConfigError[] {
  const result = parseConfig(yaml);
  if (result.ok) throw new Error('expected errors');
  return result.errors;
}

/** Path and message only, for tables of one-line files. */
function problems(yaml: string): [string, string][] {
  return errors(yaml).map((error) => [error.path, error.message]);
}

describe('parseConfig — what was expected and what was found', () => {
  it.each<[string, string, string]>([
    ['queue_rules: {}', 'queue_rules', 'expected a list, found an empty mapping'],
    ['queue_rules: []', 'queue_rules', 'expected at least one queue rule, found an empty list'],
    ['queue_rules: [hotfix]', 'queue_rules[0]', 'expected a mapping, found "hotfix"'],
    ['queue_rules: [{}]', 'queue_rules[0].name', 'expected a queue rule name, found nothing'],
    ['queue_rules: [{name: 3}]', 'queue_rules[0].name', 'expected a queue rule name, found 3'],
    [
      'queue_rules: [{name: my queue}]',
      'queue_rules[0].name',
      'expected a queue rule name without spaces (it is typed in "@trainyard queue <name>"), found "my queue"',
    ],
    [
      'queue_rules: [{name: q, autoqueue: yes}]',
      'queue_rules[0].autoqueue',
      'expected true or false, found "yes"',
    ],
    [
      'queue_rules: [{name: q, batch_size: 0}]',
      'queue_rules[0].batch_size',
      'expected an integer from 1 to 128, or a mapping {min, max}, found 0',
    ],
    [
      'queue_rules: [{name: q, batch_size: 129}]',
      'queue_rules[0].batch_size',
      'expected an integer from 1 to 128, or a mapping {min, max}, found 129',
    ],
    [
      'queue_rules: [{name: q, batch_size: 2.5}]',
      'queue_rules[0].batch_size',
      'expected an integer from 1 to 128, or a mapping {min, max}, found 2.5',
    ],
    [
      'queue_rules: [{name: q, batch_size: "4"}]',
      'queue_rules[0].batch_size',
      'expected an integer from 1 to 128, or a mapping {min, max}, found "4"',
    ],
    [
      'queue_rules: [{name: q, batch_size: {min: 8, max: 4}}]',
      'queue_rules[0].batch_size.min',
      'expected min ≤ max, found min 8 and max 4',
    ],
    [
      'queue_rules: [{name: q, batch_size: {min: 2}}]',
      'queue_rules[0].batch_size.max',
      'expected an integer from 1 to 128, found nothing',
    ],
    [
      'queue_rules: [{name: q, batch_size: {max: 200}}]',
      'queue_rules[0].batch_size.max',
      'expected an integer from 1 to 128, found 200',
    ],
    [
      'queue_rules: [{name: q, batch_max_wait_time: soon}]',
      'queue_rules[0].batch_max_wait_time',
      'expected a duration such as 30s, 5m, 1h30m or 2d, found "soon"',
    ],
    [
      'queue_rules: [{name: q, batch_max_wait_time: 500ms}]',
      'queue_rules[0].batch_max_wait_time',
      'milliseconds are not supported (durations are whole seconds), found "500ms"',
    ],
    [
      'queue_rules: [{name: q, batch_max_wait_time: null}]',
      'queue_rules[0].batch_max_wait_time',
      'expected a duration such as 30s, 5m, 1h30m or 2d, found null',
    ],
    [
      'queue_rules: [{name: q, checks_timeout: 0}]',
      'queue_rules[0].checks_timeout',
      'expected a duration of 1s or more, or null for none, found 0',
    ],
    [
      'queue_rules: [{name: q, max_checks_retries: -1}]',
      'queue_rules[0].max_checks_retries',
      'expected an integer ≥ 0, found -1',
    ],
    [
      'queue_rules: [{name: q, batch_max_failure_resolution_attempts: many}]',
      'queue_rules[0].batch_max_failure_resolution_attempts',
      'expected an integer ≥ 0, or null, found "many"',
    ],
    [
      'queue_rules: [{name: q, merge_method: squash-merge}]',
      'queue_rules[0].merge_method',
      'expected one of "merge", "squash", "rebase", "fast-forward", found "squash-merge"',
    ],
    [
      'queue_rules: [{name: q, merge_conditions: check-success=ci}]',
      'queue_rules[0].merge_conditions',
      'expected a list of conditions, found "check-success=ci" (write it as a list: [check-success=ci])',
    ],
    [
      'queue_rules: [{name: q, merge_conditions: [check-success=ci, {or: [lable=x]}]}]',
      'queue_rules[0].merge_conditions[1].or[0]',
      'invalid condition "lable=x": unknown attribute "lable" (did you mean "label"?)',
    ],
    [
      'queue_rules: [{name: q, queue_conditions: ["title~=("]}]',
      'queue_rules[0].queue_conditions[0]',
      'invalid condition "title~=(": invalid regular expression "(": Unterminated group',
    ],
    [
      'priority_rules: [{name: p, conditions: [], priority: urgent}]',
      'priority_rules[0].priority',
      'expected low, medium, high or an integer from 1 to 10000, found "urgent"',
    ],
    [
      'priority_rules: [{name: p, conditions: [], priority: 0}]',
      'priority_rules[0].priority',
      'expected low, medium, high or an integer from 1 to 10000, found 0',
    ],
    [
      'priority_rules: [{name: p, conditions: [], priority: 10001}]',
      'priority_rules[0].priority',
      'expected low, medium, high or an integer from 1 to 10000, found 10001',
    ],
    [
      'priority_rules: [{name: p}]',
      'priority_rules[0].conditions',
      'expected a list of conditions, found nothing',
    ],
    [
      'priority_rules: [{name: " p", conditions: []}]',
      'priority_rules[0].name',
      'expected a non-empty priority rule name without surrounding spaces, found " p"',
    ],
    [
      'partition_rules: [{name: __default__, conditions: []}]',
      'partition_rules[0].name',
      'expected a partition name other than "__default__", which is reserved for the queue without partitions',
    ],
    [
      'merge_queue: {max_parallel_checks: 0}',
      'merge_queue.max_parallel_checks',
      'expected an integer from 1 to 128, found 0',
    ],
    [
      'merge_queue: {reset_on_external_merge: sometimes}',
      'merge_queue.reset_on_external_merge',
      'expected one of "always", "never", found "sometimes"',
    ],
    [
      'merge_queue: {skip_intermediate_results: 1}',
      'merge_queue.skip_intermediate_results',
      'expected true or false, found 1',
    ],
    ['merge_queue: []', 'merge_queue', 'expected a mapping, found an empty list'],
  ])('%s', (yaml, path, message) => {
    expect(problems(yaml)).toEqual([[path, message]]);
  });
});

describe('parseConfig — unknown keys are named', () => {
  it.each<[string, string, string]>([
    [
      'pull_request_rules: []',
      'pull_request_rules',
      'unknown key "pull_request_rules"; expected one of: queue_rules, priority_rules, partition_rules, merge_queue',
    ],
    ['queue_rule: []', 'queue_rule', 'unknown key "queue_rule" (did you mean "queue_rules"?)'],
    [
      'scheduled_freezes: []',
      'scheduled_freezes',
      'unknown key "scheduled_freezes"; expected one of: queue_rules, priority_rules, partition_rules, merge_queue',
    ],
    [
      'queue_rules: [{name: q, batchsize: 2}]',
      'queue_rules[0].batchsize',
      'unknown key "batchsize" (did you mean "batch_size"?)',
    ],
    [
      'priority_rules: [{name: p, conditions: [], allow_check_interruption: false}]',
      'priority_rules[0].allow_check_interruption',
      'unknown key "allow_check_interruption" (did you mean "allow_checks_interruption"?)',
    ],
    [
      'merge_queue: {max_parallel_check: 2}',
      'merge_queue.max_parallel_check',
      'unknown key "max_parallel_check" (did you mean "max_parallel_checks"?)',
    ],
    [
      '"odd key": 1',
      '["odd key"]',
      'unknown key "odd key"; expected one of: queue_rules, priority_rules, partition_rules, merge_queue',
    ],
  ])('%s', (yaml, path, message) => {
    expect(problems(yaml)).toEqual([[path, message]]);
  });

  it('an unknown key next to a missing one: both are reported', () => {
    expect(problems('queue_rules: [{name: q, batch_size: {maximum: 4}}]')).toEqual([
      ['queue_rules[0].batch_size.max', 'expected an integer from 1 to 128, found nothing'],
      ['queue_rules[0].batch_size.maximum', 'unknown key "maximum"; expected one of: min, max'],
    ]);
  });

  it('a __proto__ key changes no prototype (zod drops it without an error)', () => {
    const result = parseConfig(
      '"__proto__": {polluted: true}\nmerge_queue: {"__proto__": {max_parallel_checks: 1}}',
    );
    expect(result.ok && result.config.merge_queue.max_parallel_checks).toBe(5);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(Object.getPrototypeOf(result.ok && result.config)).toBe(Object.prototype);
  });
});

describe('parseConfig — rule names are unique within each list', () => {
  it.each([
    ['queue_rules: [{name: a}, {name: b}, {name: a}]', 'queue_rules[2].name', 'queue_rules[0]'],
    [
      'priority_rules: [{name: a, conditions: []}, {name: a, conditions: []}]',
      'priority_rules[1].name',
      'priority_rules[0]',
    ],
    [
      'partition_rules: [{name: a, conditions: []}, {name: a, conditions: []}]',
      'partition_rules[1].name',
      'partition_rules[0]',
    ],
  ])('%s', (yaml, path, first) => {
    expect(problems(yaml)).toEqual([[path, `expected a unique name, found "a" again (already ${first})`]]);
  });

  it('the same name may be used in different lists', () => {
    expect(parseConfig('queue_rules: [{name: web}]\npartition_rules: [{name: web, conditions: []}]').ok).toBe(
      true,
    );
  });
});
