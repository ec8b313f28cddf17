import type { Effect, ScheduleWakeUp } from '../../queue/effects.ts';
import type { QueueInput } from '../../queue/inputs.ts';
import type { RepositoryClient } from '../client.ts';
import { executeCancelChecks } from './cancel-checks.ts';
import { executeCloseDraftPr } from './close-draft-pr.ts';
import { executeFastForwardBase } from './fast-forward-base.ts';
import { executeMergePr } from './merge-pr.ts';
import type { Ownership } from './ownership.ts';
import { executePostComment } from './post-comment.ts';
import { executePrepareTestBranch } from './prepare-test-branch.ts';
import { executePublishCheckRun } from './publish-check-run.ts';
import { executeReactToComment } from './react-to-comment.ts';
import { upgradeStoredEffect } from './stored-effect.ts';
import { defaultHeadPolling, executeUpdatePrInPlace, type HeadPolling } from './update-pr-in-place.ts';

/** The effects GitHub carries out; schedule_wake_up belongs to the scheduler. */
export type GithubEffect = Exclude<Effect, ScheduleWakeUp>;

export function isGithubEffect(effect: Effect): effect is GithubEffect {
  return effect.type !== 'schedule_wake_up';
}

export interface ExecuteEffectOptions extends Ownership {
  /** Waiting for GitHub to move a head after update-branch (tests wait for nothing). */
  headPolling?: HeadPolling;
}

/**
 * Carries out one effect on GitHub and answers with the inputs its result means ([] for
 * fire-and-forget effects). Idempotent: running an effect twice does no harm. Destructive
 * effects touch only what is the app's own (ownership.ts: `options.identity`).
 *
 * Throws when the effect should be run again later: a transient GitHub error
 * (`isTransientGithubError`: 5xx, network, rate limits, races). Any other error thrown is
 * permanent (a 403 for a missing permission, a bug): retrying will not help.
 */
export async function executeEffect(
  stored: GithubEffect,
  client: RepositoryClient,
  options: ExecuteEffectOptions = {},
): Promise<QueueInput[]> {
  const effect = upgradeStoredEffect(stored) as GithubEffect | null;
  if (effect === null) return [];
  switch (effect.type) {
    case 'prepare_test_branch':
      return executePrepareTestBranch(effect, client, options);
    case 'update_pr_in_place':
      return executeUpdatePrInPlace(effect, client, options.headPolling ?? defaultHeadPolling);
    case 'close_draft_pr':
      return executeCloseDraftPr(effect, client, options);
    case 'merge_pr':
      return executeMergePr(effect, client);
    case 'fast_forward_base':
      return executeFastForwardBase(effect, client);
    case 'publish_check_run':
      return executePublishCheckRun(effect, client);
    case 'post_comment':
      return executePostComment(effect, client);
    case 'react_to_comment':
      return executeReactToComment(effect, client);
    case 'cancel_checks':
      return executeCancelChecks(effect, client);
    default: {
      const unknown: never = effect;
      throw new Error(`no executor for effect ${JSON.stringify(unknown)}`);
    }
  }
}
