import { z } from 'zod';
import { dateTimeQuerySchema, repeatedQuery, storableText } from './common.schema.ts';
import type { ValidationIssue } from './errors.schema.ts';

/** The 15 statistics endpoints: the path suffix after `/v1/repos/{owner}/{repository}/stats/`. */
export const statsEndpointSchema = z
  .enum([
    'time_to_merge',
    'merge_queue_checks_outcome',
    'queues_checks_outcome_count',
    'queues_entered_count',
    'queues_merged_count',
    'average_ci_runtime',
    'average_queue_time',
    'total_queue_time',
    'queue_size',
    'running_speculative_checks',
    'batch_size',
    'batch_bisection',
    'checks_retries',
    'failure_rate',
    'queues_pr_exit_reasons',
  ])
  .describe('Statistics endpoint (path suffix after /stats/)');
export type StatsEndpoint = z.infer<typeof statsEndpointSchema>;
export const statsEndpoints: readonly StatsEndpoint[] = statsEndpointSchema.options;

/** One value of a repeated filter: 1–255 characters. */
const filterValueSchema = storableText(z.string().min(1).max(255));

function filterSchema(description: string) {
  return repeatedQuery(filterValueSchema).optional().describe(description);
}

const windowShape = {
  start_at: dateTimeQuerySchema
    .optional()
    .describe(
      'Start of the period (RFC 3339 with an offset, or a date); default: one day before end_at. The period spans at most 366 days',
    ),
  end_at: dateTimeQuerySchema
    .optional()
    .describe('End of the period (RFC 3339 with an offset, or a date); default: now'),
};

const runningChecksShape = {
  base_ref: filterSchema('Base reference(s) of the pull requests; repeat the key for several (OR-ed)'),
  partition_name: filterSchema('Partition name(s); repeat the key for several (OR-ed)'),
  queue_name: filterSchema('Merge queue name(s); repeat the key for several (OR-ed)'),
  ...windowShape,
};

const statsShape = {
  ...runningChecksShape,
  priority_rule_name: filterSchema('Priority rule name(s); repeat the key for several (OR-ed)'),
};

const endBeforeStartMessage = 'end_at must not be before start_at';

/** Rejects an explicit `end_at` before an explicit `start_at`; defaults are checked by resolveStatsWindow. */
function refineWindow(
  value: { start_at?: Date | undefined; end_at?: Date | undefined },
  ctx: z.RefinementCtx,
) {
  const { start_at, end_at } = value;
  if (start_at instanceof Date && end_at instanceof Date && end_at.getTime() < start_at.getTime()) {
    ctx.addIssue({ code: 'custom', path: ['end_at'], message: endBeforeStartMessage, input: end_at });
  }
}

/**
 * Query of every statistics endpoint except `time_to_merge` and `running_speculative_checks`.
 * Unknown keys are stripped (unknown query parameters are ignored). An absent filter means
 * "no filter"; values of one filter are OR-ed, different filters AND-ed.
 */
export const statsQuerySchema = z
  .object(statsShape)
  .superRefine(refineWindow)
  .describe('Statistics filters: repeated keys for lists; period start_at..end_at (default: the last day)');
export type StatsQuery = z.infer<typeof statsQuerySchema>;

/** Query of `running_speculative_checks`: no `priority_rule_name` filter (one sent is ignored). */
export const runningChecksQuerySchema = z
  .object(runningChecksShape)
  .superRefine(refineWindow)
  .describe('Running speculative checks filters: like the other statistics, without priority_rule_name');
export type RunningChecksQuery = z.infer<typeof runningChecksQuerySchema>;

/** Query of `time_to_merge`: only `at` and `branch`. */
export const timeToMergeQuerySchema = z
  .object({
    at: dateTimeQuerySchema
      .optional()
      .describe(
        'Instant at which to compute time to merge (RFC 3339 with an offset, or a date); default: now',
      ),
    branch: storableText(z.string().min(1).max(255)).optional().describe('Base branch name'),
  })
  .describe('Time to merge parameters');
export type TimeToMergeQuery = z.infer<typeof timeToMergeQuerySchema>;

/** The query schema of each statistics endpoint. */
export const statsQuerySchemas = {
  time_to_merge: timeToMergeQuerySchema,
  merge_queue_checks_outcome: statsQuerySchema,
  queues_checks_outcome_count: statsQuerySchema,
  queues_entered_count: statsQuerySchema,
  queues_merged_count: statsQuerySchema,
  average_ci_runtime: statsQuerySchema,
  average_queue_time: statsQuerySchema,
  total_queue_time: statsQuerySchema,
  queue_size: statsQuerySchema,
  running_speculative_checks: runningChecksQuerySchema,
  batch_size: statsQuerySchema,
  batch_bisection: statsQuerySchema,
  checks_retries: statsQuerySchema,
  failure_rate: statsQuerySchema,
  queues_pr_exit_reasons: statsQuerySchema,
} as const satisfies Record<StatsEndpoint, z.ZodType>;

/** The resolved statistics period, both ends inclusive. */
export interface StatsWindow {
  start: Date;
  end: Date;
}

export type StatsWindowResult = ({ ok: true } & StatsWindow) | { ok: false; issue: ValidationIssue };

const ONE_DAY_MS = 86_400_000;

/**
 * The longest period a statistics request may cover. Data is kept 90 days by default; a year
 * leaves room for a longer retention while bounding a request's buckets (183 of 2 days).
 */
export const MAX_STATS_PERIOD_DAYS = 366;

/**
 * Applies the period defaults (end_at = now, start_at = end_at − 1 day) and checks the order.
 * Pure: the caller passes "now". An `end_at` (given or defaulted) before `start_at` is the
 * 422 issue `{loc: ['query', 'end_at'], type: 'value_error'}`; equal ends are allowed. A period
 * longer than {@link MAX_STATS_PERIOD_DAYS} is a 422 issue too.
 */
export function resolveStatsWindow(
  query: { start_at?: Date | undefined; end_at?: Date | undefined },
  now: Date,
): StatsWindowResult {
  const end = query.end_at ?? now;
  const start = query.start_at ?? new Date(end.getTime() - ONE_DAY_MS);
  if (end.getTime() < start.getTime()) {
    const msg = query.end_at ? endBeforeStartMessage : 'start_at must not be after end_at (default: now)';
    return { ok: false, issue: { loc: ['query', 'end_at'], msg, type: 'value_error' } };
  }
  if (end.getTime() - start.getTime() > MAX_STATS_PERIOD_DAYS * ONE_DAY_MS) {
    const msg = `start_at..end_at cannot span more than ${MAX_STATS_PERIOD_DAYS} days`;
    return {
      ok: false,
      issue: { loc: ['query', query.start_at ? 'start_at' : 'end_at'], msg, type: 'value_error' },
    };
  }
  return { ok: true, start, end };
}
