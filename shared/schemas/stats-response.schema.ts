import { z } from 'zod';
import { dateTimeSchema } from './common.schema.ts';
import { DEFAULT_PARTITION_NAME } from './default-names.ts';
import { type AbortCode, abortCodes } from './event-parts.schema.ts';
import type { StatsEndpoint } from './stats-query.schema.ts';

// Response bodies of `GET /v1/repos/{owner}/{repository}/stats/*` (docs/api.md, "Statistics").
// Every object is strict: a field not listed here is not part of the API, and an answer holding
// one is wrong.

// ── Figures ──────────────────────────────────────────────────────────────────

const countSchema = z.number().int().nonnegative();
const secondsSchema = z.number().nonnegative();
const rateSchema = z.number().min(0).max(1);

function count(description: string) {
  return countSchema.describe(description);
}

function seconds(description: string) {
  return secondsSchema.describe(`${description} (seconds)`);
}

function number(description: string) {
  return z.number().nonnegative().describe(description);
}

/** The abort codes of the event log, defined once with the event schemas. */
export const ABORT_CODES = abortCodes;
export type { AbortCode };

/** `SUCCESS` followed by every abort code: the keys of merge_queue_checks_outcome. */
export const CHECK_OUTCOMES = ['SUCCESS', ...ABORT_CODES] as const;
export type CheckOutcome = (typeof CHECK_OUTCOMES)[number];

export const checkOutcomeSchema = z
  .enum(CHECK_OUTCOMES)
  .describe('How checks ended: SUCCESS, or the abort code of the aborted checks');

/** `PR_MERGED` followed by every abort code. */
export const EXIT_REASONS = ['PR_MERGED', ...ABORT_CODES] as const;
export type ExitReason = (typeof EXIT_REASONS)[number];

export const exitReasonSchema = z
  .enum(EXIT_REASONS)
  .describe('Why a queue session ended: PR_MERGED, or the abort code of the leave');

// ── Buckets ──────────────────────────────────────────────────────────────────

const bucketStartSchema = dateTimeSchema.describe('First second of the interval, UTC (epoch-aligned)');
const bucketEndSchema = dateTimeSchema.describe('Last second of the interval (start + width − 1 s), UTC');

/** A time interval with its figures; buckets without data are omitted. */
function bucket<S extends z.ZodRawShape>(figures: S, description: string) {
  return z.strictObject({ start: bucketStartSchema, end: bucketEndSchema, ...figures }).describe(description);
}

export const queuesEnteredCountBucketSchema = bucket(
  { entered: count('Pull requests that entered a queue in the interval') },
  'Queue entries in one interval',
);

export const queuesMergedCountBucketSchema = bucket(
  { merged: count('Pull requests merged by the queue in the interval') },
  'Merges in one interval',
);

export const queuesChecksOutcomeCountBucketSchema = bucket(
  { check_outcome: checkOutcomeSchema, count: count('Checks that ended with this outcome in the interval') },
  'Count of one checks outcome in one interval (one bucket object per outcome)',
);

export const averageCiRuntimeBucketSchema = bucket(
  {
    runtime: seconds('Mean CI runtime (checks ended − started) of checks ended in the interval'),
    sum_runtime: seconds('Sum of the CI runtimes'),
    count_runtime: count('Number of checks runs measured'),
  },
  'CI runtime of checks that ended in one interval',
);

export const averageQueueTimeBucketSchema = bucket(
  {
    queue_time: seconds(
      'Mean idle time per session that left in the interval: the sum of the three idle parts',
    ),
    idle_capacity: seconds('Mean time waiting for a free batch slot (capacity)'),
    idle_schedule: seconds('Mean time waiting for the queue schedule'),
    idle_freeze: seconds('Mean time waiting for a scheduled freeze'),
  },
  'Idle time of queue sessions that left in one interval',
);

export const totalQueueTimeBucketSchema = bucket(
  {
    avg_queue_time: seconds('Mean time in queue (leave − enter) of sessions that left in the interval'),
    max_queue_time: seconds('Longest time in queue'),
    min_queue_time: seconds('Shortest time in queue'),
    sum_queue_time: seconds('Sum of the times in queue'),
    count_queue_time: count('Number of sessions that left'),
  },
  'Total time in queue of sessions that left in one interval',
);

export const queueSizeBucketSchema = bucket(
  {
    avg_size: number('Time-weighted mean queue size over the interval'),
    max_size: count('Largest queue size in the interval'),
    min_size: count('Smallest queue size in the interval'),
  },
  'Queue size over one interval',
);

export const runningSpeculativeChecksBucketSchema = bucket(
  {
    avg_running_checks: number('Time-weighted mean number of running speculative checks'),
    max_running_checks: count('Most speculative checks running at once'),
    min_running_checks: count('Fewest speculative checks running at once'),
  },
  'Running speculative checks over one interval',
);

