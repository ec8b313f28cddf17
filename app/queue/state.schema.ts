import { z } from 'zod';
import { checkRunFactSchema } from '../config/conditions/pull-request-facts.ts';
import type { TrainyardConfig } from '../config/config.schema.ts';
import { configErrorSchema } from '../config/config-error.ts';
import { iso, laneSchema, prNumber, uuid } from './batch.schema.ts';
import { mergeIntegritySchema } from './integrity.schema.ts';
import type { QueueState } from './state.ts';
import { findInconsistencies } from './state-consistency.ts';

/*
 * The stored state's schema, and the source of its types (state.ts infers them from here;
 * batches and lanes are in batch.schema.ts): the store parses what it loads and rejects what the
 * engine could never have produced — an unknown pull request in a batch, a pull request twice in
 * a lane, a batch in the wrong lane (state-consistency.ts). The state is plain JSON (saved as
 * jsonb), unions rather than bags of optional fields; an optional field is absent when it does
 * not apply.
 */

const configSchema = z.custom<TrainyardConfig>(
  (value) =>
    typeof value === 'object' &&
    value !== null &&
    Array.isArray((value as { queue_rules?: unknown }).queue_rules) &&
    Array.isArray((value as { priority_rules?: unknown }).priority_rules) &&
    Array.isArray((value as { partition_rules?: unknown }).partition_rules) &&
    typeof (value as { merge_queue?: unknown }).merge_queue === 'object',
  { message: 'expected a normalized Trainyard configuration' },
);

export const accountSchema = z.object({
  id: z.int(),
  login: z.string(),
  type: z.enum(['User', 'Organization', 'Bot', 'Mannequin', 'Enterprise']),
});

export const labelSchema = z.object({
  id: z.int(),
  name: z.string(),
  /** Hex colour without `#`. */
  color: z.string(),
  default: z.boolean(),
});

// The records with one entry per pull request use z.object (not strict): it parses much faster
// (the store loads them at every step) and an unknown key cannot make the state inconsistent.
/** Everything the engine needs to know about a pull request, as of now. */
export const pullRequestSnapshotSchema = z.object({
  number: prNumber,
  title: z.string(),
  body: z.string(),
  url: z.string(),
  author: accountSchema,
  /** Base branch name, e.g. `main`. */
  base: z.string(),
  /** Head branch name. */
  head: z.string(),
  headSha: z.string(),
  draft: z.boolean(),
  labels: z.array(labelSchema),
  files: z.array(z.string()),
  /** Check runs and statuses on the head commit; a repeated name: the last one wins. */
  checkRuns: z.array(checkRunFactSchema),
  approvedReviewsBy: z.array(z.string()),
  changesRequestedReviewsBy: z.array(z.string()),
});

/** Time spent held (by a freeze or a schedule): closed periods plus the open one. */
export const heldTimeSchema = z.object({ seconds: z.int().min(0), since: iso.nullable() });

/** One stay in the queue of a queued pull request. */
export const sessionSchema = z.object({
  number: prNumber,
  sessionId: uuid,
  queueName: z.string(),
  base: z.string(),
  /** Partition names, in partition rule order; DEFAULT_PARTITION_NAME without partition rules. */
  partitions: z.array(z.string()).min(1),
  priority: z.int(),
  priorityAlias: z.string(),
  priorityRuleName: z.string().nullable(),
  allowChecksInterruption: z.boolean(),
  queuedAt: iso,
  /** Entry order: breaks ties between equal priority and equal `queuedAt`. */
  seq: z.int().min(1),
  headSha: z.string(),
  /** CONFLICT_WITH_PULL_AHEAD: waits until all of these have left the queue. */
  waitingForAhead: z.array(prNumber).min(1).nullable(),
  /**
   * With bisect_aside: passed a test on top of the pull requests ahead, then went back to waiting
   * because the queue moved on (app/queue/aside.ts). It embarks at once, at the front of its
   * batch (see countLeadingCleared).
   */
  cleared: z.literal(true).optional(),
  /**
   * With bisect_aside, for a pull request in several partitions: it is a suspect (in a batch
   * aside) and held in its other lanes. When it goes back to waiting, it takes its place in the
   * queue order as of then (`orderedAt`), behind whoever overtook it, so that every lane keeps
   * one order (a lane waiting on another that waits on it would never merge).
   */
  suspect: z.literal(true).optional(),
  orderedAt: iso.optional(),
  /** Absent until the pull request is first held: most never are (a third of a session's JSON). */
  freeze: heldTimeSchema.optional(),
  schedule: heldTimeSchema.optional(),
});

export const baseBranchSchema = z.strictObject({
  sha: z.string().nullable(),
  /** Commits the engine's own merges produced: a move to one of them is not external. */
  ownShas: z.array(z.string()),
  /**
   * Moves seen while one of our merges was in flight, to commits not (yet) known as ours: GitHub's
   * push may come before the merge's answer. Once no merge is in flight, those that turned out
   * not to be ours are external moves.
   */
  unconfirmed: z.array(z.string()).min(1).optional(),
});

export const pauseSchema = z.discriminatedUnion('paused', [
  z.strictObject({ paused: z.literal(false) }),
  z.strictObject({
    paused: z.literal(true),
    reason: z.string(),
    since: iso,
    /** Who paused it last (the reasons name them); absent in states stored before it was kept. */
    by: z.string().optional(),
  }),
]);

