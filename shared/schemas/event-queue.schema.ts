import { z } from 'zod';
import { dateTimeSchema, uuidSchema } from './common.schema.ts';
import { DEFAULT_PARTITION_NAME } from './default-names.ts';
import {
  abortCodeSchema,
  abortStatusSchema,
  checkSchema,
  checksConclusionSchema,
  conditionEvaluationSchema,
  countSchema,
  pullRequestNumberSchema,
} from './event-parts.schema.ts';
import { queueReasonCodeSchema } from './queue-reason.schema.ts';

/*
 * Metadata of the `action.queue.*` events, as in Mergify's v1 event log: exactly its fields, all
 * required; the fields it gives as "or null" are nullable, the others are not. Ours beyond it:
 * the leave's `reason_code` and `next_action` (optional: older stored events lack them) and the
 * `action.queue.checks_stalled` event (docs/api.md, "Reasons") and merge integrity's
 * `action.queue.merge_verified`.
 */

const queueName = z.string().describe('Merge queue (queue rule) name');
const partitionName = z
  .string()
  .describe(`Partition name (\`${DEFAULT_PARTITION_NAME}\` without partitions)`);
const nullablePartitionName = z
  .string()
  .nullable()
  .describe(`Partition name (\`${DEFAULT_PARTITION_NAME}\` without partitions), or null`);
const priorityRuleName = z.string().nullable().describe('Priority rule name, or null');
const branch = z.string().describe('Base branch of the pull request');
const queuedAt = dateTimeSchema.describe('When the pull request entered the queue');
const sessionId = uuidSchema.describe('Queue session (one stay of a pull request in the queue)');
const prNumbers = (what: string) => z.array(pullRequestNumberSchema).describe(what);

/** Fields shared by `checks_start` and `checks_end`: those of the queue's check run. */
const checkRunFields = {
  speculative_check_pull_request: z
    .strictObject({
      number: pullRequestNumberSchema.describe('Number of the pull request that runs the checks'),
      in_place: z.boolean().describe('Whether the checks run on the queued pull request itself'),
    })
    .describe('The pull request (draft or the queued one) on which the checks run'),
  checks_timed_out: z.boolean().describe('Whether the checks exceeded the checks timeout'),
  checks_conclusion: checksConclusionSchema,
  checks_started_at: dateTimeSchema.nullable().describe('When the checks started, or null'),
  checks_ended_at: dateTimeSchema.nullable().describe('When the checks ended, or null'),
  unsuccessful_checks: z.array(checkSchema).describe('Checks that did not succeed'),
  pull_request_numbers: prNumbers('Pull requests tested together (the batch and its parents)'),
  train_car_id: uuidSchema.nullable().describe('Batch id, or null'),
  session_id: sessionId,
};

export const batchBisectionStartMetadataSchema = z
  .strictObject({
    queue_name: queueName,
    partition_name: partitionName,
    priority_rule_name: priorityRuleName,
    original_batch_pr_numbers: prNumbers('Pull requests of the failed batch'),
    batch_size_before_split: countSchema.describe('Number of pull requests before the split'),
    number_of_sub_batches: countSchema.describe('Number of sub-batches tested'),
    bisection_depth: countSchema.describe('Depth of this split in the bisection'),
    is_top_level: z.boolean().describe('Whether this split is the first of the bisection'),
    session_id: sessionId,
  })
  .describe('A failed batch started being bisected');

export const batchBisectionEndMetadataSchema = z
  .strictObject({
    queue_name: queueName,
    partition_name: partitionName,
    priority_rule_name: priorityRuleName,
    original_batch_pr_numbers: prNumbers('Pull requests of the failed batch'),
    culprit_found: z.boolean().describe('Whether a culprit was identified'),
    culprit_pr_numbers: prNumbers('Pull requests that failed alone'),
    remaining_pr_numbers: prNumbers('Pull requests that stay in the queue'),
    max_failure_resolution_reached: z
      .boolean()
      .describe('Whether batch_max_failure_resolution_attempts was reached'),
    session_id: sessionId,
  })
  .describe('The bisection of a failed batch ended');

export const queueChangeMetadataSchema = z
  .strictObject({
    queue_name: queueName,
    partition_name: partitionName,
    priority_rule_name: priorityRuleName,
    size: countSchema.describe('Pull requests waiting or embarked in the partition'),
  })
  .describe('The size of a queue partition changed');

export const queueChecksChangeMetadataSchema = z
  .strictObject({
    queue_name: queueName,
    partition_name: partitionName,
    running_checks: countSchema.describe('Number of check runs in progress'),
  })
  .describe('The number of running checks changed');

export const checksNotStartedMetadataSchema = z
  .strictObject({
    branch,
    partition_name: nullablePartitionName,
    priority_rule_name: priorityRuleName,
    queue_name: queueName,
    queued_at: queuedAt,
    reason: z.string().describe('Why the checks could not start'),
    session_id: sessionId,
  })
  .describe('Checks could not be started (they are retried)');

