import { enforceMergeProtection } from './branch-protection.ts';
import { type Commit, EMPTY, type FileChange, type Tree } from './commit-graph.ts';
import type { Account, PullRequest, Repository, ReviewState } from './entities.ts';
import type { BranchWatcher, GitOperations } from './git.ts';
import { GithubError } from './github-error.ts';
import { gitPerson, type SandboxCore } from './sandbox-core.ts';

export type MergeMethod = 'merge' | 'squash' | 'rebase';

/** Pull requests: open, edit, review, merge, update their branch, and follow their branches. */
export class PullRequestOperations implements BranchWatcher {
  private git!: GitOperations;

  constructor(private readonly core: SandboxCore) {}

  /** Set once the git operations exist (they report branch moves back here). */
  attach(git: GitOperations): void {
    this.git = git;
  }

  get(repo: Repository, number: number): PullRequest {
    const pull = repo.pulls.get(number);
    if (!pull) throw GithubError.notFound();
    return pull;
  }

  open(
    repo: Repository,
    params: { head: string; base: string; title: string; body?: string; draft?: boolean; user: Account },
  ): PullRequest {
    const baseSha = repo.branches.get(params.base);
    const headSha = repo.branches.get(params.head);
    if (baseSha === undefined)
      throw GithubError.validation({ resource: 'PullRequest', field: 'base', code: 'invalid' });
    if (headSha === undefined)
      throw GithubError.validation({ resource: 'PullRequest', field: 'head', code: 'invalid' });
    if (!params.title)
      throw GithubError.validation({ resource: 'PullRequest', field: 'title', code: 'missing_field' });
    if (repo.graph.isAncestor(headSha, baseSha)) {
      throw GithubError.validation({
        resource: 'PullRequest',
        code: 'custom',
        message: `No commits between ${params.base} and ${params.head}`,
      });
    }
    const duplicate = [...repo.pulls.values()].find(
      (p) => p.state === 'open' && p.head === params.head && p.base === params.base,
    );
    if (duplicate) {
      throw GithubError.validation({
        resource: 'PullRequest',
        code: 'custom',
        message: `A pull request already exists for ${repo.owner.login}:${params.head}.`,
      });
    }
    const now = this.core.clock.now();
    const pull: PullRequest = {
      id: this.core.ids.take('pull'),
      number: repo.nextNumber++,
      title: params.title,
      body: params.body ?? '',
      user: params.user,
      head: params.head,
      headSha,
      base: params.base,
      closedBaseSha: null,
      draft: params.draft ?? false,
      state: 'open',
      merged: false,
      mergedAt: null,
      mergedBy: null,
      mergeCommitSha: null,
      closedAt: null,
      createdAt: now,
      updatedAt: now,
      labels: [],
      reviews: [],
    };
    repo.pulls.set(pull.number, pull);
    this.core.emit({ type: 'pull_request', action: 'opened', repo, pull, sender: params.user });
    return pull;
  }

  /** PATCH /pulls/{n}: title, body, base, and closing or reopening. */
  edit(
    repo: Repository,
    number: number,
    params: { title?: string; body?: string; base?: string; state?: 'open' | 'closed'; sender: Account },
  ): PullRequest {
    const pull = this.get(repo, number);
    const changes: { title?: string; body?: string; base?: { ref: string; sha: string } } = {};
    if (params.base !== undefined && params.base !== pull.base) {
      if (pull.state === 'closed')
        throw new GithubError(422, 'Cannot change the base branch of a closed pull request.');
      if (!repo.branches.has(params.base)) {
        throw GithubError.validation({ resource: 'PullRequest', field: 'base', code: 'invalid' });
      }
      changes.base = { ref: pull.base, sha: repo.branches.get(pull.base) ?? pull.headSha };
      pull.base = params.base;
    }
    if (params.title !== undefined && params.title !== pull.title) {
      changes.title = pull.title;
      pull.title = params.title;
    }
    if (params.body !== undefined && params.body !== pull.body) {
      changes.body = pull.body;
      pull.body = params.body;
    }
    if (Object.keys(changes).length > 0) {
      pull.updatedAt = this.core.clock.now();
      this.core.emit({ type: 'pull_request', action: 'edited', repo, pull, sender: params.sender, changes });
    }
    if (params.state === 'closed' && pull.state === 'open') this.close(repo, pull, params.sender);
    if (params.state === 'open' && pull.state === 'closed') this.reopen(repo, pull, params.sender);
    return pull;
  }

  /** Draft ↔ ready (GitHub does this through GraphQL; people do it in the UI). */
  setDraft(repo: Repository, number: number, draft: boolean, sender: Account): void {
    const pull = this.get(repo, number);
    if (pull.draft === draft || pull.state !== 'open') return;
    pull.draft = draft;
    pull.updatedAt = this.core.clock.now();
    const action = draft ? 'converted_to_draft' : 'ready_for_review';
    this.core.emit({ type: 'pull_request', action, repo, pull, sender });
  }