export const freezeSchema = z.strictObject({
  id: z.string(),
  reason: z.string(),
  /** RFC 3339. */
  start: iso,
  end: iso.nullable(),
  timezone: z.string(),
  /** Condition strings, parsed by app/config; empty matches every pull request. */
  matchingConditions: z.array(z.string()),
  excludeConditions: z.array(z.string()),
});

export const freezeRecordSchema = z.strictObject({ freeze: freezeSchema });

export const publishedCheckRunSchema = z.object({
  /**
   * The headline last published: the facts the check run's title shows, as one string
   * (check-runs.ts), compared to tell whether to publish again; null: publish again at the next
   * step (refresh, configuration error). Named `title` because states keep it across versions
   * (it held the worded title before the shell did the wording).
   */
  title: z.string().nullable(),
  /** Grows with every publication: part of the effect key. */
  version: z.int().min(1),
});

/** An effect the shell reported failed for good (effect_failed), and when. */
export const failedEffectSchema = z.strictObject({
  key: z.string(),
  effect: z.string(),
  pullRequests: z.array(prNumber),
  message: z.string(),
  /** RFC 3339. */
  at: iso,
});

/**
 * The engine's state. Status codes, positions and ETAs are derived from it, never stored. Where
 * a queued pull request is — waiting or embarked — is not stored either: it is embarked in a
 * lane when one of the lane's batches holds it, waiting otherwise. Its consistency is checked
 * apart (queueStateSchema).
 */
export const queueStateShapeSchema = z.strictObject({
  schemaVersion: z.literal(1),
  /** The last valid configuration. */
  config: configSchema,
  /** Open pull requests the engine has heard of, by number: commands only carry a number. */
  pullRequests: z.record(z.string(), pullRequestSnapshotSchema),
  /** One stay in the queue per queued pull request, by number. */
  sessions: z.record(z.string(), sessionSchema),
  /** One lane per (base branch, partition), sorted by base then partition. */
  lanes: z.array(laneSchema),
  bases: z.record(z.string(), baseBranchSchema),
  pause: pauseSchema,
  freezes: z.array(freezeRecordSchema),
  /** Durations (seconds) of the most recent passing CI runs, oldest first: the ETA's input. */
  ciDurations: z.array(z.number().positive()),
  /** Results of the most recent batch tests (true: passed), oldest first: the observed failure rate. */
  ciResults: z.array(z.boolean()),
  /**
   * With mode adaptive: how retries of failed single pull requests ended (weights decay with each
   * new one, so the estimate follows the repository's CI). Absent until the first such retry.
   */
  soloRetries: z.strictObject({ passed: z.number().min(0), failed: z.number().min(0) }).optional(),
  /** Last emitted gauge values, so `action.queue.change` / `checks.change` go out on change only. */
  gauges: z.strictObject({
    sizes: z.record(z.string(), z.int().min(0)),
    running: z.record(z.string(), z.int().min(0)),
  }),
  /**
   * The "Trainyard" check run last published per queued pull request (by number), to publish on
   * change only. Kept apart from sessions so that publishing does not touch them.
   */
  checkRuns: z.record(z.string(), publishedCheckRunSchema),
  /**
   * Why the newest `.github/trainyard.yml` was rejected (the last valid `config` is used), until
   * a valid one comes: every queued pull request's check run shows it. Absent when valid.
   */
  configErrors: z.array(configErrorSchema).optional(),
  /** Effects that failed for good, oldest first, the most recent few (effect-failures.ts). Absent when none. */
  failedEffects: z.array(failedEffectSchema).optional(),
  /** Merge integrity: batches whose landed tree is being verified, and the recent verifications (integrity.ts). Absent before the first merge. */
  mergeIntegrity: mergeIntegritySchema.optional(),
  /** The wake-up last asked for (one timer per repository: the earliest deadline). */
  wakeUpAt: iso.nullable(),
  counters: z.strictObject({ session: z.int().min(0), batch: z.int().min(0) }),
});

type ParseResult =
  | { success: true; data: QueueState; error?: undefined }
  | { success: false; data?: undefined; error: z.ZodError };

/**
 * The stored engine state, parsed: its shape, then its consistency (findInconsistencies). Not a
 * zod refinement: one on the whole object takes zod off its fast path, which costs far more than
 * the check itself (figures in docs/decisions/0004-state-consistency-checked-after-the-parse.md).
 */
export const queueStateSchema = {
  safeParse(value: unknown): ParseResult {
    const shaped = queueStateShapeSchema.safeParse(value);
    if (!shaped.success) return { success: false, error: shaped.error };
    const problems = findInconsistencies(shaped.data);
    if (problems.length === 0) return { success: true, data: shaped.data };
    return {
      success: false,
      error: new z.ZodError(problems.map((message) => ({ code: 'custom', message, path: [], input: value }))),
    };
  },
  parse(value: unknown): QueueState {
    const result = queueStateSchema.safeParse(value);
    if (!result.success) throw result.error;
    return result.data;
  },
};

/** The state of a repository the engine has never seen. */
export function initialState(config: TrainyardConfig): QueueState {
  return {
    schemaVersion: 1,
    config,
    pullRequests: {},
    sessions: {},
    lanes: [],
    bases: {},
    pause: { paused: false },
    freezes: [],
    ciDurations: [],
    ciResults: [],
    gauges: { sizes: {}, running: {} },
    checkRuns: {},
    wakeUpAt: null,
    counters: { session: 0, batch: 0 },
  };
}
