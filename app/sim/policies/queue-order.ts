import type { QueuedPullRequest } from '../policy.ts';

/**
 * The order every baseline keeps its waiting pull requests in: hotfixes first, then first come,
 * first served — what bors-ng's `p=` priority and a repository admin's "jump the queue" give a
 * hotfix. `fixed` leading entries (already being tested) are never overtaken.
 */
export function insertInQueueOrder<T>(
  list: T[],
  item: T,
  pullRequestOf: (entry: T) => QueuedPullRequest,
  fixed = 0,
): void {
  const pr = pullRequestOf(item);
  let index = list.length;
  if (pr.hotfix) {
    index = list.findIndex((entry, i) => i >= fixed && !pullRequestOf(entry).hotfix);
    if (index < 0) index = list.length;
  }
  list.splice(index, 0, item);
}
