import type { DequeueImpact } from '../../../shared/schemas/merge-queue-pull.schema.ts';

/** The confirmation's words: what dequeuing this pull request stops and tests again. */
export function dequeueConfirmation(number: number, title: string, impact: DequeueImpact): string {
  const batches =
    impact.interrupted_batches === 0
      ? 'No running batch is stopped'
      : `${impact.interrupted_batches === 1 ? '1 batch is' : `${impact.interrupted_batches} batches are`} stopped`;
  const rechecked =
    impact.rechecked_pull_requests === 0
      ? 'no other pull request is tested again'
      : `${impact.rechecked_pull_requests === 1 ? '1 other pull request is' : `${impact.rechecked_pull_requests} other pull requests are`} tested again`;
  const cascade =
    impact.cascaded_pull_requests > 0
      ? ` ${impact.cascaded_pull_requests} more leave the queue with it.`
      : '';
  return `Remove #${number} "${title}" from the merge queue? ${batches} and ${rechecked}.${cascade}`;
}