  review(
    repo: Repository,
    number: number,
    params: { user: Account; state: ReviewState; body?: string },
  ): void {
    const pull = this.get(repo, number);
    const review = {
      id: this.core.ids.take('review'),
      user: params.user,
      state: params.state,
      body: params.body ?? '',
      commitId: pull.headSha,
      submittedAt: this.core.clock.now(),
    };
    pull.reviews.push(review);
    this.core.emit({ type: 'pull_request_review', repo, pull, review, sender: params.user });
  }

  /**
   * PUT /pulls/{n}/merge. 405 when the PR cannot merge (closed, draft, conflicting), 409 when
   * its head is no longer `sha`. The base branch moves and GitHub's push and `closed` follow.
   */
  merge(
    repo: Repository,
    number: number,
    params: { method: MergeMethod; sha?: string; title?: string; message?: string; sender: Account },
  ): Commit {
    const pull = this.get(repo, number);
    repo.mergeBehaviour.attempt();
    if (pull.state !== 'open') throw new GithubError(405, 'Pull Request is not mergeable');
    if (pull.draft) throw new GithubError(405, 'Pull Request is still a draft');
    if (params.sha !== undefined && params.sha !== pull.headSha) {
      throw new GithubError(409, 'Head branch was modified. Review and try the merge again.');
    }
    const baseSha = repo.branches.get(pull.base);
    if (baseSha === undefined) throw new GithubError(405, 'Base branch was deleted');
    enforceMergeProtection(repo, pull, baseSha);
    const commit = this.mergeCommit(repo, pull, { ...params, baseSha });
    if (!commit) throw new GithubError(405, 'Pull Request is not mergeable');

    const now = this.core.clock.now();
    Object.assign(pull, {
      state: 'closed',
      merged: true,
      mergedAt: now,
      mergedBy: params.sender,
      mergeCommitSha: commit.sha,
      closedAt: now,
      closedBaseSha: baseSha,
      updatedAt: now,
    } satisfies Partial<PullRequest>);
    this.git.move(repo, { branch: pull.base, sha: commit.sha, force: false, sender: params.sender });
    this.core.emit({ type: 'pull_request', action: 'closed', repo, pull, sender: params.sender });
    return commit;
  }

  /** The commit that lands on the base for `method`, or null on a conflict. */
  private mergeCommit(
    repo: Repository,
    pull: PullRequest,
    params: { method: MergeMethod; baseSha: string; title?: string; message?: string; sender: Account },
  ): Commit | null {
    const { graph } = repo;
    const person = gitPerson(this.core, params.sender);
    if (params.method === 'rebase') return this.rebase(repo, pull, params.baseSha, params.sender);
    const computed = graph.mergeCommits(params.baseSha, pull.headSha);
    if (computed.kind === 'conflict') return null;
    const merged = { tree: repo.mergeLanding.land({ graph, baseSha: params.baseSha, tree: computed.tree }) };
    if (params.method === 'squash') {
      const title = params.title ?? `${pull.title} (#${pull.number})`;
      const message = params.message ?? commitMessages(graph.commitsBetween(params.baseSha, pull.headSha));
      return graph.create({
        label: `squash-pr-${pull.number}`,
        parents: [params.baseSha],
        tree: merged.tree,
        message: message ? `${title}\n\n${message}` : title,
        author: gitPerson(this.core, pull.user),
        committer: person,
      });
    }
    const title = params.title ?? `Merge pull request #${pull.number} from ${repo.owner.login}/${pull.head}`;
    return graph.create({
      label: `merge-pr-${pull.number}`,
      parents: [params.baseSha, pull.headSha],
      tree: merged.tree,
      message: `${title}\n\n${params.message ?? pull.title}`,
      author: person,
    });
  }

  /** Replays the PR's own non-merge commits onto the base, one by one; null on a conflict. */
  private rebase(repo: Repository, pull: PullRequest, baseSha: string, sender: Account): Commit | null {
    const { graph } = repo;
    const own = graph.commitsBetween(graph.mergeBase(baseSha, pull.headSha), pull.headSha);
    let tip = graph.get(baseSha)!;
    let n = 0;
    for (const commit of own.filter((c) => c.parents.length === 1)) {
      const parentTree: Tree = graph.get(commit.parents[0]!)?.tree ?? EMPTY;
      const replayed = graph.mergeTrees(parentTree, tip.tree, commit.tree);
      if (replayed.kind === 'conflict') return null;
      tip = graph.create({
        label: `rebase-pr-${pull.number}-${++n}`,
        parents: [tip.sha],
        tree: replayed.tree,
        message: commit.message,
        author: commit.author,
        committer: gitPerson(this.core, sender),
      });
    }
    return tip.sha === baseSha ? null : tip;
  }

