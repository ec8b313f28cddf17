import type { PrepareTestBranch } from '../../queue/effects.ts';

/*
 * The words the app writes on a batch's test branch: the message of each merge commit, which
 * names the pull request merged and the batch it is tested in, for whoever reads the branch's log.
 */

export function renderMergeMessage(
  effect: Pick<PrepareTestBranch, 'branch' | 'base' | 'batchId' | 'attempt' | 'pullRequests'>,
  merged: { number: number; head: string },
): string {
  const all = effect.pullRequests.map((p) => `#${p.number}`).join(', ');
  return `Merge #${merged.number} (${merged.head.slice(0, 12)}) into ${effect.branch}\n\nTrainyard batch ${effect.batchId}, attempt ${effect.attempt}: ${all} on ${effect.base}.`;
}
