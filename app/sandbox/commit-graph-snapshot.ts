import { type Commit, CommitGraph, EMPTY, type GitPerson } from './commit-graph.ts';

/**
 * A commit as stored: its tree as the changes over its first parent's tree. Every commit
 * holds a whole tree in memory, so storing trees whole would grow with commits × files; a
 * commit changes a handful of files, so its changes stay small.
 */
export interface CommitSnapshot {
  sha: string;
  label: string;
  parents: string[];
  message: string;
  author: GitPerson;
  committer: GitPerson;
  /** [path, blob sha], or [path, null] for a file the commit removes. */
  changes: [string, string | null][];
}

export interface CommitGraphSnapshot {
  /** Each commit after its parents. */
  commits: CommitSnapshot[];
  /** Blob sha → file content, for every blob a stored change names. */
  blobs: Record<string, string>;
}

export function snapshotCommitGraph(graph: CommitGraph): CommitGraphSnapshot {
  return snapshotCommits(graph, graph.list());
}

/** Some of a graph's commits (each after its parents), with the blobs their changes name. */
export function snapshotCommits(graph: CommitGraph, list: readonly Commit[]): CommitGraphSnapshot {
  const blobs: Record<string, string> = {};
  const commits = list.map((commit): CommitSnapshot => {
    const parentTree = graph.get(commit.parents[0] ?? '')?.tree ?? EMPTY;
    const changes = graph.diff(parentTree, commit.tree).map((change): [string, string | null] => {
      if (change.sha !== null) blobs[change.sha] ??= graph.blob(change.sha) ?? missingBlob(change.sha);
      return [change.path, change.sha];
    });
    return {
      sha: commit.sha,
      label: commit.label,
      parents: [...commit.parents],
      message: commit.message,
      author: commit.author,
      committer: commit.committer,
      changes,
    };
  });
  return { commits, blobs };
}

/**
 * Makes the commits again, in order, through CommitGraph.create: git's sha is derived from
 * the content, so a commit that does not come out with its stored sha and label means the
 * snapshot is damaged, and restoring stops there rather than serve a different history.
 */
export function restoreCommitGraph(snapshot: CommitGraphSnapshot): CommitGraph {
  const graph = new CommitGraph();
  for (const stored of snapshot.commits) {
    const parentTree = graph.get(stored.parents[0] ?? '')?.tree ?? EMPTY;
    const changes = Object.fromEntries(
      stored.changes.map(([path, blob]) => [path, blob === null ? null : contentOf(snapshot, blob)]),
    );
    const commit = graph.create({
      label: stored.label,
      parents: stored.parents,
      tree: graph.applyChanges(parentTree, changes),
      message: stored.message,
      author: stored.author,
      committer: stored.committer,
    });
    if (commit.sha !== stored.sha || commit.label !== stored.label) {
      throw new Error(
        `the sandbox snapshot is damaged: commit ${stored.label} came out as ${commit.sha}, not ${stored.sha}`,
      );
    }
  }
  return graph;
}

function contentOf(snapshot: CommitGraphSnapshot, blob: string): string {
  const content = snapshot.blobs[blob];
  if (content === undefined) throw new Error(`the sandbox snapshot is damaged: blob ${blob} is missing`);
  return content;
}

function missingBlob(sha: string): never {
  throw new Error(`commit graph holds a tree entry without its blob ${sha}`);
}
