import type { Actor } from '../../shared/schemas/event-parts.schema.ts';
import type { TrainyardConfig } from '../config/config.schema.ts';
import type { ConfigError } from '../config/config-error.ts';
import type { CheckReport, Freeze, GithubAccount, PullRequestSnapshot } from './state.ts';

export type { Actor } from '../../shared/schemas/event-parts.schema.ts';
// What the engine is told about pull requests, checks and freezes is what it stores: those types
// are inferred from the state's schema (state.ts); who acted is the events' Actor.
export type {
  AccountType,
  CheckReport,
  Freeze,
  GithubAccount,
  LabelFact,
  PullRequestSnapshot,
} from './state.ts';

/**
 * What the engine is told: past-tense facts. The shell (GitHub webhooks, the outbox executor,
 * the scheduler, the API), the sandbox and the simulator all speak this.
 */
export type QueueInput =
  | PullRequestUpdated
  | PullRequestClosed
  | CommandReceived
  | CommandNotUnderstood
  | ChecksReported
  | TestBranchPrepared
  | TestBranchFailed
  | MergeCompleted
  | MergeFailed
  | BaseBranchMoved
  | BaseBranchDeleted
  | ConfigChanged
  | ConfigRejected
  | PauseSet
  | PauseCleared
  | FreezeSaved
  | FreezeDeleted
  | DequeueRequested
  | RequeueRequested
  | EffectFailed
  | BaseTreeRead
  | Tick;

/** Opened, reopened, edited, labelled, pushed to, reviewed, or its head's checks changed. */
export interface PullRequestUpdated {
  type: 'pull_request_updated';
  pullRequest: PullRequestSnapshot;
}

/** Closed on GitHub; `merged` when merged by anyone (the engine knows whether it was itself). */
export interface PullRequestClosed {
  type: 'pull_request_closed';
  number: number;
  merged: boolean;
  mergeSha: string | null;
}

export interface CommandReceived {
  type: 'command_received';
  number: number;
  command: 'queue' | 'dequeue' | 'requeue' | 'refresh';
  /** `@trainyard queue <rule>`: the queue rule asked for, or null for the first that fits. */
  queueName: string | null;
  author: GithubAccount;
  commentId: number;
  /**
   * The author may run commands (write, maintain or admin permission). A command from anyone
   * else is recorded (its `command.*` event) and answered, and changes nothing.
   */
  authorized: boolean;
  /**
   * Present when the shell read the pull request for this command, the engine not having seen
   * it (read_pull_request): its state was stepped just before. `failure`: why GitHub could not
   * answer; null when it did.
   */
  read?: { failure: string | null };
}

/**
 * A comment addressed to Trainyard that is not a command it knows. The shell words the answer
 * (app/github/render/comment.ts); the engine only posts it, so replies go through one outbox.
 */
export interface CommandNotUnderstood {
  type: 'command_not_understood';
  number: number;
  commentId: number;
  reply: string;
}

/** CI results on a commit the engine asked to test (a test branch head, or a PR tested in place). */
export interface ChecksReported {
  type: 'checks_reported';
  sha: string;
  checks: CheckReport[];
}

/** Effect result: the test branch of a batch exists (and its draft PR, if one was asked for). */
export interface TestBranchPrepared {
  type: 'test_branch_prepared';
  batchId: string;
  attempt: number;
  sha: string;
  draftPullRequest: number | null;
  /**
   * The tree after each pull request was merged into the test branch, in order (null where
   * GitHub did not say); the last is the tested commit's tree. Absent when unknown.
   */
  trees?: (string | null)[];
}

export type TestBranchFailure =
  | 'conflict_with_base'
  | 'conflict_with_pull_request'
  | 'draft_pull_request_creation_failed'
  | 'branch_not_indexed'
  | 'branch_update_failed';

/** Effect result: the test branch could not be made. */
export interface TestBranchFailed {
  type: 'test_branch_failed';
  batchId: string;
  attempt: number;
  reason: TestBranchFailure;
  /** With `conflict_with_*`: the pull request that could not be merged into the branch. */
  pullRequest: number | null;
  message: string;
}

/** Effect result: a pull request was merged (or the base fast-forwarded) by the engine's request. */
export interface MergeCompleted {
  type: 'merge_completed';
  number: number;
  sha: string;
}

/** Effect result: GitHub refused the merge (branch protection, conflict, head moved…). */
export interface MergeFailed {
  type: 'merge_failed';
  number: number;
  reason: string;
}

/** The base branch now points at `sha` (a push: by the engine's merges or by someone else). */
export interface BaseBranchMoved {
  type: 'base_branch_moved';
  branch: string;
  sha: string;
}

export interface BaseBranchDeleted {
  type: 'base_branch_deleted';
  branch: string;
}

/** A new valid `.github/trainyard.yml` on the default branch. */
export interface ConfigChanged {
  type: 'config_changed';
  config: TrainyardConfig;
}

/** A new but invalid configuration: the engine keeps the last valid one and reports these. */
export interface ConfigRejected {
  type: 'config_rejected';
  errors: ConfigError[];
}

export interface PauseSet {
  type: 'pause_set';
  reason: string;
  by: Actor;
}

export interface PauseCleared {
  type: 'pause_cleared';
  by: Actor;
}

export interface FreezeSaved {
  type: 'freeze_saved';
  freeze: Freeze;
  by: Actor;
}

export interface FreezeDeleted {
  type: 'freeze_deleted';
  id: string;
  reason: string;
  by: Actor;
}

/** Someone asked through the API for a queued pull request to leave the queue. */
export interface DequeueRequested {
  type: 'dequeue_requested';
  number: number;
  by: Actor;
}

/**
 * A requeue asked through the API: decided as `@trainyard requeue [rule]` (enter.ts,
 * decideRequeue), by a caller with write access.
 */
export interface RequeueRequested {
  type: 'requeue_requested';
  number: number;
  /** The queue rule asked for, or null for the first that accepts it. */
  queueName: string | null;
  by: Actor;
}

/**
 * An effect the shell could not carry out and will not try again (a permanent GitHub refusal,
 * the app no longer installed): kept for the status, so the failure is not only in a log. An
 * effect whose result the engine waits for also reports its own failure input.
 */
export interface EffectFailed {
  type: 'effect_failed';
  /** The effect's key (`close_draft_pr:<batch id>`, …). */
  key: string;
  /** The effect's type. */
  effect: string;
  /** The pull requests it was about. */
  pullRequests: number[];
  message: string;
}

/**
 * Effect result of verify_merge: the base branch as GitHub has it once a batch's merges are done
 * (its head, that commit's tree and parents). `testedTree` is the tested commit's tree when the
 * effect had to read it (the batch's run did not know it), null otherwise.
 */
export interface BaseTreeRead {
  type: 'base_tree_read';
  batchId: string;
  base: string;
  headSha: string;
  treeSha: string;
  parentShas: string[];
  testedTree: string | null;
}

/** A wake-up the engine asked for is due (or the scheduler's periodic nudge). */
export interface Tick {
  type: 'tick';
}
