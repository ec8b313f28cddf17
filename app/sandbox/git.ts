import type { Commit, FileChanges } from './commit-graph.ts';
import type { Account, Repository } from './entities.ts';
import { ZERO_SHA } from './entities.ts';
import { GithubError } from './github-error.ts';
import { gitPerson, type SandboxCore } from './sandbox-core.ts';

/** What pull requests must learn when a branch moves or disappears (GitHub reacts to pushes). */
export interface BranchWatcher {
  branchMoved(repo: Repository, branch: string, before: string, after: string, sender: Account): void;
  branchDeleted(repo: Repository, branch: string, sender: Account): void;
}

/** GitHub caps a push payload's `commits` at 20 (the rest are only counted by the compare view). */
const maxPushCommits = 20;

/** Branches, commits and branch merges: the git side of the code host. */
export class GitOperations {
  constructor(
    private readonly core: SandboxCore,
    private readonly watcher: BranchWatcher,
  ) {}

  /**
   * A commit named by a branch (`main`, `heads/main`, `refs/heads/main`), a sha, or a
   * readable label. Branch names win, as in GitHub's `ref` parameters.
   */
  resolve(repo: Repository, ref: string): Commit | undefined {
    const branch = ref.replace(/^refs\//, '').replace(/^heads\//, '');
    const sha = repo.branches.get(branch);
    return repo.graph.get(sha ?? '') ?? repo.graph.resolve(ref);
  }

  /** Makes a commit on top of `branch` (created from `from` if it does not exist) and pushes it. */
  commit(
    repo: Repository,
    params: {
      branch: string;
      from?: string;
      files: FileChanges;
      message: string;
      author: Account;
      label?: string;
    },
  ): Commit {
    const existing = repo.branches.get(params.branch);
    const parentRef = existing ?? params.from ?? repo.defaultBranch;
    const parent = existing ? repo.graph.get(existing) : this.resolve(repo, parentRef);
    if (!parent) throw GithubError.validation({ resource: 'Commit', field: 'parent', code: 'invalid' });
    const commit = repo.graph.create({
      label: params.label ?? labelFor(repo, params.branch),
      parents: [parent.sha],
      tree: repo.graph.applyChanges(parent.tree, params.files),
      message: params.message,
      author: gitPerson(this.core, params.author),
    });
    // A push from outside the app: the fault knobs, which stand for GitHub refusing the app, do not apply.
    if (existing)
      this.move(repo, { branch: params.branch, sha: commit.sha, force: false, sender: params.author });
    else this.create(repo, { branch: params.branch, sha: commit.sha, sender: params.author });
    return commit;
  }

  /** POST /git/refs: 422 when the branch exists or the sha is unknown. */
  createBranch(repo: Repository, params: { branch: string; sha: string; sender: Account }): void {
    repo.pushBehaviour.attempt();
    this.create(repo, params);
  }

  private create(repo: Repository, params: { branch: string; sha: string; sender: Account }): void {
    if (repo.branches.has(params.branch)) throw new GithubError(422, 'Reference already exists');
    if (!repo.graph.get(params.sha)) throw new GithubError(422, 'Object does not exist');
    repo.branches.set(params.branch, params.sha);
    this.pushed(repo, {
      branch: params.branch,
      before: ZERO_SHA,
      after: params.sha,
      forced: false,
      sender: params.sender,
    });
    this.core.emit({ type: 'branch_created', repo, branch: params.branch, sender: params.sender });
  }

  /** PATCH /git/refs: a move that loses commits needs `force`, as GitHub requires. */
  moveBranch(
    repo: Repository,
    params: { branch: string; sha: string; force: boolean; sender: Account },
  ): void {
    repo.pushBehaviour.attempt();
    this.move(repo, params);
  }

  /** Moves a branch without consulting the fault knobs (pushes by people, merges already admitted). */
  move(repo: Repository, params: { branch: string; sha: string; force: boolean; sender: Account }): void {
    const before = repo.branches.get(params.branch);
    if (before === undefined) throw new GithubError(422, 'Reference does not exist');
    if (!repo.graph.get(params.sha)) throw new GithubError(422, 'Object does not exist');
    const fastForward = repo.graph.isAncestor(before, params.sha);
    if (!fastForward && !params.force) throw new GithubError(422, 'Update is not a fast forward');
    if (before === params.sha) return;
    repo.branches.set(params.branch, params.sha);
    this.pushed(repo, {
      branch: params.branch,
      before,
      after: params.sha,
      forced: !fastForward,
      sender: params.sender,
    });
    this.watcher.branchMoved(repo, params.branch, before, params.sha, params.sender);
  }

  /** DELETE /git/refs: 422 when there is no such branch. Open PRs from or into it close. */
  deleteBranch(repo: Repository, params: { branch: string; sender: Account }): void {
    repo.pushBehaviour.attempt();
    const before = repo.branches.get(params.branch);
    if (before === undefined) throw new GithubError(422, 'Reference does not exist');
    if (params.branch === repo.defaultBranch) {
      throw new GithubError(422, 'Cannot delete the default branch');
    }
    repo.branches.delete(params.branch);
    this.pushed(repo, {
      branch: params.branch,
      before,
      after: ZERO_SHA,
      forced: false,
      sender: params.sender,
    });
    this.core.emit({ type: 'branch_deleted', repo, branch: params.branch, sender: params.sender });
    this.watcher.branchDeleted(repo, params.branch, params.sender);
  }

  /**
   * POST /merges: merges `head` (a branch or a sha) into `base` with a merge commit.
   * 'nothing' when `head` is already in `base`; 409 on a conflict; 404 when either is missing.
   */
  mergeIntoBranch(
    repo: Repository,
    params: { base: string; head: string; message?: string; sender: Account },
  ): { kind: 'merged'; commit: Commit } | { kind: 'nothing' } {
    repo.pushBehaviour.attempt();
    const baseSha = repo.branches.get(params.base);
    if (baseSha === undefined) throw new GithubError(404, 'Base does not exist');
    const head = this.resolve(repo, params.head);
    if (!head) throw new GithubError(404, 'Head does not exist');
    if (repo.graph.isAncestor(head.sha, baseSha)) return { kind: 'nothing' };
    const merge = repo.graph.mergeCommits(baseSha, head.sha);
    if (merge.kind === 'conflict') throw new GithubError(409, 'Merge Conflict');
    const commit = repo.graph.create({
      label: `${slug(params.base)}-merge`,
      parents: [baseSha, head.sha],
      tree: merge.tree,
      message: params.message ?? `Merge ${params.head} into ${params.base}`,
      author: gitPerson(this.core, params.sender),
    });
    this.move(repo, { branch: params.base, sha: commit.sha, force: false, sender: params.sender });
    return { kind: 'merged', commit };
  }

  private pushed(
    repo: Repository,
    params: { branch: string; before: string; after: string; forced: boolean; sender: Account },
  ): void {
    repo.pushedAt = this.core.clock.now();
    const commits =
      params.after === ZERO_SHA ? [] : this.newCommits(repo, params.branch, params.before, params.after);
    this.core.emit({ type: 'push', repo, ...params, commits: commits.slice(-maxPushCommits) });
  }

  /** Commits the push brought to the branch: on a new branch, those no other branch had. */
  private newCommits(repo: Repository, branch: string, before: string, after: string): Commit[] {
    if (before !== ZERO_SHA) return repo.graph.commitsBetween(before, after);
    const others = [...repo.branches].filter(([name]) => name !== branch).map(([, sha]) => sha);
    return repo.graph.commitsBetween(others, after);
  }
}

/** `feature/login` → `feature-login`: labels stay readable and free of slashes. */
export function slug(branch: string): string {
  return branch.replace(/[^A-Za-z0-9.]+/g, '-').replace(/^-|-$/g, '');
}

function labelFor(repo: Repository, branch: string): string {
  // The n-th commit made on a branch name is `<branch>-<n>` (`main-1`, `main-2`).
  return repo.graph.numberedLabel(slug(branch));
}
