import type { QueueReason } from '../../shared/schemas/queue-reason.schema.ts';
import type { ConfigError } from '../config/config-error.ts';
import type { CommandReceived } from './inputs.ts';
import type { PositionBand } from './position-band.ts';

/**
 * What the engine asks the shell to do: imperative commands. Each has a stable `key` built from
 * its kind and subject, so the outbox runs it at least once and running it twice does no harm.
 * Results come back as inputs (test_branch_prepared, merge_failed, …).
 */
export type Effect =
  | PrepareTestBranch
  | UpdatePrInPlace
  | CloseDraftPr
  | MergePr
  | FastForwardBase
  | VerifyMerge
  | PublishCheckRun
  | PostComment
  | ReactToComment
  | CancelChecks
  | ReadPullRequest
  | ScheduleWakeUp;

interface Keyed {
  /** Stable identity, e.g. `prepare_test_branch:<batchId>:<attempt>`. */
  key: string;
}

/**
 * Create `branch` from the base's head plus each pull request's head merged in order, then
 * (with `draftPullRequest`) open a draft PR from it so CI runs. Answer with
 * test_branch_prepared or test_branch_failed.
 */
export interface PrepareTestBranch extends Keyed {
  type: 'prepare_test_branch';
  batchId: string;
  attempt: number;
  branch: string;
  base: string;
  /** When set, build on this commit instead of the base's head (a batch behind others). */
  baseSha: string | null;
  pullRequests: { number: number; headSha: string }[];
  draftPullRequest: DraftPullRequestFacts | null;
}

/**
 * What a batch's draft pull request tells of; the shell words its title and body
 * (app/github/render/test-branch.ts).
 */
export interface DraftPullRequestFacts {
  /** The batch's name, or the sub-batch's during a bisection. */
  name: string;
  /** The pull requests this batch (or sub-batch) tests, without those of the batches it is built on. */
  numbers: number[];
  queueName: string;
}

/** Test a single PR on itself: bring it up to date with its base. Answers like prepare_test_branch. */
export interface UpdatePrInPlace extends Keyed {
  type: 'update_pr_in_place';
  batchId: string;
  attempt: number;
  number: number;
  base: string;
}

/** Close the batch's draft PR (if any) and delete its test branch. */
export interface CloseDraftPr extends Keyed {
  type: 'close_draft_pr';
  batchId: string;
  branch: string;
  draftPullRequest: number | null;
}

/** Merge a pull request into its base; refuse if its head is no longer `expectedHeadSha`. */
export interface MergePr extends Keyed {
  type: 'merge_pr';
  number: number;
  method: 'merge' | 'squash' | 'rebase';
  expectedHeadSha: string;
  batchId: string;
}

/** Move the base branch to the tested commit (merge_method fast-forward). */
export interface FastForwardBase extends Keyed {
  type: 'fast_forward_base';
  base: string;
  sha: string;
  numbers: number[];
  batchId: string;
}

/**
 * Read the base branch once a batch's merges are done (merge integrity, integrity.ts): its head
 * commit, tree and parents; and the tested commit's tree when `expectedTree` is null. Answer
 * with base_tree_read.
 */
export interface VerifyMerge extends Keyed {
  type: 'verify_merge';
  base: string;
  batchId: string;
  /** The commit whose tree the base must have now (the tested commit, for a whole batch). */
  testedSha: string;
  /** Its tree when the engine knows it; null: read it. */
  expectedTree: string | null;
}

/**
 * The "Trainyard" check run on a pull request's head: position, batch, ETA, why it waits. The
 * engine gives the facts and the shell words the title and the summary
 * (app/github/render/check-run.ts). A queued pull request's check run is published again when
 * the facts its title shows change (check-runs.ts).
 */
export interface PublishCheckRun extends Keyed {
  type: 'publish_check_run';
  number: number;
  headSha: string;
  status: 'queued' | 'in_progress' | 'completed';
  conclusion: 'success' | 'failure' | 'neutral' | 'cancelled' | null;
  details: CheckRunDetails;
}

export type CheckRunDetails = QueuedDetails | LeftDetails | ConfigRejectedDetails | IntegrityFailedDetails;

export type BatchPhase = 'preparing' | 'testing' | 'passed' | 'failed' | 'bisecting' | 'merging';

