import type { PullRequest, Repository } from './entities.ts';
import { GithubError } from './github-error.ts';

/**
 * A protected branch's rules, as a repository administrator sets them on GitHub ("Branch
 * protection rules"): required status checks (and "Require branches to be up to date before
 * merging"), required approving reviews. A switchable setting of the sandbox, like the fault
 * knobs of faults.ts: set by tests and demos, not kept across a restart of the sandbox.
 */
export interface BranchProtection {
  requiredStatusChecks?: {
    /** Check run names or commit status contexts that must have succeeded on the head. */
    contexts: readonly string[];
    /** "Require branches to be up to date before merging": the head must contain the base. */
    strict?: boolean;
  };
  /** Approving reviews required (the latest review of each reviewer counts). */
  requiredApprovingReviewCount?: number;
}

const protections = new WeakMap<Repository, Map<string, BranchProtection>>();

/** Protects `branch` of `repo` with `rules` (replacing earlier rules); null removes them. */
export function protectBranch(repo: Repository, branch: string, rules: BranchProtection | null): void {
  const byBranch = protections.get(repo) ?? new Map<string, BranchProtection>();
  if (rules === null) byBranch.delete(branch);
  else byBranch.set(branch, rules);
  protections.set(repo, byBranch);
}

export function branchProtection(repo: Repository, branch: string): BranchProtection | null {
  return protections.get(repo)?.get(branch) ?? null;
}

/**
 * Refuses the merge of `pull` into its protected base with GitHub's own 405 messages, in the
 * order GitHub checks them: the branch up to date, then each required check, then reviews.
 */
export function enforceMergeProtection(repo: Repository, pull: PullRequest, baseSha: string): void {
  const rules = branchProtection(repo, pull.base);
  if (rules === null) return;
  const checks = rules.requiredStatusChecks;
  if (checks?.strict && !repo.graph.isAncestor(baseSha, pull.headSha))
    throw new GithubError(405, 'Head branch is not up to date with the base branch');
  for (const context of checks?.contexts ?? []) {
    const state = requiredCheckState(repo, pull.headSha, context);
    if (state === 'expected') throw new GithubError(405, `Required status check "${context}" is expected.`);
    if (state === 'failing') throw new GithubError(405, `Required status check "${context}" is failing.`);
  }
  const required = rules.requiredApprovingReviewCount ?? 0;
  if (required > 0 && approvals(pull) < required) {
    const reviews = required === 1 ? '1 approving review is' : `${required} approving reviews are`;
    throw new GithubError(405, `At least ${reviews} required by reviewers with write access.`);
  }
}

/**
 * `PATCH …/git/refs/heads/{branch}` with `force: true` on a protected branch: GitHub refuses a
 * move that is not a fast-forward (branch protection's "Allow force pushes" is off unless an
 * administrator turns it on), whoever asks, with 422 and these words. A forced move that happens
 * to be a fast-forward rewrites nothing and goes through.
 */
export function enforceRefUpdateProtection(
  repo: Repository,
  params: { branch: string; sha: string; force: boolean },
): void {
  if (!params.force || branchProtection(repo, params.branch) === null) return;
  const current = repo.branches.get(params.branch);
  if (current === undefined || current === params.sha) return;
  if (repo.graph.isAncestor(current, params.sha)) return;
  throw new GithubError(422, 'Cannot force-push to this protected branch');
}

/** A required check on `sha`: passed, missing or still running ("expected"), or failed. */
function requiredCheckState(
  repo: Repository,
  sha: string,
  context: string,
): 'passed' | 'expected' | 'failing' {
  const runs = (repo.checkRunsBySha.get(sha) ?? [])
    .map((id) => repo.checkRuns.get(id)!)
    .filter((run) => run.name === context);
  const latestRun = runs.at(-1);
  if (latestRun !== undefined) {
    if (latestRun.status !== 'completed') return 'expected';
    return ['success', 'neutral', 'skipped'].includes(latestRun.conclusion ?? '') ? 'passed' : 'failing';
  }
  const latestStatus = repo.statuses.filter((s) => s.sha === sha && s.context === context).at(-1);
  if (latestStatus === undefined || latestStatus.state === 'pending') return 'expected';
  return latestStatus.state === 'success' ? 'passed' : 'failing';
}

function approvals(pull: PullRequest): number {
  const latest = new Map<number, string>();
  for (const review of pull.reviews) {
    if (review.state === 'COMMENTED') continue;
    latest.set(review.user.id, review.state);
  }
  return [...latest.values()].filter((state) => state === 'APPROVED').length;
}
