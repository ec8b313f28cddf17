import type { CheckReport, LabelFact } from '../../queue/inputs.ts';

/**
 * One typed GitHub facade per repository: one verb-named method per REST
 * operation the app uses, GitHub's answers translated into plain values and typed errors.
 * Built from an installation-authenticated octokit (retry + throttling inside), so effects can
 * run from the outbox without a webhook context. Tests answer it over HTTP (nock or the
 * sandbox code host), never by stubbing it.
 */
export interface RepositoryClient {
  readonly owner: string;
  readonly repo: string;

  /** GET /repos/{o}/{r}: the default branch and GitHub's numeric id. */
  getRepository(): Promise<{ id: number; defaultBranch: string }>;
  /** GET /repos/{o}/{r}/git/ref/heads/{branch}; null when the branch does not exist. */
  getBranchSha(branch: string): Promise<string | null>;
  /** Create the branch at `sha`, or move it there (force) if it exists. */
  setBranch(branch: string, sha: string): Promise<void>;
  /**
   * PATCH /repos/{o}/{r}/git/refs/heads/{branch} with force: false. Throws MergeRefusedError
   * when GitHub refuses (422: not a fast-forward, or branch protection).
   */
  fastForwardBranch(params: { branch: string; sha: string }): Promise<void>;
  /** DELETE the branch; a branch that is already gone is not an error. */
  deleteBranch(branch: string): Promise<void>;
  /**
   * POST /repos/{o}/{r}/merges: merge `head` (a sha or branch) into `branch`. The new head sha and
   * its tree, or the branch's sha (tree null: GitHub's 204 says nothing) when there was nothing to
   * merge. Throws MergeConflictError on 409.
   */
  mergeIntoBranch(params: {
    branch: string;
    head: string;
    message: string;
  }): Promise<{ sha: string; tree: string | null }>;
  /**
   * GET /repos/{o}/{r}/commits/{ref} (a branch or a sha): the commit, its tree and its parents.
   * Throws NotFoundError when there is no such commit.
   */
  getCommit(ref: string): Promise<{ sha: string; tree: string; parents: string[] }>;
  /** GET /repos/{o}/{r}/pulls/{n}. */
  getPullRequest(number: number): Promise<PullRequestInfo>;
  /** The open pull request whose head is `branch` in this repository, or null. */
  findOpenPullRequestByHead(branch: string): Promise<number | null>;
  /** POST /repos/{o}/{r}/pulls with draft: true. Throws GithubRequestError on refusal. */
  createDraftPullRequest(params: {
    head: string;
    base: string;
    title: string;
    body: string;
  }): Promise<number>;
  /** PATCH state=closed; closing a closed pull request is not an error. */
  closePullRequest(number: number): Promise<void>;
  /**
   * PUT /repos/{o}/{r}/pulls/{n}/merge with `sha` as the expected head. The merge commit's sha.
   * Throws MergeRefusedError (405 not mergeable, 409 head moved, 422 …) with GitHub's message.
   */
  mergePullRequest(params: {
    number: number;
    method: 'merge' | 'squash' | 'rebase';
    sha: string;
  }): Promise<string>;
  /**
   * PUT /repos/{o}/{r}/pulls/{n}/update-branch with expected_head_sha. GitHub merges the base into
   * the head asynchronously: `updating` (202) means the head will move; `up_to_date` (422 "no new
   * commits") that it already contains the base. Throws MergeConflictError on conflict, and a
   * transient error when the head is no longer `expectedHeadSha`.
   */
  updatePullRequestBranch(params: {
    number: number;
    expectedHeadSha: string;
  }): Promise<'updating' | 'up_to_date'>;
  /** GET /repos/{o}/{r}/pulls/{n}/files (all pages): the paths, a renamed file's old path too. */
  listPullRequestFiles(number: number): Promise<string[]>;
  /** GET /repos/{o}/{r}/pulls/{n}/reviews (all pages): each reviewer's latest decisive review. */
  listReviews(number: number): Promise<{ approvedBy: string[]; changesRequestedBy: string[] }>;
  /** Check runs and commit statuses on a commit, as the engine sees them (a status is a check). */
  listChecks(sha: string): Promise<CheckReport[]>;
  /** GET /repos/{o}/{r}/commits/{sha}/pulls: the open pull requests whose head is `sha`. */
  listPullRequestsForCommit(sha: string): Promise<number[]>;
  /**
   * Create or update the check run named `name` on `headSha` (found by name, and by the app's id
   * when the client knows it, so running twice updates one run).
   */
  upsertCheckRun(params: {
    name: string;
    headSha: string;
    status: 'queued' | 'in_progress' | 'completed';
    conclusion: 'success' | 'failure' | 'neutral' | 'cancelled' | null;
    title: string;
    summary: string;
  }): Promise<void>;
  /** POST /repos/{o}/{r}/issues/{n}/comments. */
  createComment(params: { number: number; body: string }): Promise<void>;
  /** GET /repos/{o}/{r}/issues/{n}/comments (all pages), oldest first. */
  listComments(number: number): Promise<{ id: number; body: string }[]>;
  /** POST /repos/{o}/{r}/issues/comments/{id}/reactions (GitHub answers 200 for a repeat). */
  addReaction(params: {
    commentId: number;
    content: '+1' | '-1' | 'eyes' | 'rocket' | 'confused';
  }): Promise<void>;
  /** GET /repos/{o}/{r}/collaborators/{user}/permission. */
  getPermission(login: string): Promise<'admin' | 'maintain' | 'write' | 'triage' | 'read' | 'none'>;
  /** GET /repos/{o}/{r}/contents/{path}?ref=: the decoded text, or null when there is no such file. */
  getFileText(params: { path: string; ref: string }): Promise<string | null>;
  /** Best effort: cancel the GitHub Actions runs on `sha`. */
  cancelWorkflowRuns(sha: string): Promise<void>;
}

export interface PullRequestInfo {
  number: number;
  title: string;
  body: string;
  url: string;
  state: 'open' | 'closed';
  merged: boolean;
  mergeSha: string | null;
  draft: boolean;
  author: { id: number; login: string; type: 'User' | 'Organization' | 'Bot' | 'Mannequin' | 'Enterprise' };
  base: string;
  head: string;
  headSha: string;
  labels: LabelFact[];
}