/** In the queue: waiting, or embarked in a batch. */
export interface QueuedDetails {
  kind: 'queued';
  queueName: string;
  priorityAlias: string;
  partitions: string[];
  /** Place in its first partition's lane (embarked pull requests first), as shown (position-band.ts). */
  position: PositionBand;
  /** The batch it is tested in (`merged`: this pull request is merged already); null while it waits. */
  batch: {
    name: string;
    phase: BatchPhase;
    pullRequests: number[];
    merged: boolean;
    /** With mode adaptive: how many batches its lane tested at once when it was built, and why. */
    laneDepth?: { depth: number; queued: number; perCheck: number; ceiling: number };
  } | null;
  paused: boolean;
  /** Waits for these pull requests ahead to leave (it conflicts with them); null otherwise. */
  waitingFor: number[] | null;
  /** Of its batch, RFC 3339; null while it waits, while paused or frozen. */
  estimatedMergeAt: string | null;
  /** The p90 of the same estimate (eta.ts); absent in check runs published before it existed. */
  estimatedMergeAtP90?: string | null;
  /** Why it is where it is (reasons.ts); absent in check runs published before they existed. */
  reasons?: QueueReason[];
}

/** Out of the queue: merged, or left with a leave code and what the event log says of why. */
export interface LeftDetails {
  kind: 'left';
  merged: boolean;
  code: string;
  detail: string | null;
  /** What to do next (leave-reason.ts); absent in check runs published before it existed. */
  nextAction?: string | null;
}

/**
 * Merged, but the base's tree after its batch merged is not the tree the queue tested: the queue
 * paused itself (integrity.ts).
 */
export interface IntegrityFailedDetails {
  kind: 'integrity_failed';
  batch: string;
  base: string;
  /** The batch's pull requests that merged. */
  pullRequests: number[];
  testedSha: string;
  expectedTree: string | null;
  landedSha: string;
  landedTree: string;
  partial: boolean;
}

/** The new configuration is invalid: the last valid one is used. The title still says where it is. */
export interface ConfigRejectedDetails {
  kind: 'config_rejected';
  errors: ConfigError[];
  queued: QueuedDetails;
}

/** A reply to a comment addressed to the app, as facts: the shell words it (app/github/render/comment.ts). */
export interface PostComment extends Keyed {
  type: 'post_comment';
  number: number;
  reply: Reply;
}

export type Reply =
  /** A command from someone without write access. */
  | { kind: 'not_authorized'; login: string; command: CommandReceived['command'] }
  /** `dequeue` of a pull request that is not queued. */
  | { kind: 'not_in_queue' }
  /** `queue` or `requeue` of a pull request queued already. */
  | { kind: 'already_queued'; queueName: string }
  /** `queue` or `requeue` refused. */
  | { kind: 'not_queued'; refusal: EntryRefusal }
  /** A comment the shell could not read as a command: its words (command_not_understood), posted as they are. */
  | { kind: 'command_not_understood'; text: string };

/** Why a pull request may not enter the queue. */
export type EntryRefusal =
  | { kind: 'unknown_rule'; queueName: string; rules: string[] }
  /** Each queue rule tried, with the labels of its conditions that are not met. */
  | { kind: 'conditions_not_met'; rules: { name: string; unmet: string[] }[] }
  /** Nothing to try: no queue rule accepts pull requests automatically. */
  | { kind: 'no_automatic_rule' }
  /** Replies queued by versions that did not read an unseen pull request (read_pull_request). */
  | { kind: 'pull_request_not_seen' }
  /** GitHub says it is closed, or it is one of the app's own draft pull requests. */
  | { kind: 'pull_request_not_open' }
  /** GitHub did not answer the read of a pull request the engine had not seen. */
  | { kind: 'pull_request_unreadable'; reason: string };

export interface ReactToComment extends Keyed {
  type: 'react_to_comment';
  commentId: number;
  content: '+1' | '-1' | 'eyes' | 'rocket' | 'confused';
}

/** Stop CI on a commit that is no longer worth testing (best effort). */
export interface CancelChecks extends Keyed {
  type: 'cancel_checks';
  batchId: string;
  sha: string;
}

/**
 * A command came for a pull request the engine has not seen (opened before the app was
 * installed, or its webhooks lost): read it from GitHub, step its state, then `command` again
 * with `read` (also when the read fails for good, with the failure).
 */
export interface ReadPullRequest extends Keyed {
  type: 'read_pull_request';
  number: number;
  command: CommandReceived;
}

/** Feed a `tick` back at `at` (RFC 3339); a later wake-up with the same key replaces it. */
export interface ScheduleWakeUp extends Keyed {
  type: 'schedule_wake_up';
  at: string;
}
