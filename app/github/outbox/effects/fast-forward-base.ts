import type { FastForwardBase } from '../../../queue/effects.ts';
import type { QueueInput } from '../../../queue/inputs.ts';
import type { RepositoryClient } from '../../client/client.ts';
import { GithubRequestError, isTransientGithubError } from '../../client/errors.ts';

/**
 * Moves the base to the tested commit without a merge commit: every pull request of the batch is
 * merged at once (GitHub marks them merged when their heads reach the base). A base already at
 * the commit is a success, so a second run does nothing.
 */
export async function executeFastForwardBase(
  effect: FastForwardBase,
  client: RepositoryClient,
): Promise<QueueInput[]> {
  const { base, sha, numbers } = effect;
  const completed = numbers.map((number): QueueInput => ({ type: 'merge_completed', number, sha }));
  const failed = (reason: string) =>
    numbers.map((number): QueueInput => ({ type: 'merge_failed', number, reason }));
  const current = await client.getBranchSha(base);
  if (current === sha) return completed;
  if (current === null) return failed(`base branch ${base} does not exist`);
  try {
    await client.fastForwardBranch({ branch: base, sha });
  } catch (error) {
    if (isTransientGithubError(error) || !(error instanceof GithubRequestError)) throw error;
    return failed(
      `GitHub refused to fast-forward ${base} to ${sha} (${error.status}): ${error.githubMessage}`,
    );
  }
  return completed;
}
