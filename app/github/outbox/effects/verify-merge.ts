import type { VerifyMerge } from '../../../queue/effects.ts';
import type { QueueInput } from '../../../queue/inputs.ts';
import type { RepositoryClient } from '../../client/client.ts';

/**
 * Reads the base branch once a batch's merges are done: its head, tree and parents (one
 * request), and the tested commit's tree only when the engine does not know it (a pull request
 * tested in place). The engine judges the answer (app/queue/integrity.ts).
 */
export async function executeVerifyMerge(
  effect: VerifyMerge,
  client: RepositoryClient,
): Promise<QueueInput[]> {
  const head = await client.getCommit(effect.base);
  const testedTree = effect.expectedTree === null ? (await client.getCommit(effect.testedSha)).tree : null;
  return [
    {
      type: 'base_tree_read',
      batchId: effect.batchId,
      base: effect.base,
      headSha: head.sha,
      treeSha: head.tree,
      parentShas: head.parents,
      testedTree,
    },
  ];
}
