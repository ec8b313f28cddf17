import { z } from 'zod';
import { dateTimeSchema } from './common.schema.ts';
import type { AbortCode } from './event-parts.schema.ts';

/*
 * Why a queued pull request is where it is, and why one left: one vocabulary for the status, the
 * per-pull-request view, the check run and the `action.queue.leave` event. The codes are an API
 * (docs/api.md, "Reasons"): programs branch on them, so a code keeps its meaning once published;
 * new codes may be added, and a client must treat an unknown code as "waiting, see message".
 */

export const queueReasonCodes = [
  // Waiting for a batch.
  'waiting_for_batch_fill',
  'waiting_for_slot',
  'conflict_with_pull_ahead',
  'suspect_in_other_partition',
  // In a batch.
  'preparing_test_branch',
  'waiting_for_checks',
  'check_never_reported',
  'conditions_not_met',
  'checks_failed',
  'bisecting',
  'waiting_for_batches_ahead',
  'waiting_for_other_partitions',
  'verifying_merge',
  'merging',
  // Held, whatever the place.
  'paused',
  'frozen',
  'waiting_for_schedule',
  'configuration_rejected',
  'unknown_check_in_conditions',
  // Only on a leave: why the pull request left.
  'merged',
  'checks_timeout',
  'conflict_with_base',
  'merge_failed',
  'test_branch_failed',
  'bisection_gave_up',
  'dequeued',
  'pull_request_updated',
  'merged_outside_queue',
  'base_branch_missing',
  'configuration_changed',
  'branch_protection',
  'unprocessable',
] as const;

export const queueReasonCodeSchema = z
  .enum(queueReasonCodes)
  .describe('Why the pull request is where it is (docs/api.md, "Reasons"); treat an unknown code as waiting');

export type QueueReasonCode = z.output<typeof queueReasonCodeSchema>;

export const queueReasonSchema = z
  .object({
    code: queueReasonCodeSchema,
    message: z.string().describe('The reason in one sentence, for people'),
    since: dateTimeSchema.nullable().describe('Since when it holds, when known'),
    until: dateTimeSchema
      .nullable()
      .describe('When it is expected to end (a batch fill deadline, a freeze end); null when unknown'),
    next_action: z
      .string()
      .nullable()
      .describe('What someone can do about it, or null when the queue only needs time'),
    checks: z
      .array(z.string())
      .optional()
      .describe('The checks it is about, by name: with waiting_for_checks and check_never_reported'),
  })
  .describe('One reason a queued pull request waits');

export type QueueReason = z.output<typeof queueReasonSchema>;

/** The leave code of an `action.queue.leave` event in the reasons' vocabulary. */
export const LEAVE_REASON_CODES: Record<'PR_MERGED' | AbortCode, QueueReasonCode> = {
  PR_MERGED: 'merged',
  CHECKS_FAILED: 'checks_failed',
  CHECKS_TIMEOUT: 'checks_timeout',
  CONFLICT_WITH_BASE_BRANCH: 'conflict_with_base',
  CONFLICT_WITH_PULL_AHEAD: 'conflict_with_pull_ahead',
  PR_UNEXPECTEDLY_FAILED_TO_MERGE: 'merge_failed',
  BRANCH_UPDATE_FAILED: 'test_branch_failed',
  DRAFT_PULL_REQUEST_CREATION_FAILED: 'test_branch_failed',
  DRAFT_PULL_REQUEST_CREATION_BRANCH_NOT_INDEXED: 'test_branch_failed',
  DRAFT_PULL_REQUEST_CHANGED: 'test_branch_failed',
  BATCH_MAX_FAILURE_RESOLUTION_ATTEMPTS: 'bisection_gave_up',
  PR_DEQUEUED: 'dequeued',
  PR_MANUALLY_DEQUEUED: 'dequeued',
  PR_DEQUEUED_FROM_PARTITION: 'dequeued',
  STACK_PREDECESSOR_DEQUEUED: 'dequeued',
  PR_AHEAD_DEQUEUED: 'dequeued',
  PULL_REQUEST_UPDATED: 'pull_request_updated',
  PR_MANUALLY_MERGED: 'merged_outside_queue',
  BASE_BRANCH_MISSING: 'base_branch_missing',
  BASE_BRANCH_CHANGED: 'base_branch_missing',
  QUEUE_RULE_MISSING: 'configuration_changed',
  CONFIGURATION_CHANGED: 'configuration_changed',
  SPECULATIVE_CHECK_NUMBER_REDUCED: 'configuration_changed',
  INCOMPATIBILITY_WITH_BRANCH_PROTECTIONS: 'branch_protection',
  UNPROCESSABLE_PULL_REQUEST: 'unprocessable',
  BATCH_AHEAD_FAILED: 'checks_failed',
  PR_WITH_HIGHER_PRIORITY_QUEUED: 'dequeued',
  SCHEDULED_FREEZE_STATUS_CHANGED: 'frozen',
  PR_CHECKS_STOPPED_BECAUSE_MERGE_QUEUE_PAUSE: 'paused',
  MERGE_QUEUE_RESET: 'dequeued',
  INTERMEDIATE_RESULTS_SKIPPED: 'checks_failed',
  CHECKS_RETRIED: 'checks_failed',
};
