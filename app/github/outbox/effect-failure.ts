import type { Effect } from '../../queue/effects.ts';
import type { QueueInput } from '../../queue/inputs.ts';

/**
 * An effect that cannot be carried out and will not be tried again (a permanent GitHub
 * refusal, the app no longer installed): the effect runner throws it, the outbox worker marks
 * the row failed with `reason` (outbox.failed_at, last_error), logs it at error level and steps
 * the engine with `inputs` — the failure the engine waits for, if any, then effect_failed,
 * which the merge queue status shows.
 */
export class EffectFailedError extends Error {
  readonly inputs: QueueInput[];

  constructor(
    readonly reason: string,
    effect: Effect,
    /** What the engine is waiting for instead of the effect's result (test_branch_failed, merge_failed…). */
    waited: readonly QueueInput[],
  ) {
    super(`${effect.key} failed for good: ${reason}`);
    this.name = 'EffectFailedError';
    this.inputs = [
      ...waited,
      {
        type: 'effect_failed',
        key: effect.key,
        effect: effect.type,
        pullRequests: pullRequestsOf(effect),
        message: reason,
      },
    ];
  }
}

/** The pull requests an effect is about (none for a batch's cleanup or a cancellation). */
export function pullRequestsOf(effect: Effect): number[] {
  switch (effect.type) {
    case 'prepare_test_branch':
      return effect.pullRequests.map((p) => p.number);
    case 'fast_forward_base':
      return [...effect.numbers];
    case 'update_pr_in_place':
    case 'merge_pr':
    case 'publish_check_run':
    case 'post_comment':
    case 'read_pull_request':
      return [effect.number];
    case 'close_draft_pr':
    case 'verify_merge':
    case 'react_to_comment':
    case 'cancel_checks':
    case 'schedule_wake_up':
      return [];
  }
}

/** What the engine waits for from an effect that failed for good (none for fire-and-forget effects). */
export function failureInputsOf(effect: Effect, reason: string): QueueInput[] {
  switch (effect.type) {
    case 'prepare_test_branch':
    case 'update_pr_in_place':
      return [
        {
          type: 'test_branch_failed',
          batchId: effect.batchId,
          attempt: effect.attempt,
          reason: 'branch_update_failed',
          pullRequest: null,
          message: reason,
        },
      ];
    case 'merge_pr':
      return [{ type: 'merge_failed', number: effect.number, reason }];
    case 'fast_forward_base':
      return effect.numbers.map((number) => ({ type: 'merge_failed', number, reason }));
    case 'read_pull_request':
      // The command waits for the read: it is answered with why GitHub did not say.
      return [{ ...effect.command, read: { failure: reason } }];
    default:
      return [];
  }
}
