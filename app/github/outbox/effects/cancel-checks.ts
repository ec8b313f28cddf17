import type { CancelChecks } from '../../../queue/effects.ts';
import type { QueueInput } from '../../../queue/inputs.ts';
import type { RepositoryClient } from '../../client/client.ts';
import { GithubRequestError, isTransientGithubError } from '../../client/errors.ts';

/**
 * Stops the GitHub Actions runs on a commit no longer worth testing. Best effort: a repository
 * without Actions, or an app without the permission, keeps its CI running, which costs only time.
 */
export async function executeCancelChecks(
  effect: CancelChecks,
  client: RepositoryClient,
): Promise<QueueInput[]> {
  try {
    await client.cancelWorkflowRuns(effect.sha);
  } catch (error) {
    if (isTransientGithubError(error) || !(error instanceof GithubRequestError)) throw error;
  }
  return [];
}
