import type { PullRequestTruth } from './ci-model.ts';

/**
 * A merge queue policy as the simulator sees it: told when pull requests are queued, it starts
 * CI runs, merges and ejects through the world. Trainyard's engine is one policy (through the
 * same inputs and effects the GitHub shell uses); the baselines are others.
 */
export interface QueuePolicy {
  readonly name: string;
  /** A bound rather than a queue: its runs do not wait for the C runners. */
  readonly unlimitedCi?: boolean;
  start(world: QueueWorld): void;
  /** A pull request was queued now (again, after a requeue). */
  onQueued(pr: QueuedPullRequest): void;
}

/** What any queue can see about a queued pull request (not its truth). */
export interface QueuedPullRequest {
  number: number;
  hotfix: boolean;
  files: readonly string[];
  /** Virtual time it was queued this time (ms). */
  queuedAt: number;
}

export interface RunRequest {
  /** Pull requests tested, in merge order, on top of the base (ones already in it are skipped). */
  numbers: readonly number[];
  /** Base version to build on (BaseHistory.version when the run was planned); default: now. */
  baseVersion?: number;
  /** Called when the run ends (not when cancelled). */
  onDone: (result: RunResult) => void;
}

export interface RunResult {
  passed: boolean;
  durationMs: number;
}

export interface RunHandle {
  readonly id: number;
}

export interface QueueWorld {
  /** Virtual time (ms since the start). */
  now(): number;
  /** The base branch's version: how many pull requests merged into it. */
  baseVersion(): number;
  /** Median CI duration T (what a team would configure its queue from). */
  readonly medianCiMs: number;
  startRun(request: RunRequest): RunHandle;
  /** Cancels a run; returns the runner time it used (ms; 0 if it had not started or had ended). */
  cancelRun(handle: RunHandle): number;
  /** Merges a pull request into the base now (it leaves the queue merged). */
  merge(number: number): void;
  /** Removes a pull request from the queue without merging it. */
  eject(number: number, reason: string): void;
  /** Calls `fire` at virtual time `at` (≥ now). */
  wakeAt(at: number, fire: () => void): void;
  /**
   * The hidden truth about a pull request. Only the oracle may read it: every other policy
   * learns only from CI results.
   */
  truth(number: number): PullRequestTruth;
}
