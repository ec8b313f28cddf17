import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  resolveStatsWindow,
  runningChecksQuerySchema,
  type StatsEndpoint,
  statsEndpointSchema,
  statsEndpoints,
  statsQuerySchema,
  statsQuerySchemas,
  timeToMergeQuerySchema,
} from '../../shared/schemas/stats-query.schema.ts';
import {
  ABORT_CODES,
  CHECK_OUTCOMES,
  type CheckOutcomeCounts,
  statsResponseSchemas,
} from '../../shared/schemas/stats-response.schema.ts';

const keys = {
  base_ref: 'main',
  partition_name: '__default__',
  queue_name: 'default',
  priority_rule_name: 'default',
};
const span = { start: '2026-11-01T10:00:00Z', end: '2026-11-01T10:59:59Z' };

function groups(stats: unknown, groupKeys: Record<string, unknown> = keys) {
  return { groups: [{ ...groupKeys, stats }] };
}

const outcomeCounts = Object.fromEntries(CHECK_OUTCOMES.map((k) => [k, 0])) as CheckOutcomeCounts;

/** One valid body per endpoint, exactly as docs/api.md ("Statistics") describes it. */
const validBodies: Record<StatsEndpoint, unknown> = {
  time_to_merge: [
    {
      partition_name: '__default__',
      queues: [
        { queue_name: 'default', time_to_merge: { mean: 1234.5, median: 900 } },
        { queue_name: 'hotfix', time_to_merge: { mean: null, median: null } },
      ],
    },
  ],
  merge_queue_checks_outcome: groups({ ...outcomeCounts, SUCCESS: 12, CHECKS_FAILED: 2 }),
  queues_checks_outcome_count: groups([
    { ...span, check_outcome: 'SUCCESS', count: 4 },
    { ...span, check_outcome: 'CHECKS_TIMEOUT', count: 1 },
  ]),
  queues_entered_count: groups([{ ...span, entered: 3 }]),
  queues_merged_count: groups([{ ...span, merged: 2 }], {
    base_ref: 'main',
    partition_names: ['web', 'api'],
    queue_name: 'default',
    priority_rule_name: 'default',
  }),
  average_ci_runtime: groups([{ ...span, runtime: 450.5, sum_runtime: 901, count_runtime: 2 }]),
  average_queue_time: groups([
    { ...span, queue_time: 90, idle_capacity: 60, idle_schedule: 30, idle_freeze: 0 },
  ]),
  total_queue_time: groups([
    {
      ...span,
      avg_queue_time: 600,
      max_queue_time: 900,
      min_queue_time: 300,
      sum_queue_time: 1200,
      count_queue_time: 2,
    },
  ]),
  queue_size: groups([{ ...span, avg_size: 2.75, max_size: 4, min_size: 1 }]),
  running_speculative_checks: groups(
    [{ ...span, avg_running_checks: 1.5, max_running_checks: 3, min_running_checks: 0 }],
    {
      base_ref: 'main',
      partition_name: '__default__',
      queue_name: 'default',
    },
  ),
  batch_size: groups([
    {
      ...span,
      avg_batch_size: 2.5,
      max_batch_size: 3,
      min_batch_size: 2,
      sum_batch_size: 5,
      count_batch_size: 2,
    },
  ]),
  batch_bisection: {
    started: [
      {
        ...keys,
        stats: [
          { ...span, bisection_count: 2, avg_depth: 1.5, max_depth: 2, avg_batch_size_before_split: 4 },
        ],
      },
    ],
    completed: [
      {
        ...keys,
        stats: [
          { ...span, bisection_completed_count: 1, culprit_found_count: 1, max_failure_reached_count: 0 },
        ],
      },
    ],
  },
  checks_retries: groups([
    {
      ...span,
      total_retries: 3,
      sessions_with_retries: 2,
      recovered: 1,
      not_recovered: 1,
      recovery_rate: 0.5,
      avg_retry_depth: 1.5,
      max_retry_depth: 2,
    },
  ]),
  failure_rate: groups([{ ...span, total: 4, failures: 1, failure_rate: 0.25 }]),
  queues_pr_exit_reasons: groups([
    { ...span, exit_reason: 'PR_MERGED', count: 5 },
    { ...span, exit_reason: 'PR_DEQUEUED', count: 1 },
  ]),
};

