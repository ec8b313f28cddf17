import type { CloseDraftPr } from '../../queue/effects.ts';
import type { QueueInput } from '../../queue/inputs.ts';
import type { RepositoryClient } from '../client.ts';
import { NotFoundError } from '../errors.ts';
import { workBranchOf } from './prepare-test-branch.ts';

/**
 * The batch is over: its draft pull request is closed and its branches deleted. Each step is
 * harmless when already done (closing a closed pull request, deleting a deleted branch), and a
 * draft whose number the engine never learned (the answer was lost) is found by its head.
 */
export async function executeCloseDraftPr(
  effect: CloseDraftPr,
  client: RepositoryClient,
): Promise<QueueInput[]> {
  const number = effect.draftPullRequest ?? (await client.findOpenPullRequestByHead(effect.branch));
  if (number !== null) {
    try {
      await client.closePullRequest(number);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    }
  }
  await client.deleteBranch(effect.branch);
  // Left behind only when a preparation stopped half-way.
  await client.deleteBranch(workBranchOf(effect.branch));
  return [];
}
