import type { Logger } from 'pino';
import type { Effect, ScheduleWakeUp } from '../../queue/effects.ts';
import type { QueueInput } from '../../queue/inputs.ts';
import type { Store } from '../../store/database.ts';
import type { RepositoryClient } from '../client/client.ts';
import { isTransientGithubError } from '../client/errors.ts';
import { describeFailure } from '../client/failure-text.ts';
import type { InstallationOctokits } from '../client/octokit.ts';
import { createInstallationRepositoryClient } from '../client/repository-client.ts';
import { EffectFailedError, failureInputsOf } from './effect-failure.ts';
import { executeCancelChecks } from './effects/cancel-checks.ts';
import { executeCloseDraftPr } from './effects/close-draft-pr.ts';
import { executeFastForwardBase } from './effects/fast-forward-base.ts';
import { executeMergePr } from './effects/merge-pr.ts';
import type { AppIdentity, Ownership } from './effects/ownership.ts';
import { executePostComment } from './effects/post-comment.ts';
import { executePrepareTestBranch } from './effects/prepare-test-branch.ts';
import { executePublishCheckRun } from './effects/publish-check-run.ts';
import { executeReactToComment } from './effects/react-to-comment.ts';
import { executeReadPullRequest } from './effects/read-pull-request.ts';
import { upgradeStoredEffect } from './effects/stored-effect.ts';
import {
  defaultHeadPolling,
  executeUpdatePrInPlace,
  type HeadPolling,
} from './effects/update-pr-in-place.ts';
import { executeVerifyMerge } from './effects/verify-merge.ts';

/**
 * The outbox worker's `execute`: finds the repository's installation, carries the effect out
 * on GitHub, and sorts failures. A transient one is thrown as it is (the worker retries it with
 * back-off); a permanent one as an EffectFailedError carrying the failure input the engine
 * waits for, if any (so no batch waits forever): the worker records the row failed.
 */
export function createEffectRunner(params: {
  store: Store;
  octokits: InstallationOctokits;
  logger: Logger;
  /** The app's bot: destructive effects touch only what it made (ownership.ts). */
  identity: AppIdentity;
  options?: ExecuteEffectOptions;
}): (repositoryId: string, effect: Effect) => Promise<QueueInput[]> {
  return async (repositoryId, effect) => {
    if (!isGithubEffect(effect)) return [];
    const repository = await params.store.db
      .selectFrom('repositories')
      .select(['owner', 'name', 'installation_id'])
      .where('id', '=', repositoryId)
      .executeTakeFirst();
    if (repository === undefined || repository.installation_id === null) {
      const reason = 'the app is not installed on this repository';
      throw new EffectFailedError(reason, effect, failureInputsOf(effect, reason));
    }
    const client = createInstallationRepositoryClient(params.octokits, {
      installationId: Number(repository.installation_id),
      owner: repository.owner,
      repo: repository.name,
    });
    const log = params.logger.child({ repositoryId, key: effect.key });
    try {
      return await executeEffect(effect, client, { ...params.options, identity: params.identity, log });
    } catch (error) {
      if (isTransientGithubError(error)) throw error;
      const reason = describeFailure(error);
      throw new EffectFailedError(reason, effect, failureInputsOf(effect, reason));
    }
  };
}

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
    case 'verify_merge':
      return executeVerifyMerge(effect, client);
    case 'publish_check_run':
      return executePublishCheckRun(effect, client);
    case 'post_comment':
      return executePostComment(effect, client);
    case 'react_to_comment':
      return executeReactToComment(effect, client);
    case 'cancel_checks':
      return executeCancelChecks(effect, client);
    case 'read_pull_request':
      return executeReadPullRequest(effect, client);
    default: {
      const unknown: never = effect;
      throw new Error(`no executor for effect ${JSON.stringify(unknown)}`);
    }
  }
}
