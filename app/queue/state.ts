import type { TrainyardConfig } from '../config/config.schema.ts';
import type { ConfigError } from '../config/config-error.ts';
import type { CheckReport, Freeze, PullRequestSnapshot } from './inputs.ts';

/**
 * The engine's state: plain JSON (saved as jsonb), unions rather than bags of optional fields.
 * Status codes, positions and ETAs are derived from it, never stored.
 *
 * Where a queued pull request is — waiting or embarked — is not stored either: it is embarked in
 * a lane when one of the lane's batches holds it, waiting otherwise.
 */
export interface QueueState {
  schemaVersion: 1;
  /** The last valid configuration. */
  config: TrainyardConfig;
  /** Open pull requests the engine has heard of, by number: commands only carry a number. */
  pullRequests: Record<string, PullRequestSnapshot>;
  /** One stay in the queue per queued pull request, by number. */
  sessions: Record<string, Session>;
  /** One lane per (base branch, partition), sorted by base then partition. */
  lanes: Lane[];
  bases: Record<string, BaseBranch>;
  pause: Pause;
  freezes: FreezeRecord[];
  /** Durations (seconds) of the most recent passing CI runs, oldest first: the ETA's input. */
  ciDurations: number[];
  /** Results of the most recent batch tests (true: passed), oldest first: the observed failure rate. */
  ciResults: boolean[];
  /** Last emitted gauge values, so `action.queue.change` / `checks.change` go out on change only. */
  gauges: { sizes: Record<string, number>; running: Record<string, number> };
  /**
   * The "Trainyard" check run last published per queued pull request (by number), to publish on
   * change only. Kept apart from sessions so that publishing does not touch them.
   */
  checkRuns: Record<string, PublishedCheckRun>;
  /**
   * Why the newest `.github/trainyard.yml` was rejected (the last valid `config` is used), until
   * a valid one comes: every queued pull request's check run shows it. Absent when valid.
   */
  configErrors?: ConfigError[];
  /** Effects that failed for good, oldest first, the most recent few (effect-failures.ts). Absent when none. */
  failedEffects?: FailedEffect[];
  /** The wake-up last asked for (one timer per repository: the earliest deadline). */
  wakeUpAt: string | null;
  counters: { session: number; batch: number };
}

/** An effect the shell reported failed for good (effect_failed), and when. */
export interface FailedEffect {
  key: string;
  effect: string;
  pullRequests: number[];
  message: string;
  /** RFC 3339. */
  at: string;
}

export interface Session {
  number: number;
  sessionId: string;
  queueName: string;
  base: string;
  /** Partition names, in partition rule order; `__default__` without partition rules. */
  partitions: string[];
  priority: number;
  priorityAlias: string;
  priorityRuleName: string | null;
  allowChecksInterruption: boolean;
  queuedAt: string;
  /** Entry order: breaks ties between equal priority and equal `queuedAt`. */
  seq: number;
  headSha: string;
  /** CONFLICT_WITH_PULL_AHEAD: waits until all of these have left the queue. */
  waitingForAhead: number[] | null;
  /**
   * With bisect_aside: passed a test on top of the pull requests ahead, then went back to waiting
   * because the queue moved on (app/queue/aside.ts). It embarks at once, at the front of its
   * batch (see countLeadingCleared).
   */
  cleared?: true;
  /**
   * With bisect_aside, for a pull request in several partitions: it is a suspect (in a batch
   * aside) and held in its other lanes. When it goes back to waiting, it takes its place in the
   * queue order as of then (`orderedAt`), behind whoever overtook it, so that every lane keeps
   * one order (a lane waiting on another that waits on it would never merge).
   */
  suspect?: true;
  orderedAt?: string;
  /** Absent until the pull request is first held: most never are (a third of a session's JSON). */
  freeze?: HeldTime;
  schedule?: HeldTime;
}

export interface PublishedCheckRun {
  /** null: publish again at the next step (refresh, configuration error). */
  title: string | null;
  /** Grows with every publication: part of the effect key. */
  version: number;
}

/** Time spent held (by a freeze or a schedule): closed periods plus the open one. */
export interface HeldTime {
  seconds: number;
  since: string | null;
}

export interface Lane {
  base: string;
  partition: string;
  /** Head first: each batch is tested on the base plus every batch ahead of it. */
  batches: Batch[];
}

export interface BaseBranch {
  sha: string | null;
  /** Commits the engine's own merges produced: a move to one of them is not external. */
  ownShas: string[];
  /**
   * Moves seen while one of our merges was in flight, to commits not (yet) known as ours: GitHub's
   * push may come before the merge's answer. Once no merge is in flight, those that turned out
   * not to be ours are external moves.
   */
  unconfirmed?: string[];
}

export type Pause = { paused: false } | { paused: true; reason: string; since: string };

export interface FreezeRecord {
  freeze: Freeze;
}

/** One CI run on a tested commit. */
export interface TestRun {
  sha: string;
  /** The draft PR the checks run on; null when tested in place. */
  draftPullRequest: number | null;
  startedAt: string;
  checks: CheckReport[];
}

/**
 * The life of one test (a batch's, or a bisection sub-batch's). `attempt` grows with every new
 * test branch (retry, draft PR re-creation), so late answers for older attempts are recognised.
 */
export type Trial =
  | { phase: 'waiting' }
  | { phase: 'preparing'; attempt: number; failures: number; retryAt: string | null }
  | { phase: 'testing'; attempt: number; run: TestRun }
  | { phase: 'passed'; attempt: number; run: TestRun; endedAt: string }
  | { phase: 'failed'; attempt: number; run: TestRun; endedAt: string; timedOut: boolean };

export type TrialPhase = Trial['phase'];

export interface BatchCommon {
  id: string;
  /** `batch-<n>`, unique in the repository's history: shown in status and timelines. */
  name: string;
  queueName: string;
  numbers: number[];
  /** Pull requests of the batches ahead at creation: the tested commit is base + these + own. */
  parentNumbers: number[];
  parentIds: string[];
  /** The base commit known at creation (null when not known yet). */
  baseSha: string | null;
  mode: 'draft' | 'in_place';
  createdAt: string;
  /** Checks retries used (max_checks_retries). */
  retries: number;
  /**
   * With `bisect_aside`: a batch was built past this one (without it) while it stepped aside, so
   * the base may move under it and it must never merge; its innocent pull requests wait again.
   */
  overtaken?: true;
}

export type Batch = BatchCommon & BatchState;

export type BatchState =
  | { phase: 'trial'; trial: Exclude<Trial, { phase: 'waiting' }> }
  | { phase: 'bisecting'; failedRun: TestRun; bisection: Bisection }
  /** Passed at the head: merging pull request by pull request (`inFlight`: asked, not answered). */
  | { phase: 'merging'; run: TestRun; merged: number[]; inFlight: number[] };

/**
 * Cumulative-prefix bisection of a failed batch: prefix `lo` is known to pass (0: nothing),
 * prefix `hi` is known to fail (or, = length + 1, nothing is known to fail: bisect_aside goes on
 * after a culprit). Each round probes prefixes strictly between them.
 */
export interface Bisection {
  depth: number;
  lo: number;
  hi: number;
  /** The sub-batch that showed prefix `lo` passes, if any: it merges when bisection ends. */
  passedPrefix: SubBatch | null;
  subBatches: SubBatch[];
}

export interface SubBatch {
  id: string;
  name: string;
  /** Tests the first `length` pull requests of the bisected batch. */
  length: number;
  trial: Trial;
}
