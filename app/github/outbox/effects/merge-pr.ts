import type { MergePr } from '../../../queue/effects.ts';
import type { QueueInput } from '../../../queue/inputs.ts';
import type { PullRequestInfo, RepositoryClient } from '../../client/client.ts';
import { GithubRequestError, isTransientGithubError } from '../../client/errors.ts';

/**
 * Merges one pull request at the head the queue tested. Already merged at that head (a previous
 * run whose answer was lost) is a success with GitHub's merge commit; GitHub's refusal becomes
 * merge_failed with its reason.
 */
export async function executeMergePr(effect: MergePr, client: RepositoryClient): Promise<QueueInput[]> {
  const { number, expectedHeadSha } = effect;
  const before = await client.getPullRequest(number);
  if (before.merged) return [alreadyMerged(before, expectedHeadSha)];
  if (before.state === 'closed') return [{ type: 'merge_failed', number, reason: `#${number} is closed` }];
  try {
    const sha = await client.mergePullRequest({ number, method: effect.method, sha: expectedHeadSha });
    return [{ type: 'merge_completed', number, sha }];
  } catch (error) {
    if (isTransientGithubError(error) || !(error instanceof GithubRequestError)) throw error;
    // GitHub may have merged it on a request whose answer was lost, then refused the retry.
    const after = await client.getPullRequest(number);
    if (after.merged) return [alreadyMerged(after, expectedHeadSha)];
    return [
      {
        type: 'merge_failed',
        number,
        reason: `GitHub refused the merge (${error.status}): ${error.githubMessage}`,
      },
    ];
  }
}

function alreadyMerged(pullRequest: PullRequestInfo, expectedHeadSha: string): QueueInput {
  const { number, headSha, mergeSha } = pullRequest;
  if (headSha === expectedHeadSha && mergeSha !== null)
    return { type: 'merge_completed', number, sha: mergeSha };
  return {
    type: 'merge_failed',
    number,
    reason: `#${number} was merged at ${headSha}, not at the tested ${expectedHeadSha}`,
  };
}