export const batchSizeBucketSchema = bucket(
  {
    avg_batch_size: number('Mean number of pull requests tested per checks run started in the interval'),
    max_batch_size: count('Largest batch'),
    min_batch_size: count('Smallest batch'),
    sum_batch_size: count('Sum of the batch sizes'),
    count_batch_size: count('Number of checks runs started'),
  },
  'Batch size of checks started in one interval',
);

export const checksRetriesBucketSchema = bucket(
  {
    total_retries: count('Checks retries in the interval'),
    sessions_with_retries: count('Queue sessions with at least one retry'),
    recovered: count('Sessions with retries whose checks finally passed'),
    not_recovered: count('Sessions with retries whose checks finally failed'),
    recovery_rate: rateSchema
      .nullable()
      .describe('recovered / sessions_with_retries (0–1); null when sessions_with_retries is 0'),
    avg_retry_depth: z
      .number()
      .nonnegative()
      .nullable()
      .describe('Mean retry attempt reached per session with retries; null when sessions_with_retries is 0'),
    max_retry_depth: count('Highest retry attempt reached (0 when no retries)'),
  },
  'Checks retries in one interval',
);

export const failureRateBucketSchema = bucket(
  {
    total: count('Queue sessions that left in the interval'),
    failures: count('Sessions that left for CHECKS_FAILED or CHECKS_TIMEOUT'),
    failure_rate: rateSchema.describe('failures / total (0–1)'),
  },
  'Failure rate of queue sessions that left in one interval',
);

export const queuesPrExitReasonsBucketSchema = bucket(
  {
    exit_reason: exitReasonSchema,
    count: count('Queue sessions that ended for this reason in the interval'),
  },
  'Count of one exit reason in one interval (one bucket object per reason; each session counted once)',
);

export const bisectionStartedBucketSchema = bucket(
  {
    bisection_count: count('Bisections started in the interval'),
    avg_depth: number('Mean bisection depth'),
    max_depth: count('Deepest bisection'),
    avg_batch_size_before_split: number('Mean size of the batch before it was split'),
  },
  'Bisections started in one interval',
);

export const bisectionCompletedBucketSchema = bucket(
  {
    bisection_completed_count: count('Bisections completed in the interval'),
    culprit_found_count: count('Completed bisections that found a culprit'),
    max_failure_reached_count: count('Completed bisections that reached the maximum failure resolution'),
  },
  'Bisections completed in one interval',
);

// ── Groups ───────────────────────────────────────────────────────────────────

const baseRefSchema = z.string().describe('Base reference of the grouped pull requests');
const partitionNameSchema = z
  .string()
  .describe(`Partition name; \`${DEFAULT_PARTITION_NAME}\` when no partitions are used`);
const partitionNamesSchema = z
  .array(z.string())
  .describe(`Partition names of the merges; \`["${DEFAULT_PARTITION_NAME}"]\` when no partitions are used`);
const queueNameSchema = z.string().describe('Merge queue name');
const priorityRuleNameSchema = z
  .string()
  .nullable()
  .describe(
    `Priority rule name; null when no priority rule applied (filter on it with \`${DEFAULT_PARTITION_NAME}\`)`,
  );

const groupKeys = {
  base_ref: baseRefSchema,
  partition_name: partitionNameSchema,
  queue_name: queueNameSchema,
  priority_rule_name: priorityRuleNameSchema,
};

/** Buckets of a group; null only when there is nothing to report. */
function bucketList<T extends z.ZodType>(item: T) {
  return z
    .array(item)
    .nullable()
    .describe('The figures by interval, ordered by start; null when there is nothing to report');
}

function group<S extends z.ZodRawShape>(shape: S, description: string) {
  return z.strictObject(shape).describe(description);
}

function groupsResponse<T extends z.ZodType>(groupSchema: T, description: string) {
  return z
    .strictObject({
      groups: z
        .array(groupSchema)
        .describe(
          'One group per (base_ref, partition, queue_name, priority_rule_name) with data, ordered by them',
        ),
    })
    .describe(description);
}

export const queuesEnteredCountGroupSchema = group(
  { ...groupKeys, stats: bucketList(queuesEnteredCountBucketSchema) },
  'Queue entries of one group',
);
export const queuesEnteredCountResponseSchema = groupsResponse(
  queuesEnteredCountGroupSchema,
  'Count of pull requests entering queues, by interval',
);

