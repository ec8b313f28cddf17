import { z } from 'zod';
import { dateTimeSchema, storableText, uuidSchema } from './common.schema.ts';
import { DEFAULT_PARTITION_NAME } from './default-names.ts';
import { queueReasonSchema } from './queue-reason.schema.ts';

export const pauseRecordSchema = z
  .object({
    paused: z
      .literal(true)
      .describe('Always true: a queue that is not paused has no record (404, or null in the status)'),
    reason: z.string().describe('Why the queue is paused'),
    paused_at: dateTimeSchema.describe('When it was paused'),
  })
  .describe('The pause record of a merge queue');

export type PauseRecord = z.output<typeof pauseRecordSchema>;

export const pauseRequestSchema = z
  .strictObject({
    reason: storableText(z.string().trim().min(1).max(255)).describe(
      'Why the queue is paused (1 to 255 characters)',
    ),
  })
  .describe('Pause (or change the reason of an existing pause)');

export const githubLabelSchema = z.object({
  id: z.int(),
  name: z.string(),
  color: z.string().regex(/^[0-9a-fA-F]{6}$/, 'hex colour without #'),
  default: z.boolean(),
});

export const queuedPullRequestSchema = z
  .object({
    number: z.int().min(1),
    title: z.string(),
    url: z.string(),
    author: z.object({ id: z.int(), login: z.string() }),
    head_ref: z
      .string()
      .describe(
        "Its head branch (a fork's branch name without the owner): which pull request a checkout is on",
      ),
    queued_at: dateTimeSchema,
    priority_alias: z.string().describe('low, medium, high, or the number as text'),
    priority_rule_name: z.string().nullable().describe('null: no priority rule applies'),
    labels: z.array(z.string()),
    github_labels: z.array(githubLabelSchema),
    scopes: z.array(z.string()),
    estimated_merge_at: dateTimeSchema
      .nullable()
      .describe(
        'When it should merge (the median, p50): its batch, or the batches it should wait for and join; null while none can be given',
      ),
    estimated_merge_at_p90: dateTimeSchema
      .nullable()
      .describe(
        'A late estimate: 9 in 10 pull requests should have merged by then (p90); null with estimated_merge_at',
      ),
    reasons: z
      .array(queueReasonSchema)
      .describe('Why it is where it is (docs/api.md, "Reasons"), most important first'),
  })
  .describe('A pull request in the merge queue');

export type QueuedPullRequest = z.output<typeof queuedPullRequestSchema>;

/**
 * Mergify's v1 API shows `running`, `bisecting` and `merged`; the others say where a batch is in
 * its life so that a reader knows why it is not running.
 */
export const batchStatusCodeSchema = z.enum([
  'waiting_for_batch',
  'preparing',
  'running',
  'bisecting',
  'waiting_for_previous_batches',
  'waiting_for_schedule',
  'frozen',
  'paused',
  'merging',
  'merged',
  'failed',
]);

export type BatchStatusCode = z.output<typeof batchStatusCodeSchema>;

export interface Batch {
  id: string;
  parent_ids: string[];
  name: string;
  status: { code: BatchStatusCode };
  started_at: string | null;
  estimated_merge_at: string | null;
  estimated_merge_at_p90: string | null;
  estimated_ci_finish_at: string | null;
  ci_finished_at: string | null;
  checks_timeout_at: string | null;
  scopes: string[];
  queue_rule_name: string;
  checks_summary: { passed: number; total: number };
  pull_requests: QueuedPullRequest[];
  lane_depth?: LaneDepth | undefined;
  sub_batches?: Batch[] | undefined;
}

export const laneDepthSchema = z
  .object({
    depth: z.int().min(1).describe('Batches its lane tested at once when it was built'),
    queued: z.int().min(0).describe('Pull requests queued in its lane then'),
    queued_per_check: z.int().min(1),
    max_parallel_checks: z.int().min(1),
  })
  .describe(
    'With merge_queue.mode adaptive: why its lane tested that many batches at once — one per queued_per_check queued, at most max_parallel_checks',
  );

export type LaneDepth = z.output<typeof laneDepthSchema>;

