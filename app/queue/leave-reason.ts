import type { LeaveCode } from '../../shared/schemas/event-outcome.ts';
import { LEAVE_REASON_CODES, type QueueReasonCode } from '../../shared/schemas/queue-reason.schema.ts';

/*
 * Why a pull request left, in the reasons' vocabulary (shared/schemas/queue-reason.schema.ts),
 * and what to do next: the `reason_code` and `next_action` of `action.queue.leave`.
 */

const NEXT_ACTION: Partial<Record<QueueReasonCode, string>> = {
  checks_failed: 'Fix the failing checks on the pull request, then queue it again',
  checks_timeout:
    "The checks did not finish within the queue rule's checks_timeout: look at the CI runs of the test branch, then queue it again (or raise checks_timeout)",
  conflict_with_base:
    'Update the pull request with its base branch and resolve the conflicts, then queue it again',
  conflict_with_pull_ahead:
    'It conflicts with a pull request queued ahead of it: once that one merged, update this one and queue it again',
  merge_failed:
    'GitHub refused the merge (branch protection, a new push or a changed base): check the pull request, then queue it again',
  test_branch_failed:
    "The queue could not create its test branch or draft pull request: check the app's permissions, then queue it again",
  bisection_gave_up:
    'The failing pull request of its batch was not found within batch_max_failure_resolution_attempts: run its checks, then queue it again',
  pull_request_updated: 'Queue it again once the new commits are ready',
  base_branch_missing: 'Change the base branch of the pull request, then queue it again',
  configuration_changed: 'Queue it again under a queue rule of the new configuration',
  branch_protection:
    "Make the queue rule's merge conditions match the branch protection, then queue it again",
  unprocessable: 'Check that the pull request is open and mergeable, then queue it again',
  dequeued: 'Queue it again when it should merge',
};

/** `reason_code` and `next_action` of a leave; a leave may name its own (the stall doctor's). */
export function describeLeave(leave: {
  code: LeaveCode;
  merged?: boolean;
  reason?: { code: QueueReasonCode; nextAction: string | null };
}): { reason_code: QueueReasonCode; next_action: string | null } {
  if (leave.reason !== undefined)
    return { reason_code: leave.reason.code, next_action: leave.reason.nextAction };
  const code = LEAVE_REASON_CODES[leave.code];
  if (leave.merged === true) return { reason_code: 'merged', next_action: null };
  return { reason_code: code, next_action: NEXT_ACTION[code] ?? null };
}