/** A wrong body per endpoint, each with the reason it must be rejected. */
const invalidBodies: [StatsEndpoint, string, unknown][] = [
  [
    'time_to_merge',
    'time_to_merge without median',
    [{ partition_name: 'p', queues: [{ queue_name: 'q', time_to_merge: { mean: 1 } }] }],
  ],
  ['time_to_merge', 'wrapped in groups', { groups: [] }],
  ['merge_queue_checks_outcome', 'an abort code key missing', groups({ SUCCESS: 1 })],
  ['merge_queue_checks_outcome', 'an unknown outcome key', groups({ ...outcomeCounts, FLAKY: 1 })],
  ['merge_queue_checks_outcome', 'a fractional count', groups({ ...outcomeCounts, SUCCESS: 1.5 })],
  [
    'queues_checks_outcome_count',
    'an unknown outcome',
    groups([{ ...span, check_outcome: 'FLAKY', count: 1 }]),
  ],
  [
    'queues_checks_outcome_count',
    'PR_MERGED is an exit reason, not a check outcome',
    groups([{ ...span, check_outcome: 'PR_MERGED', count: 1 }]),
  ],
  ['queues_entered_count', 'missing figure', groups([{ ...span }])],
  ['queues_entered_count', 'negative count', groups([{ ...span, entered: -1 }])],
  ['queues_entered_count', 'missing bucket end', groups([{ start: span.start, entered: 1 }])],
  [
    'queues_entered_count',
    'a bucket start that is not a date-time',
    groups([{ ...span, start: '2026-11-01', entered: 1 }]),
  ],
  [
    'queues_entered_count',
    'a group without priority_rule_name',
    groups([{ ...span, entered: 1 }], { ...keys, priority_rule_name: undefined }),
  ],
  [
    'queues_merged_count',
    'partition_name instead of partition_names',
    groups([{ ...span, merged: 1 }], keys),
  ],
  [
    'queues_merged_count',
    'partition_names as a string',
    groups([{ ...span, merged: 1 }], { ...keys, partition_name: undefined, partition_names: 'web' }),
  ],
  ['average_ci_runtime', 'missing count_runtime', groups([{ ...span, runtime: 1, sum_runtime: 1 }])],
  [
    'average_queue_time',
    'missing idle_freeze',
    groups([{ ...span, queue_time: 1, idle_capacity: 1, idle_schedule: 0 }]),
  ],
  [
    'total_queue_time',
    'duration as a string',
    groups([
      {
        ...span,
        avg_queue_time: '1',
        max_queue_time: 1,
        min_queue_time: 1,
        sum_queue_time: 1,
        count_queue_time: 1,
      },
    ]),
  ],
  ['queue_size', 'missing avg_size', groups([{ ...span, max_size: 1, min_size: 1 }])],
  [
    'running_speculative_checks',
    'a group with priority_rule_name',
    groups([{ ...span, avg_running_checks: 1, max_running_checks: 1, min_running_checks: 1 }], keys),
  ],
  [
    'batch_size',
    'extra figure',
    groups([
      {
        ...span,
        avg_batch_size: 1,
        max_batch_size: 1,
        min_batch_size: 1,
        sum_batch_size: 1,
        count_batch_size: 1,
        median_batch_size: 1,
      },
    ]),
  ],
  ['batch_bisection', 'completed missing', { started: [] }],
  [
    'batch_bisection',
    'completed figures in started',
    {
      started: [
        {
          ...keys,
          stats: [
            { ...span, bisection_completed_count: 1, culprit_found_count: 1, max_failure_reached_count: 0 },
          ],
        },
      ],
      completed: [],
    },
  ],
  [
    'checks_retries',
    'recovery_rate above 1',
    groups([
      {
        ...span,
        total_retries: 1,
        sessions_with_retries: 1,
        recovered: 1,
        not_recovered: 0,
        recovery_rate: 2,
        avg_retry_depth: 1,
        max_retry_depth: 1,
      },
    ]),
  ],
  [
    'failure_rate',
    'failure_rate as a percentage',
    groups([{ ...span, total: 4, failures: 1, failure_rate: 25 }]),
  ],
  ['failure_rate', 'null failure_rate', groups([{ ...span, total: 4, failures: 1, failure_rate: null }])],
  [
    'queues_pr_exit_reasons',
    'SUCCESS is a check outcome, not an exit reason',
    groups([{ ...span, exit_reason: 'SUCCESS', count: 1 }]),
  ],
  ['queues_pr_exit_reasons', 'missing count', groups([{ ...span, exit_reason: 'PR_MERGED' }])],
];

describe('statsEndpointSchema', () => {
  it('has the 15 endpoint suffixes, each with a query and a response schema', () => {
    expect(statsEndpoints).toHaveLength(15);
    expect(Object.keys(statsQuerySchemas).sort()).toEqual([...statsEndpoints].sort());
    expect(Object.keys(statsResponseSchemas).sort()).toEqual([...statsEndpoints].sort());
    expect(statsEndpointSchema.safeParse('queues_pr_exit_reasons').success).toBe(true);
    expect(statsEndpointSchema.safeParse('queue_sizes').success).toBe(false);
  });

  it('routes running_speculative_checks and time_to_merge to their own query schemas', () => {
    expect(statsQuerySchemas.running_speculative_checks).toBe(runningChecksQuerySchema);
    expect(statsQuerySchemas.time_to_merge).toBe(timeToMergeQuerySchema);
    expect(statsQuerySchemas.queue_size).toBe(statsQuerySchema);
  });
});

