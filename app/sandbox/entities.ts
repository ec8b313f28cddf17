import type { CommitGraph } from './commit-graph.ts';
import type { Behaviour } from './faults.ts';
import type { MergeLanding } from './merge-landing.ts';

/*
 * What the simulated GitHub holds: plain records that the operations change and the REST and
 * webhook renderers read. Times are milliseconds on the sandbox clock.
 */

export type AccountType = 'User' | 'Bot' | 'Organization';

export interface Account {
  id: number;
  login: string;
  type: AccountType;
  name: string;
}

/** A repository role, from the most to the least powerful. */
export type Role = 'admin' | 'maintain' | 'write' | 'triage' | 'read';

export interface GithubAppInfo {
  id: number;
  slug: string;
  name: string;
  owner: Account;
  /** The bot account that acts for the app's installations (`trainyard[bot]`). */
  bot: Account;
}

export interface Installation {
  id: number;
  app: GithubAppInfo;
  account: Account;
  repositoryIds: Set<number>;
  createdAt: number;
}

export type Token =
  | { kind: 'installation'; token: string; installation: Installation; expiresAt: number }
  | { kind: 'user'; token: string; user: Account };

export interface Label {
  id: number;
  name: string;
  /** Hex without `#`. */
  color: string;
  description: string | null;
  default: boolean;
}

export type ReviewState = 'APPROVED' | 'CHANGES_REQUESTED' | 'COMMENTED' | 'DISMISSED';

export interface Review {
  id: number;
  user: Account;
  state: ReviewState;
  body: string;
  commitId: string;
  submittedAt: number;
}

export interface PullRequest {
  id: number;
  number: number;
  title: string;
  body: string;
  user: Account;
  /** Branch names in the same repository (forks are not modelled). */
  head: string;
  headSha: string;
  base: string;
  /** The base branch's sha when the PR was closed; an open PR shows the branch's current sha. */
  closedBaseSha: string | null;
  draft: boolean;
  state: 'open' | 'closed';
  merged: boolean;
  mergedAt: number | null;
  mergedBy: Account | null;
  mergeCommitSha: string | null;
  closedAt: number | null;
  createdAt: number;
  updatedAt: number;
  /** Label names in the order they were added. */
  labels: string[];
  reviews: Review[];
}

export type ReactionContent = '+1' | '-1' | 'laugh' | 'confused' | 'heart' | 'hooray' | 'rocket' | 'eyes';

export interface Reaction {
  id: number;
  user: Account;
  content: ReactionContent;
  createdAt: number;
}

export interface IssueComment {
  id: number;
  issueNumber: number;
  body: string;
  user: Account;
  /** The app whose installation token wrote it. */
  app: GithubAppInfo | null;
  createdAt: number;
  updatedAt: number;
  reactions: Reaction[];
}

export type CheckStatus = 'queued' | 'in_progress' | 'completed';
export type CheckConclusion =
  | 'success'
  | 'failure'
  | 'neutral'
  | 'cancelled'
  | 'skipped'
  | 'timed_out'
  | 'action_required';

export interface CheckRun {
  id: number;
  app: GithubAppInfo;
  suiteId: number;
  headSha: string;
  name: string;
  status: CheckStatus;
  conclusion: CheckConclusion | null;
  startedAt: number | null;
  completedAt: number | null;
  title: string | null;
  summary: string | null;
  text: string | null;
  detailsUrl: string | null;
  externalId: string | null;
}

export interface CheckSuite {
  id: number;
  app: GithubAppInfo;
  headSha: string;
  headBranch: string | null;
  createdAt: number;
  updatedAt: number;
  /** Whether `check_suite.completed` went out for the current set of runs. */
  completionAnnounced: boolean;
  runIds: number[];
}

export type StatusState = 'error' | 'failure' | 'pending' | 'success';

export interface CommitStatus {
  id: number;
  sha: string;
  state: StatusState;
  context: string;
  description: string | null;
  targetUrl: string | null;
  creator: Account;
  createdAt: number;
}

export interface WorkflowRun {
  id: number;
  name: string;
  runNumber: number;
  headSha: string;
  headBranch: string | null;
  event: 'push' | 'pull_request';
  suiteId: number;
  actor: Account;
  checkRunIds: number[];
  createdAt: number;
  updatedAt: number;
  startedAt: number | null;
}

export interface Repository {
  id: number;
  owner: Account;
  name: string;
  private: boolean;
  defaultBranch: string;
  createdAt: number;
  pushedAt: number;
  graph: CommitGraph;
  /** Branch name → sha. */
  branches: Map<string, string>;
  pulls: Map<number, PullRequest>;
  /** Issue and PR numbers share one sequence, as on GitHub. */
  nextNumber: number;
  /** Keyed by lower-cased name: GitHub's label names are case-insensitive. */
  labels: Map<string, Label>;
  collaborators: Map<string, Role>;
  comments: Map<number, IssueComment>;
  checkSuites: Map<number, CheckSuite>;
  checkRuns: Map<number, CheckRun>;
  /** Check suites by `<app id>:<head sha>`, and run ids by head sha: lookups stay cheap as runs pile up. */
  checkSuiteIndex: Map<string, number>;
  checkRunsBySha: Map<string, number[]>;
  statuses: CommitStatus[];
  workflowRuns: Map<number, WorkflowRun>;
  /** PUT /pulls/{n}/merge. */
  mergeBehaviour: Behaviour;
  /** What a squash or merge of a pull request lands (a fault can land a wrong tree: merge-landing.ts). */
  mergeLanding: MergeLanding;
  /** Ref writes: create, move or delete a branch, and POST /merges. */
  pushBehaviour: Behaviour;
  /** PUT /pulls/{n}/update-branch. */
  updateBranchBehaviour: Behaviour;
  /** Every REST request on this repository, before anything else (an outage). */
  requestBehaviour: Behaviour;
}

export const ZERO_SHA = '0000000000000000000000000000000000000000';