export const queuesMergedCountGroupSchema = group(
  {
    base_ref: baseRefSchema,
    partition_names: partitionNamesSchema,
    queue_name: queueNameSchema,
    priority_rule_name: priorityRuleNameSchema,
    stats: bucketList(queuesMergedCountBucketSchema),
  },
  'Merges of one group (partition_names instead of partition_name)',
);
export const queuesMergedCountResponseSchema = groupsResponse(
  queuesMergedCountGroupSchema,
  'Count of pull requests merged by queues, by interval',
);

export const queuesChecksOutcomeCountGroupSchema = group(
  { ...groupKeys, stats: bucketList(queuesChecksOutcomeCountBucketSchema) },
  'Checks outcomes of one group',
);
export const queuesChecksOutcomeCountResponseSchema = groupsResponse(
  queuesChecksOutcomeCountGroupSchema,
  'Outcomes of checks, by interval (one bucket object per outcome)',
);

const checkOutcomeCountsShape = Object.fromEntries(
  CHECK_OUTCOMES.map((outcome) => [
    outcome,
    count(outcome === 'SUCCESS' ? 'Checks that passed' : `Checks aborted with ${outcome}`),
  ]),
) as Record<CheckOutcome, typeof countSchema>;

export const checkOutcomeCountsSchema = z
  .strictObject(checkOutcomeCountsShape)
  .nullable()
  .describe('Count per outcome over the whole period: every key present, zeros included');

export const mergeQueueChecksOutcomeGroupSchema = group(
  { ...groupKeys, stats: checkOutcomeCountsSchema },
  'Checks outcomes of one group over the period',
);
export const mergeQueueChecksOutcomeResponseSchema = groupsResponse(
  mergeQueueChecksOutcomeGroupSchema,
  'How pull requests left the queue(s): checks outcome counts over the period (not bucketed)',
);

export const averageCiRuntimeGroupSchema = group(
  { ...groupKeys, stats: bucketList(averageCiRuntimeBucketSchema) },
  'CI runtime of one group',
);
export const averageCiRuntimeResponseSchema = groupsResponse(
  averageCiRuntimeGroupSchema,
  'Runtime of CI on queued pull requests, by interval',
);

export const averageQueueTimeGroupSchema = group(
  { ...groupKeys, stats: bucketList(averageQueueTimeBucketSchema) },
  'Idle queue time of one group',
);
export const averageQueueTimeResponseSchema = groupsResponse(
  averageQueueTimeGroupSchema,
  'Idle time spent in queue, by interval',
);

export const totalQueueTimeGroupSchema = group(
  { ...groupKeys, stats: bucketList(totalQueueTimeBucketSchema) },
  'Total queue time of one group',
);
export const totalQueueTimeResponseSchema = groupsResponse(
  totalQueueTimeGroupSchema,
  'Total time spent in queue, by interval',
);

export const queueSizeGroupSchema = group(
  { ...groupKeys, stats: bucketList(queueSizeBucketSchema) },
  'Queue size of one group',
);
export const queueSizeResponseSchema = groupsResponse(
  queueSizeGroupSchema,
  'Average, max and min queue size, by interval',
);

export const runningSpeculativeChecksGroupSchema = group(
  {
    base_ref: baseRefSchema,
    partition_name: partitionNameSchema,
    queue_name: queueNameSchema,
    stats: bucketList(runningSpeculativeChecksBucketSchema),
  },
  'Running speculative checks of one group (no priority_rule_name)',
);
export const runningSpeculativeChecksResponseSchema = groupsResponse(
  runningSpeculativeChecksGroupSchema,
  'Speculative checks running, by interval',
);

export const batchSizeGroupSchema = group(
  { ...groupKeys, stats: bucketList(batchSizeBucketSchema) },
  'Batch sizes of one group',
);
export const batchSizeResponseSchema = groupsResponse(
  batchSizeGroupSchema,
  'Batch size of checks running on queues, by interval',
);

export const checksRetriesGroupSchema = group(
  { ...groupKeys, stats: bucketList(checksRetriesBucketSchema) },
  'Checks retries of one group',
);
export const checksRetriesResponseSchema = groupsResponse(
  checksRetriesGroupSchema,
  'Checks retries, by interval',
);

export const failureRateGroupSchema = group(
  { ...groupKeys, stats: bucketList(failureRateBucketSchema) },
  'Failure rate of one group',
);
export const failureRateResponseSchema = groupsResponse(
  failureRateGroupSchema,
  'Failure rate of pull requests in the queue, by interval',
);

export const queuesPrExitReasonsGroupSchema = group(
  { ...groupKeys, stats: bucketList(queuesPrExitReasonsBucketSchema) },
  'Queue exit reasons of one group',
);
export const queuesPrExitReasonsResponseSchema = groupsResponse(
  queuesPrExitReasonsGroupSchema,
  'Count of queue-session exits by reason, by interval (one bucket object per reason)',
);