describe('statsQuerySchema', () => {
  it('accepts repeated keys as arrays and a single value as a one-item array', () => {
    const parsed = statsQuerySchema.parse({
      queue_name: ['a', 'b'],
      base_ref: 'main',
      partition_name: 'web,api',
    });
    expect(parsed.queue_name).toEqual(['a', 'b']);
    expect(parsed.base_ref).toEqual(['main']);
    // A comma inside one value is part of the value.
    expect(parsed.partition_name).toEqual(['web,api']);
    expect(parsed.priority_rule_name).toBeUndefined();
  });

  it('accepts an empty query', () => {
    expect(statsQuerySchema.parse({})).toEqual({});
  });

  it('rejects empty and over-long filter values', () => {
    expect(statsQuerySchema.safeParse({ queue_name: '' }).success).toBe(false);
    expect(statsQuerySchema.safeParse({ base_ref: ['main', 'x'.repeat(256)] }).success).toBe(false);
    expect(statsQuerySchema.safeParse({ base_ref: 'x'.repeat(255) }).success).toBe(true);
  });

  it('parses RFC 3339 with an offset and bare dates into Dates', () => {
    const parsed = statsQuerySchema.parse({ start_at: '2026-11-01', end_at: '2026-11-01T12:00:00+02:00' });
    expect(parsed.start_at?.toISOString()).toBe('2026-11-01T00:00:00.000Z');
    expect(parsed.end_at?.toISOString()).toBe('2026-11-01T10:00:00.000Z');
  });

  it.each(['yesterday', '2026-11-01T10:00:00', '2026-13-01', '1730000000'])(
    'rejects the date-time %j',
    (value) => {
      const result = statsQuerySchema.safeParse({ start_at: value });
      expect(result.success).toBe(false);
      expect(result.error?.issues[0]?.path).toEqual(['start_at']);
    },
  );

  it('rejects an explicit end_at before start_at on end_at', () => {
    const result = statsQuerySchema.safeParse({ start_at: '2026-11-02', end_at: '2026-11-01' });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.path)).toEqual([['end_at']]);
    expect(statsQuerySchema.safeParse({ start_at: '2026-11-01', end_at: '2026-11-01' }).success).toBe(true);
  });

  it('ignores unknown query parameters', () => {
    expect(statsQuerySchema.parse({ queue_name: 'a', page: '2' })).toEqual({ queue_name: ['a'] });
  });
});

describe('runningChecksQuerySchema', () => {
  it('takes the common filters but ignores priority_rule_name', () => {
    const parsed = runningChecksQuerySchema.parse({
      queue_name: 'a',
      priority_rule_name: 'hotfix',
      end_at: '2026-11-01',
    });
    expect(parsed).toEqual({ queue_name: ['a'], end_at: new Date('2026-11-01T00:00:00Z') });
  });

  it('validates the period like the other statistics', () => {
    expect(runningChecksQuerySchema.safeParse({ start_at: 'soon' }).success).toBe(false);
    expect(runningChecksQuerySchema.safeParse({ start_at: '2026-11-02', end_at: '2026-11-01' }).success).toBe(
      false,
    );
  });
});

describe('timeToMergeQuerySchema', () => {
  it('takes at and branch only', () => {
    const parsed = timeToMergeQuerySchema.parse({
      at: '2026-11-01T10:00:00Z',
      branch: 'main',
      queue_name: 'a',
    });
    expect(parsed).toEqual({ at: new Date('2026-11-01T10:00:00Z'), branch: 'main' });
    expect(timeToMergeQuerySchema.parse({})).toEqual({});
  });

  it('rejects a bad at and an empty branch', () => {
    expect(timeToMergeQuerySchema.safeParse({ at: 'now' }).success).toBe(false);
    expect(timeToMergeQuerySchema.safeParse({ branch: '' }).success).toBe(false);
  });
});

