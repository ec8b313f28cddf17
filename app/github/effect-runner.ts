import type { Logger } from 'pino';
import type { Effect } from '../queue/effects.ts';
import type { QueueInput } from '../queue/inputs.ts';
import type { Store } from '../store/database.ts';
import { EffectFailedError } from './effect-failure.ts';
import { type ExecuteEffectOptions, executeEffect, isGithubEffect } from './effects/execute-effect.ts';
import type { AppIdentity } from './effects/ownership.ts';
import { isTransientGithubError } from './errors.ts';
import { describeFailure } from './failure-text.ts';
import type { InstallationOctokits } from './octokit.ts';
import { createInstallationRepositoryClient } from './repository-client.ts';

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
      throw new EffectFailedError(reason, effect, failureInputs(effect, reason));
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
      throw new EffectFailedError(reason, effect, failureInputs(effect, reason));
    }
  };
}

function failureInputs(effect: Effect, reason: string): QueueInput[] {
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
    default:
      return [];
  }
}
