import { createHash } from 'node:crypto';

/** Path → blob sha. A file's "content version" is its blob sha, as in git. */
export type Tree = ReadonlyMap<string, string>;

export interface GitPerson {
  name: string;
  email: string;
  /** ISO 8601. */
  date: string;
}

export interface Commit {
  sha: string;
  /** A readable name unique in its repository (`main-1`, `pr-3-v2`, `merge-pr-3`), for timelines. */
  label: string;
  parents: readonly string[];
  tree: Tree;
  treeSha: string;
  message: string;
  author: GitPerson;
  committer: GitPerson;
  /** 1 + the largest generation of the parents: lets a merge-base search stop early. */
  generation: number;
}

export type FileChanges = Readonly<Record<string, string | null>>;

export type TreeMerge = { kind: 'merged'; tree: Tree } | { kind: 'conflict'; paths: string[] };

export interface FileChange {
  path: string;
  status: 'added' | 'modified' | 'removed';
  /** Blob sha after the change; null when removed. */
  sha: string | null;
  previousSha: string | null;
}

const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');

/** git's blob id, so a file's sha is the one `git hash-object` would print. */
export function blobSha(content: string): string {
  return sha1(`blob ${Buffer.byteLength(content)}\0${content}`);
}

function treeShaOf(tree: Tree): string {
  return sha1([...tree.entries()].map(([path, blob]) => `${path}\0${blob}\n`).join(''));
}

/**
 * The commits, blobs and ancestry of one repository. SHAs are derived from a commit's content
 * (tree, parents, people, message) the way git derives them, so they are 40 hex digits, stable
 * across runs on a virtual clock, and equal for identical commits.
 */
export class CommitGraph {
  private readonly commits = new Map<string, Commit>();
  /** The commits in the order they were made: the journal stores those made since its last count. */
  private readonly made: Commit[] = [];
  private readonly byLabel = new Map<string, string>();
  private readonly blobs = new Map<string, string>();
  private readonly nextNumber = new Map<string, number>();

  get(sha: string): Commit | undefined {
    return this.commits.get(sha);
  }

  /** A commit by sha or by its readable label. */
  resolve(shaOrLabel: string): Commit | undefined {
    return this.commits.get(shaOrLabel) ?? this.commits.get(this.byLabel.get(shaOrLabel) ?? '');
  }

  blob(sha: string): string | undefined {
    return this.blobs.get(sha);
  }

  /** Every commit, each after its parents (the order they were made in). */
  list(): Commit[] {
    return [...this.made];
  }

  /** How many commits there are. */
  get size(): number {
    return this.made.length;
  }

  /** The commits made after the first `count`, in the order they were made. */
  commitsSince(count: number): Commit[] {
    return this.made.slice(count);
  }

  /** The label `base`, or `base-2`, `base-3`… when taken: labels stay unique. */
  private freeLabel(base: string): string {
    if (!this.byLabel.has(base)) return base;
    return this.numberedLabel(base, 2);
  }

  /** `base-n` for the smallest free n from `first` on, remembered per base so numbering stays O(1). */
  numberedLabel(base: string, first = 1): string {
    let n = Math.max(first, this.nextNumber.get(base) ?? first);
    while (this.byLabel.has(`${base}-${n}`)) n++;
    this.nextNumber.set(base, n + 1);
    return `${base}-${n}`;
  }

  /** Stores file contents and returns the tree of `parent` with `changes` applied (null deletes). */
  applyChanges(parent: Tree, changes: FileChanges): Tree {
    const next = new Map(parent);
    for (const [path, content] of Object.entries(changes)) {
      if (content === null) {
        next.delete(path);
      } else {
        const sha = blobSha(content);
        this.blobs.set(sha, content);
        next.set(path, sha);
      }
    }
    return next; // sorted once, when a commit is made of it
  }