describe('resolveStatsWindow', () => {
  const now = new Date('2026-11-01T10:15:00Z');

  it('defaults to the day before now', () => {
    expect(resolveStatsWindow({}, now)).toEqual({
      ok: true,
      start: new Date('2026-10-31T10:15:00Z'),
      end: now,
    });
  });

  it('defaults start_at to one day before an explicit end_at', () => {
    const end = new Date('2026-10-01T00:00:00Z');
    expect(resolveStatsWindow({ end_at: end }, now)).toEqual({
      ok: true,
      start: new Date('2026-09-30T00:00:00Z'),
      end,
    });
  });

  it('keeps an explicit start_at and defaults end_at to now', () => {
    const start = new Date('2026-10-01T00:00:00Z');
    expect(resolveStatsWindow({ start_at: start }, now)).toEqual({ ok: true, start, end: now });
  });

  it('allows an empty period (start = end)', () => {
    expect(resolveStatsWindow({ start_at: now, end_at: now }, now)).toEqual({
      ok: true,
      start: now,
      end: now,
    });
  });

  it('reports end_at before start_at as a query value error on end_at', () => {
    const result = resolveStatsWindow(
      { start_at: new Date('2026-11-02T00:00:00Z'), end_at: new Date('2026-11-01T00:00:00Z') },
      now,
    );
    expect(result).toEqual({
      ok: false,
      issue: { loc: ['query', 'end_at'], msg: expect.any(String), type: 'value_error' },
    });
  });

  it('reports a start_at after the default end_at (now)', () => {
    const result = resolveStatsWindow({ start_at: new Date('2026-11-02T00:00:00Z') }, now);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.issue.loc).toEqual(['query', 'end_at']);
  });

  it('works on parsed queries', () => {
    const query = statsQuerySchema.parse({ start_at: '2026-10-01', end_at: '2026-10-03' });
    expect(resolveStatsWindow(query, now)).toEqual({
      ok: true,
      start: new Date('2026-10-01T00:00:00Z'),
      end: new Date('2026-10-03T00:00:00Z'),
    });
  });
});

describe('statsResponseSchemas', () => {
  it('lists SUCCESS and the 31 abort codes as outcomes', () => {
    expect(ABORT_CODES).toHaveLength(31);
    expect(new Set(ABORT_CODES).size).toBe(31);
    expect(CHECK_OUTCOMES).toEqual(['SUCCESS', ...ABORT_CODES]);
  });

  it.each(statsEndpoints)('%s accepts a valid body', (endpoint) => {
    const result = statsResponseSchemas[endpoint].safeParse(validBodies[endpoint]);
    expect(result.error).toBeUndefined();
  });

  it.each(invalidBodies)('%s rejects %s', (endpoint, _reason, body) => {
    expect(statsResponseSchemas[endpoint].safeParse(body).success).toBe(false);
  });

  it.each(statsEndpoints.filter((e) => e !== 'time_to_merge' && e !== 'batch_bisection'))(
    '%s allows null stats and no groups',
    (endpoint) => {
      const body = validBodies[endpoint] as { groups: Record<string, unknown>[] };
      const nullStats = { groups: body.groups.map((g) => ({ ...g, stats: null })) };
      expect(statsResponseSchemas[endpoint].safeParse(nullStats).success).toBe(true);
      expect(statsResponseSchemas[endpoint].safeParse({ groups: [] }).success).toBe(true);
    },
  );

  it('allows null retry averages when no session had retries', () => {
    const body = groups([
      {
        ...span,
        total_retries: 0,
        sessions_with_retries: 0,
        recovered: 0,
        not_recovered: 0,
        recovery_rate: null,
        avg_retry_depth: null,
        max_retry_depth: 0,
      },
    ]);
    expect(statsResponseSchemas.checks_retries.safeParse(body).success).toBe(true);
  });
});

describe('JSON Schema conversion (OpenAPI)', () => {
  it.each(statsEndpoints)('%s converts its query (input) and response (output)', (endpoint) => {
    const query = z.toJSONSchema(statsQuerySchemas[endpoint], { io: 'input' });
    const response = z.toJSONSchema(statsResponseSchemas[endpoint], { io: 'output' });
    expect(query.description).toEqual(expect.any(String));
    expect(response.description).toEqual(expect.any(String));
  });

  it('documents repeated filters as string arrays and the period as date-time strings', () => {
    const json = z.toJSONSchema(statsQuerySchema, { io: 'input' }) as {
      properties: Record<string, { type?: string; items?: unknown; anyOf?: unknown[] }>;
      required?: string[];
    };
    expect(Object.keys(json.properties).sort()).toEqual([
      'base_ref',
      'end_at',
      'partition_name',
      'priority_rule_name',
      'queue_name',
      'start_at',
    ]);
    expect(json.properties['queue_name']).toMatchObject({
      type: 'array',
      items: { type: 'string', minLength: 1, maxLength: 255 },
    });
    expect(json.properties['start_at']?.anyOf).toHaveLength(2);
    expect(json.required ?? []).toEqual([]);
  });

  it('leaves priority_rule_name out of the running checks query', () => {
    const json = z.toJSONSchema(runningChecksQuerySchema, { io: 'input' }) as { properties: object };
    expect(Object.keys(json.properties)).not.toContain('priority_rule_name');
  });
});