  /**
   * PUT /pulls/{n}/update-branch: merges the base into the head branch. 422 when the head is
   * no longer `expectedHeadSha`, when there is nothing new on the base, or on a conflict.
   */
  updateBranch(
    repo: Repository,
    number: number,
    params: { expectedHeadSha?: string; sender: Account },
  ): Commit {
    const pull = this.get(repo, number);
    repo.updateBranchBehaviour.attempt();
    if (pull.state !== 'open') throw new GithubError(422, 'Pull request is closed');
    if (params.expectedHeadSha !== undefined && params.expectedHeadSha !== pull.headSha) {
      throw new GithubError(422, 'expected head sha didn’t match current head ref.');
    }
    const baseSha = repo.branches.get(pull.base);
    if (baseSha === undefined || !repo.branches.has(pull.head))
      throw new GithubError(422, 'Branch not found');
    if (repo.graph.isAncestor(baseSha, pull.headSha)) {
      throw new GithubError(422, 'There are no new commits on the base branch.');
    }
    const merged = repo.graph.mergeCommits(pull.headSha, baseSha);
    if (merged.kind === 'conflict') throw new GithubError(422, 'merge conflict between base and head');
    const commit = repo.graph.create({
      label: `pr-${pull.number}-update`,
      parents: [pull.headSha, baseSha],
      tree: merged.tree,
      message: `Merge branch '${pull.base}' into ${pull.head}`,
      author: gitPerson(this.core, params.sender),
    });
    this.git.move(repo, { branch: pull.head, sha: commit.sha, force: false, sender: params.sender });
    return commit;
  }

  /** What the PR changes: its head against the merge base with its base branch. */
  files(repo: Repository, number: number): FileChange[] {
    const pull = this.get(repo, number);
    const baseSha = pull.closedBaseSha ?? repo.branches.get(pull.base) ?? null;
    const from = baseSha ? repo.graph.mergeBase(baseSha, pull.headSha) : null;
    const tree = (sha: string | null) => (sha ? (repo.graph.get(sha)?.tree ?? EMPTY) : EMPTY);
    return repo.graph.diff(tree(from), tree(pull.headSha));
  }

  /** Whether the PR merges into its base without conflict now; null once closed. */
  mergeable(repo: Repository, pull: PullRequest): boolean | null {
    const baseSha = repo.branches.get(pull.base);
    if (pull.state !== 'open' || baseSha === undefined) return null;
    return repo.graph.mergeCommits(baseSha, pull.headSha).kind === 'merged';
  }

  branchMoved(repo: Repository, branch: string, before: string, after: string, sender: Account): void {
    for (const pull of [...repo.pulls.values()]) {
      if (pull.state !== 'open') continue;
      if (pull.head === branch) {
        pull.headSha = after;
        pull.updatedAt = this.core.clock.now();
        this.core.emit({ type: 'pull_request', action: 'synchronize', repo, pull, sender, before, after });
      } else if (pull.base === branch && repo.graph.isAncestor(pull.headSha, after)) {
        // GitHub marks a PR merged when its head lands on its base by a push (a fast-forward).
        const now = this.core.clock.now();
        Object.assign(pull, {
          state: 'closed',
          merged: true,
          mergedAt: now,
          mergedBy: sender,
          mergeCommitSha: after,
          closedAt: now,
          closedBaseSha: before,
          updatedAt: now,
        } satisfies Partial<PullRequest>);
        this.core.emit({ type: 'pull_request', action: 'closed', repo, pull, sender });
      }
    }
  }

  branchDeleted(repo: Repository, branch: string, sender: Account): void {
    for (const pull of [...repo.pulls.values()]) {
      if (pull.state === 'open' && (pull.head === branch || pull.base === branch))
        this.close(repo, pull, sender);
    }
  }

  private close(repo: Repository, pull: PullRequest, sender: Account): void {
    const now = this.core.clock.now();
    pull.state = 'closed';
    pull.closedAt = now;
    pull.updatedAt = now;
    pull.closedBaseSha = repo.branches.get(pull.base) ?? null;
    this.core.emit({ type: 'pull_request', action: 'closed', repo, pull, sender });
  }

  private reopen(repo: Repository, pull: PullRequest, sender: Account): void {
    if (pull.merged) throw new GithubError(422, 'state cannot be changed. The pull request has been merged.');
    const headSha = repo.branches.get(pull.head);
    if (headSha === undefined || !repo.branches.has(pull.base)) {
      throw new GithubError(422, 'state cannot be changed. The head or base branch was deleted.');
    }
    pull.state = 'open';
    pull.headSha = headSha;
    pull.closedAt = null;
    pull.closedBaseSha = null;
    pull.updatedAt = this.core.clock.now();
    this.core.emit({ type: 'pull_request', action: 'reopened', repo, pull, sender });
  }
}

function commitMessages(commits: Commit[]): string {
  return commits.map((c) => `* ${c.message.split('\n')[0]}`).join('\n');
}
