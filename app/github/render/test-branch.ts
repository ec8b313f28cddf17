import type { PrepareTestBranch } from '../../queue/effects.ts';

/*
 * The words the app writes for a batch's test branch: the message of each merge commit, which
 * names the pull request merged and the batch it is tested in, for whoever reads the branch's
 * log; the title and body of the draft pull request opened from it, so CI runs.
 */

export function renderMergeMessage(
  effect: Pick<PrepareTestBranch, 'branch' | 'base' | 'batchId' | 'attempt' | 'pullRequests'>,
  merged: { number: number; head: string },
): string {
  const all = effect.pullRequests.map((p) => `#${p.number}`).join(', ');
  return `Merge #${merged.number} (${merged.head.slice(0, 12)}) into ${effect.branch}\n\nTrainyard batch ${effect.batchId}, attempt ${effect.attempt}: ${all} on ${effect.base}.`;
}

/**
 * The title names the batch and the pull requests it tests; the body every pull request on the
 * branch, those of the batches it is built on first.
 */
export function renderDraftPullRequest(
  effect: Pick<PrepareTestBranch, 'base' | 'pullRequests'> & {
    draftPullRequest: NonNullable<PrepareTestBranch['draftPullRequest']>;
  },
): { title: string; body: string } {
  const { name, numbers, queueName } = effect.draftPullRequest;
  const tested = numbers.map((n) => `#${n}`).join(', ');
  const all = effect.pullRequests.map((p) => `#${p.number}`).join(', ');
  return {
    title: `merge queue: ${name} — ${tested}`,
    body: `Testing ${all} on top of ${effect.base} (queue rule ${queueName}).`,
  };
}