  create(params: {
    label: string;
    parents: readonly string[];
    tree: Tree;
    message: string;
    author: GitPerson;
    committer?: GitPerson;
  }): Commit {
    const parents = params.parents.map((sha) => {
      const parent = this.commits.get(sha);
      if (!parent) throw new Error(`unknown parent commit ${sha}`);
      return parent;
    });
    const tree = sortTree(params.tree);
    const treeSha = treeShaOf(tree);
    const committer = params.committer ?? params.author;
    const person = (p: GitPerson) => `${p.name} <${p.email}> ${p.date}`;
    const sha = sha1(
      `tree ${treeSha}\n${parents.map((p) => `parent ${p.sha}\n`).join('')}` +
        `author ${person(params.author)}\ncommitter ${person(committer)}\n\n${params.message}`,
    );
    const existing = this.commits.get(sha);
    if (existing) return existing; // the same commit made twice is one commit, as in git
    const commit: Commit = {
      sha,
      label: this.freeLabel(params.label),
      parents: parents.map((p) => p.sha),
      tree,
      treeSha,
      message: params.message,
      author: params.author,
      committer,
      generation: 1 + Math.max(0, ...parents.map((p) => p.generation)),
    };
    this.commits.set(sha, commit);
    this.made.push(commit);
    this.byLabel.set(commit.label, sha);
    return commit;
  }

  /** Whether `ancestor` is `descendant` or one of its ancestors. */
  isAncestor(ancestor: string, descendant: string): boolean {
    const target = this.commits.get(ancestor);
    if (!target) return false;
    const seen = new Set<string>();
    const stack = [descendant];
    while (stack.length > 0) {
      const sha = stack.pop()!;
      if (sha === ancestor) return true;
      if (seen.has(sha)) continue;
      seen.add(sha);
      const commit = this.commits.get(sha);
      // Generations only grow along history, so nothing below the target's can lead to it.
      if (!commit || commit.generation <= target.generation) continue;
      stack.push(...commit.parents);
    }
    return false;
  }

  /**
   * The best common ancestor of two commits (git's merge base), or null for unrelated
   * histories. Commits are visited from the highest generation down, so every commit's
   * marks are final when it is visited and the first one reached from both sides is a
   * common ancestor that no other common ancestor descends from.
   */
  mergeBase(a: string, b: string): string | null {
    if (a === b) return a;
    const marks = new Map<string, number>([
      [a, 1],
      [b, 2],
    ]);
    const queue = new GenerationQueue();
    for (const sha of [a, b]) {
      const commit = this.commits.get(sha);
      if (!commit) return null;
      queue.push(commit);
    }
    const visited = new Set<string>();
    for (let commit = queue.pop(); commit; commit = queue.pop()) {
      if (visited.has(commit.sha)) continue;
      visited.add(commit.sha);
      const mark = marks.get(commit.sha) ?? 0;
      if (mark === 3) return commit.sha;
      for (const parentSha of commit.parents) {
        const parentMark = marks.get(parentSha) ?? 0;
        if ((parentMark | mark) === parentMark) continue;
        marks.set(parentSha, parentMark | mark);
        const parent = this.commits.get(parentSha);
        if (parent) queue.push(parent);
      }
    }
    return null;
  }

  /**
   * The commits reachable from `head` and from none of `bases`, oldest first (what a PR or a
   * push adds): git's `rev-list head ^base…`. Walking from the highest generation down and
   * stopping once only commits reachable from a base are left costs the part of history above
   * the bases, not all of it.
   */
  commitsBetween(bases: string | null | readonly string[], head: string): Commit[] {
    const marks = new Map<string, number>();
    const queue = new GenerationQueue();
    // Queue entries pushed while not (yet) known to be reachable from a base: the walk goes on
    // while any is left. An entry found reachable later still counts until popped, which only
    // walks a little further.
    let open = 0;
    const counted = new Map<string, number>();
    const push = (commit: Commit, mark: number) => {
      queue.push(commit);
      if (mark & EXCLUDED) return;
      open++;
      counted.set(commit.sha, (counted.get(commit.sha) ?? 0) + 1);
    };
    const start = (sha: string, mark: number) => {
      const commit = this.commits.get(sha);
      if (!commit) return;
      marks.set(sha, (marks.get(sha) ?? 0) | mark);
      push(commit, mark);
    };
    start(head, WANTED);
    for (const base of bases === null ? [] : typeof bases === 'string' ? [bases] : bases)
      start(base, EXCLUDED);
    const visited = new Set<string>();
    const result: Commit[] = [];
    while (open > 0) {
      const commit = queue.pop()!;
      const uncounted = counted.get(commit.sha) ?? 0;
      if (uncounted > 0) {
        open--;
        counted.set(commit.sha, uncounted - 1);
      }
      if (visited.has(commit.sha)) continue;
      visited.add(commit.sha);
      const mark = marks.get(commit.sha)!;
      if (mark === WANTED) result.push(commit);
      for (const parentSha of commit.parents) {
        const parentMark = marks.get(parentSha) ?? 0;
        if ((parentMark | mark) === parentMark) continue;
        marks.set(parentSha, parentMark | mark);
        const parent = this.commits.get(parentSha);
        if (parent) push(parent, parentMark | mark);
      }
    }
    return result.sort((x, y) => x.generation - y.generation || compare(x.sha, y.sha));
  }