export const bisectionStartedGroupSchema = group(
  { ...groupKeys, stats: bucketList(bisectionStartedBucketSchema) },
  'Bisections started in one group',
);
export const bisectionCompletedGroupSchema = group(
  { ...groupKeys, stats: bucketList(bisectionCompletedBucketSchema) },
  'Bisections completed in one group',
);
export const batchBisectionResponseSchema = z
  .strictObject({
    started: z
      .array(bisectionStartedGroupSchema)
      .describe('Groups of bisection starts, ordered by their keys'),
    completed: z
      .array(bisectionCompletedGroupSchema)
      .describe('Groups of bisection completions, ordered by their keys'),
  })
  .describe('Statistics about batch bisections, by interval');

// ── Time to merge ────────────────────────────────────────────────────────────

export const timeToMergeFiguresSchema = z
  .strictObject({
    mean: secondsSchema.nullable().describe('Mean time to merge (seconds); null when no data'),
    median: secondsSchema.nullable().describe('Median time to merge (seconds); null when no data'),
  })
  .describe(
    'Time to merge = leave − queued_at − waiting for freeze − waiting for schedule, merged sessions only',
  );

export const timeToMergeQueueSchema = z
  .strictObject({ queue_name: queueNameSchema, time_to_merge: timeToMergeFiguresSchema })
  .describe('Time to merge of one configured queue rule');

export const timeToMergePartitionSchema = z
  .strictObject({
    partition_name: partitionNameSchema,
    queues: z.array(timeToMergeQueueSchema).describe('One entry per configured queue rule'),
  })
  .describe('Time to merge of the queues of one partition');

export const timeToMergeResponseSchema = z
  .array(timeToMergePartitionSchema)
  .describe(
    'Time to merge in seconds for all queues and partitions, over the retention window ending at `at`',
  );

// ── Per endpoint ─────────────────────────────────────────────────────────────

/** The 200 body schema of each statistics endpoint. */
export const statsResponseSchemas = {
  time_to_merge: timeToMergeResponseSchema,
  merge_queue_checks_outcome: mergeQueueChecksOutcomeResponseSchema,
  queues_checks_outcome_count: queuesChecksOutcomeCountResponseSchema,
  queues_entered_count: queuesEnteredCountResponseSchema,
  queues_merged_count: queuesMergedCountResponseSchema,
  average_ci_runtime: averageCiRuntimeResponseSchema,
  average_queue_time: averageQueueTimeResponseSchema,
  total_queue_time: totalQueueTimeResponseSchema,
  queue_size: queueSizeResponseSchema,
  running_speculative_checks: runningSpeculativeChecksResponseSchema,
  batch_size: batchSizeResponseSchema,
  batch_bisection: batchBisectionResponseSchema,
  checks_retries: checksRetriesResponseSchema,
  failure_rate: failureRateResponseSchema,
  queues_pr_exit_reasons: queuesPrExitReasonsResponseSchema,
} as const satisfies Record<StatsEndpoint, z.ZodType>;

export type StatsResponse<E extends StatsEndpoint> = z.infer<(typeof statsResponseSchemas)[E]>;

export type TimeToMergeResponse = z.infer<typeof timeToMergeResponseSchema>;
export type MergeQueueChecksOutcomeResponse = z.infer<typeof mergeQueueChecksOutcomeResponseSchema>;
export type QueuesChecksOutcomeCountResponse = z.infer<typeof queuesChecksOutcomeCountResponseSchema>;
export type QueuesEnteredCountResponse = z.infer<typeof queuesEnteredCountResponseSchema>;
export type QueuesMergedCountResponse = z.infer<typeof queuesMergedCountResponseSchema>;
export type AverageCiRuntimeResponse = z.infer<typeof averageCiRuntimeResponseSchema>;
export type AverageQueueTimeResponse = z.infer<typeof averageQueueTimeResponseSchema>;
export type TotalQueueTimeResponse = z.infer<typeof totalQueueTimeResponseSchema>;
export type QueueSizeResponse = z.infer<typeof queueSizeResponseSchema>;
export type RunningSpeculativeChecksResponse = z.infer<typeof runningSpeculativeChecksResponseSchema>;
export type BatchSizeResponse = z.infer<typeof batchSizeResponseSchema>;
export type BatchBisectionResponse = z.infer<typeof batchBisectionResponseSchema>;
export type ChecksRetriesResponse = z.infer<typeof checksRetriesResponseSchema>;
export type FailureRateResponse = z.infer<typeof failureRateResponseSchema>;
export type QueuesPrExitReasonsResponse = z.infer<typeof queuesPrExitReasonsResponseSchema>;

export type CheckOutcomeCounts = NonNullable<z.infer<typeof checkOutcomeCountsSchema>>;
export type TimeToMergeFigures = z.infer<typeof timeToMergeFiguresSchema>;
