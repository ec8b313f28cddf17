import type { UpdatePrInPlace } from '../../../queue/effects.ts';
import type { QueueInput } from '../../../queue/inputs.ts';
import type { RepositoryClient } from '../../client/client.ts';
import { GithubRequestError, isTransientGithubError, MergeConflictError } from '../../client/errors.ts';

/** How long to wait for GitHub to move the head after it accepted an update (202). */
export interface HeadPolling {
  /** Waits before each re-read of the pull request. */
  delaysMs: readonly number[];
  sleep: (ms: number) => Promise<void>;
}

export const defaultHeadPolling: HeadPolling = {
  delaysMs: [500, 1000, 2000, 4000, 8000],
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/**
 * A pull request tested on itself: GitHub merges its base into it (update-branch), and the new
 * head is the tested commit. GitHub does the merge after answering, so the head is read until it
 * moves; if it has not moved yet the effect fails as transient and the outbox asks again later,
 * when GitHub answers "no new commits" and the head it reached is the answer.
 */
export async function executeUpdatePrInPlace(
  effect: UpdatePrInPlace,
  client: RepositoryClient,
  polling: HeadPolling = defaultHeadPolling,
): Promise<QueueInput[]> {
  const { batchId, attempt, number } = effect;
  const prepared = (sha: string): QueueInput[] => [
    { type: 'test_branch_prepared', batchId, attempt, sha, draftPullRequest: null },
  ];
  const failed = (reason: 'conflict_with_base' | 'branch_update_failed', message: string): QueueInput[] => [
    { type: 'test_branch_failed', batchId, attempt, reason, pullRequest: number, message },
  ];

  const before = await client.getPullRequest(number);
  if (before.state !== 'open') return failed('branch_update_failed', `#${number} is closed`);
  let outcome: 'updating' | 'up_to_date';
  try {
    outcome = await client.updatePullRequestBranch({ number, expectedHeadSha: before.headSha });
  } catch (error) {
    if (isTransientGithubError(error) || !(error instanceof GithubRequestError)) throw error;
    if (error instanceof MergeConflictError) return failed('conflict_with_base', error.githubMessage);
    return failed('branch_update_failed', error.githubMessage);
  }
  if (outcome === 'up_to_date') return prepared(before.headSha);
  for (const delay of polling.delaysMs) {
    await polling.sleep(delay);
    const after = await client.getPullRequest(number);
    if (after.headSha !== before.headSha) return prepared(after.headSha);
  }
  throw new GithubRequestError({
    status: 202,
    githubMessage: `GitHub accepted the update of #${number} but its head is still ${before.headSha}`,
    request: `PUT /repos/${client.owner}/${client.repo}/pulls/${number}/update-branch`,
    transient: true,
  });
}