export const batchSchema: z.ZodType<Batch> = z
  .object({
    id: uuidSchema,
    parent_ids: z.array(uuidSchema).describe('The batches this one is tested on top of; empty for the head'),
    name: z.string().describe('Unique within a response'),
    status: z.object({ code: batchStatusCodeSchema }),
    started_at: dateTimeSchema.nullable().describe('When its checks started; null before'),
    estimated_merge_at: dateTimeSchema
      .nullable()
      .describe('The median estimate (p50); null while no estimate can be given (e.g. frozen)'),
    estimated_merge_at_p90: dateTimeSchema
      .nullable()
      .describe('The late estimate (p90); null with estimated_merge_at'),
    estimated_ci_finish_at: dateTimeSchema
      .nullable()
      .describe('When its checks should end; null before it is made or once they ended'),
    ci_finished_at: dateTimeSchema.nullable().describe('When its checks ended; null while they run'),
    checks_timeout_at: dateTimeSchema
      .nullable()
      .describe('When its running checks time out (checks_timeout); null when none run'),
    scopes: z.array(z.string()),
    queue_rule_name: z.string(),
    checks_summary: z
      .object({ passed: z.int().min(0), total: z.int().min(0) })
      .describe(
        'passed: checks reported success, neutral or skipped; total: the checks reported and those the merge conditions name that have not reported yet',
      ),
    pull_requests: z.array(queuedPullRequestSchema),
    lane_depth: laneDepthSchema.optional(),
    get sub_batches() {
      return z.array(batchSchema).optional().describe('Present on a batch that is being bisected');
    },
  })
  .meta({ id: 'Batch' });

export const failedEffectSchema = z
  .object({
    key: z.string().describe("The effect's key, as the outbox and the logs name it"),
    type: z
      .string()
      .describe(
        'What the queue asked of GitHub: close_draft_pr, publish_check_run, merge_pr, post_comment, …',
      ),
    pull_requests: z.array(z.int().min(1)).describe('The pull requests it was about'),
    error: z.string().describe('Why it could not be done'),
    failed_at: dateTimeSchema,
  })
  .describe('Something the queue asked of GitHub that failed for good and will not be tried again');

export type FailedEffect = z.output<typeof failedEffectSchema>;

export const mergeIntegrityResultSchema = z
  .object({
    batch: z.string().describe('The batch whose merges were verified'),
    base_ref: z.string(),
    pull_requests: z.array(z.int().min(1)).describe('Its pull requests that merged'),
    outcome: z
      .enum(['equal', 'different', 'base_moved_outside', 'tree_unknown'])
      .describe(
        'equal: the base holds the tested tree; different: it does not (the queue paused itself); base_moved_outside: someone else pushed to the base meanwhile, nothing to compare; tree_unknown: merged partially and the tested prefix tree was not recorded',
      ),
    tested_sha: z.string().describe('The commit the queue tested'),
    tested_tree: z.string().nullable().describe('The tree the base had to have; null when unknown'),
    landed_sha: z.string().describe('The head of the base when it was read'),
    landed_tree: z.string().describe('Its tree'),
    partial: z.boolean().describe('Only a prefix of the batch merged (a merge was refused part way)'),
    verified_at: dateTimeSchema,
  })
  .describe('One verification of what landed on the base after a batch merged');

export const mergeIntegritySchema = z
  .object({
    counts: z
      .object({
        equal: z.int().min(0),
        different: z.int().min(0),
        base_moved_outside: z.int().min(0),
        tree_unknown: z.int().min(0),
      })
      .describe('Verifications so far, by outcome'),
    recent: z.array(mergeIntegrityResultSchema).describe('The most recent verifications, newest first'),
  })
  .describe('Merge integrity: every merged batch has the tree of its base compared with the tested tree');

export const mergeQueueStatusSchema = z
  .object({
    mode: z
      .enum(['serial', 'parallel', 'isolated'])
      .describe('serial: one line of batches; parallel: partitions (scopes) tested and merged side by side'),
    scope_queues: z
      .record(z.string(), z.array(uuidSchema))
      .describe(
        `Partition or scope name (\`${DEFAULT_PARTITION_NAME}\` without partitions) → ordered batch ids`,
      ),
    batches: z.array(batchSchema),
    waiting_pull_requests: z
      .array(queuedPullRequestSchema)
      .describe('Queued, not yet in a batch, in queue order'),
    pause: pauseRecordSchema.nullable().describe('The pause record, or null when not paused'),
    failed_effects: z
      .array(failedEffectSchema)
      .optional()
      .describe('Effects that failed for good in the last 24 hours, newest first; absent when none'),
    merge_integrity: mergeIntegritySchema.optional().describe('Absent until a batch has merged'),
  })
  .describe('Live status of a merge queue');

export type MergeQueueStatus = z.output<typeof mergeQueueStatusSchema>;

export const mergeQueueStatusQuerySchema = z.object({
  branch: storableText(z.string().min(1).max(255))
    .optional()
    .describe('Base branch; the default branch when absent'),
});