  /**
   * Three-way merge of trees, file by file: a file changed on one side only takes that side's
   * version; changed identically on both sides is kept; changed differently on both sides (or
   * changed on one and deleted on the other) is a conflict.
   */
  mergeTrees(base: Tree, ours: Tree, theirs: Tree): TreeMerge {
    const merged = new Map<string, string>();
    const conflicts: string[] = [];
    for (const path of new Set([...base.keys(), ...ours.keys(), ...theirs.keys()])) {
      const b = base.get(path);
      const o = ours.get(path);
      const t = theirs.get(path);
      const result = o === t ? o : o === b ? t : t === b ? o : CONFLICT;
      if (result === CONFLICT) conflicts.push(path);
      else if (result !== undefined) merged.set(path, result);
    }
    if (conflicts.length > 0) return { kind: 'conflict', paths: conflicts.sort(compare) };
    return { kind: 'merged', tree: merged };
  }

  /** Merges two commits' trees over their merge base. */
  mergeCommits(ours: string, theirs: string): TreeMerge {
    const base = this.mergeBase(ours, theirs);
    const tree = (sha: string | null): Tree => (sha ? (this.commits.get(sha)?.tree ?? EMPTY) : EMPTY);
    return this.mergeTrees(tree(base), tree(ours), tree(theirs));
  }

  /** File changes from one tree to another, by path (one pass over each tree, then only the changes are sorted). */
  diff(from: Tree, to: Tree): FileChange[] {
    const changes: FileChange[] = [];
    for (const [path, before] of from) {
      const after = to.get(path) ?? null;
      if (before === after) continue;
      changes.push({
        path,
        status: after === null ? 'removed' : 'modified',
        sha: after,
        previousSha: before,
      });
    }
    for (const [path, after] of to) {
      if (!from.has(path)) changes.push({ path, status: 'added', sha: after, previousSha: null });
    }
    return changes.sort((a, b) => compare(a.path, b.path));
  }
}

const CONFLICT = Symbol('conflict');
/** Marks of commitsBetween's walk: reachable from the head, from a base. */
const WANTED = 1;
const EXCLUDED = 2;
export const EMPTY: Tree = new Map();

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function sortTree(tree: Tree): Tree {
  return new Map([...tree.entries()].sort(([a], [b]) => compare(a, b)));
}

/** A max-heap of commits by generation (ties by sha, so the visit order is deterministic). */
class GenerationQueue {
  private readonly heap: Commit[] = [];

  private before(a: Commit, b: Commit): boolean {
    return a.generation > b.generation || (a.generation === b.generation && a.sha < b.sha);
  }

  push(commit: Commit): void {
    const heap = this.heap;
    heap.push(commit);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  pop(): Commit | undefined {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop();
    if (heap.length > 0 && last) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let best = i;
        if (l < heap.length && this.before(heap[l]!, heap[best]!)) best = l;
        if (r < heap.length && this.before(heap[r]!, heap[best]!)) best = r;
        if (best === i) break;
        [heap[i], heap[best]] = [heap[best]!, heap[i]!];
        i = best;
      }
    }
    return top;
  }
}