export const checksStalledMetadataSchema = z
  .strictObject({
    branch,
    partition_name: partitionName,
    priority_rule_name: priorityRuleName,
    queue_name: queueName,
    queued_at: queuedAt,
    train_car_id: uuidSchema.describe('The batch or bisection probe whose tested commit is stalled'),
    checks_started_at: z.string().describe('When its checks started'),
    stalled_after_seconds: countSchema.describe(
      "How long after the start a missing check counts as stalled: 1.5 × the p90 of the repository's recent CI durations, at least 120 s",
    ),
    missing_checks: z
      .array(
        z.strictObject({
          name: z
            .string()
            .describe('A check the merge conditions need that never reported on the tested commit'),
          reported_on_pull_requests: z
            .array(z.int().min(1))
            .describe(
              'Queued pull requests whose head reported it (up to 5): CI runs it, but not for the queue',
            ),
          message: z.string(),
          next_action: z.string().describe('The likely fix'),
        }),
      )
      .min(1),
    session_id: sessionId,
  })
  .describe(
    'A required check never reported on the tested commit, long after CI usually ends (the stall doctor)',
  );

export const checksStartMetadataSchema = z
  .strictObject({
    branch,
    partition_name: nullablePartitionName,
    priority_rule_name: priorityRuleName,
    queue_name: queueName,
    queued_at: queuedAt,
    start_reason: z.string().describe('Why the checks started'),
    ...checkRunFields,
  })
  .describe('Checks started on a batch containing the pull request');

export const checksEndMetadataSchema = z
  .strictObject({
    aborted: z.boolean().describe('Whether the checks were aborted before their end'),
    abort_code: abortCodeSchema.nullable().describe('Why the checks were aborted, or null'),
    abort_reason: z.string().nullable().describe('Human explanation of the abort, or null'),
    // Mergify's v1 event log gives `abort_status` without "or null", but checks that ended without
    // being aborted (the usual success) have no abort status: null there.
    abort_status: abortStatusSchema
      .nullable()
      .describe('What happened to the pull request after an abort; null when not aborted'),
    branch,
    partition_name: partitionName,
    priority_rule_name: priorityRuleName,
    queue_name: queueName,
    queued_at: queuedAt,
    retry_attempt: countSchema.nullable().describe('Retry attempt of these checks, or null'),
    max_retries: countSchema.nullable().describe('Retries allowed by the queue rule, or null'),
    ...checkRunFields,
  })
  .describe('Checks ended (passed, failed, timed out or aborted)');

export const queueEnterMetadataSchema = z
  .strictObject({
    queue_name: queueName,
    branch,
    queued_at: queuedAt,
    partition_name: nullablePartitionName,
    priority_rule_name: priorityRuleName,
    session_id: sessionId,
  })
  .describe('The pull request entered the merge queue');

export const queueLeaveMetadataSchema = z
  .strictObject({
    reason: z
      .string()
      .describe('Why it left: a code (`PR_MERGED` or an abort code), then ": " and a human explanation'),
    reason_code: queueReasonCodeSchema
      .optional()
      .describe(
        'Why it left, in the reasons\' vocabulary (docs/api.md, "Reasons"); absent on events recorded before it existed',
      ),
    next_action: z
      .string()
      .nullable()
      .optional()
      .describe('What to do next (null: nothing, e.g. merged); absent on events recorded before it existed'),
    merged: z.boolean().describe('Whether the pull request was merged'),
    queue_name: queueName,
    branch,
    partition_name: partitionName,
    queued_at: queuedAt,
    seconds_waiting_for_schedule: countSchema.describe('Seconds spent outside the merge schedule'),
    seconds_waiting_for_freeze: countSchema.describe('Seconds spent under a scheduled freeze'),
    priority_rule_name: priorityRuleName,
    conditions_evaluation: conditionEvaluationSchema
      .nullable()
      .describe('Evaluation of the queue conditions when it left, or null'),
    checks: z.array(checkSchema).describe('Checks of the pull request when it left'),
    pull_request_head_sha: z.string().describe('Head commit of the pull request when it left'),
    session_id: uuidSchema.nullable().describe('Queue session, or null'),
  })
  .describe('The pull request left the merge queue');

export const queueMergedMetadataSchema = z
  .strictObject({
    branch,
    partition_names: z.array(z.string()).describe('Partitions the pull request was queued in'),
    queue_name: queueName,
    queued_at: queuedAt,
    priority_rule_name: priorityRuleName,
    session_id: sessionId,
  })
  .describe('The merge queue merged the pull request');

export const mergeVerifiedMetadataSchema = z
  .strictObject({
    branch,
    train_car_id: uuidSchema.describe('The batch whose merges were verified'),
    batch_name: z.string().describe('Its name (`batch-<n>`)'),
    pull_request_numbers: prNumbers('Its pull requests that merged, verified together'),
    outcome: z
      .enum(['equal', 'different', 'base_moved_outside', 'tree_unknown'])
      .describe(
        'equal: the base holds the tested tree; different: it does not (the queue paused itself); base_moved_outside: someone else pushed to the base meanwhile; tree_unknown: merged partially and the tested prefix tree was not recorded',
      ),
    partial: z.boolean().describe('Only a prefix of the batch merged'),
    tested_sha: z.string().describe('The commit the queue tested'),
    tested_tree: z.string().nullable().describe('The tree the base had to have; null when unknown'),
    landed_sha: z.string().describe('The head of the base when it was read'),
    landed_tree: z.string().describe('Its tree'),
  })
  .describe(
    'Merge integrity: the base read after a batch merged, its tree compared with the tested one (one event per merged pull request)',
  );
