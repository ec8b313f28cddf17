import type { CommitGraph, Tree } from './commit-graph.ts';

/**
 * What a pull request's merge lands on its base, as a fault knob: unlike the `Behaviour`s
 * (GitHub refusing), a landing fault lets the merge through with a tree that is not the one a
 * correct merge computes. `repo.mergeLanding = dropPreviousChange()` reproduces GitHub's merge
 * queue incident of 2026-04-23, where squash merges of multi-PR groups reverted code.
 */
export interface MergeLanding {
  /** The tree that lands, given the base commit and the tree a correct merge would land. */
  land(params: { graph: CommitGraph; baseSha: string; tree: Tree }): Tree;
}

/** Lands what a correct merge computes. */
export const landAsMerged = (): MergeLanding => ({ land: ({ tree }) => tree });

/**
 * The landed tree drops part of the change the base's last commit made (the merge of another
 * pull request just before): its first changed file goes back to how it was before that commit.
 * Applies to the next `times` merges that have such a change to drop (all of them by default).
 */
export function dropPreviousChange(times = Number.POSITIVE_INFINITY): MergeLanding {
  let left = times;
  return {
    land({ graph, baseSha, tree }) {
      const base = graph.get(baseSha);
      const parent = base?.parents[0] === undefined ? undefined : graph.get(base.parents[0]);
      if (base === undefined || parent === undefined || left <= 0) return tree;
      const change = graph.diff(parent.tree, base.tree)[0];
      if (change === undefined) return tree;
      left--;
      const landed = new Map(tree);
      if (change.previousSha === null) landed.delete(change.path);
      else landed.set(change.path, change.previousSha);
      return landed;
    },
  };
}
