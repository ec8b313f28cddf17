import type { z } from 'zod';
import type * as batches from './batch.schema.ts';
import type * as schema from './state.schema.ts';

/*
 * The engine's state types, inferred from the schemas the store parses it with (state.schema.ts
 * and batch.schema.ts, where each field is described): one definition of the stored format, and
 * no cast between a parsed state and the engine's.
 */

/**
 * The engine's state: plain JSON (saved as jsonb), unions rather than bags of optional fields.
 * Status codes, positions and ETAs are derived from it, never stored. Where a queued pull request
 * is — waiting or embarked — is not stored either: it is embarked in a lane when one of the
 * lane's batches holds it, waiting otherwise.
 */
export type QueueState = z.infer<typeof schema.queueStateShapeSchema>;

/** Everything the engine needs to know about a pull request, as of now. */
export type PullRequestSnapshot = z.infer<typeof schema.pullRequestSnapshotSchema>;
export type GithubAccount = z.infer<typeof schema.accountSchema>;
export type AccountType = GithubAccount['type'];
export type LabelFact = z.infer<typeof schema.labelSchema>;

/** One stay in the queue per queued pull request. */
export type Session = z.infer<typeof schema.sessionSchema>;
/** Time spent held (by a freeze or a schedule): closed periods plus the open one. */
export type HeldTime = z.infer<typeof schema.heldTimeSchema>;

/** The batches of one (base branch, partition), head first. */
export type Lane = z.infer<typeof batches.laneSchema>;
/** A batch and its phase: in trial, being bisected, or merging (pull request by pull request). */
export type Batch = z.infer<typeof batches.batchSchema>;
/** A batch's identity without its phase: to move it into another phase without stale fields. */
export type BatchCommon = z.infer<typeof batches.batchCommonSchema>;
/** The life of one test (a batch's, or a bisection sub-batch's). */
export type Trial = z.infer<typeof batches.trialSchema>;
export type TrialPhase = Trial['phase'];
/** One CI run on a tested commit. */
export type TestRun = z.infer<typeof batches.testRunSchema>;
/** A check on a tested commit, as CI reported it. */
export type CheckReport = z.infer<typeof batches.checkReportSchema>;
/** Cumulative-prefix bisection of a failed batch. */
export type Bisection = z.infer<typeof batches.bisectionSchema>;
/** A probe of a bisection: the first `length` pull requests of the bisected batch. */
export type SubBatch = z.infer<typeof batches.subBatchSchema>;

export type BaseBranch = z.infer<typeof schema.baseBranchSchema>;
export type Pause = z.infer<typeof schema.pauseSchema>;
export type Freeze = z.infer<typeof schema.freezeSchema>;
export type FreezeRecord = z.infer<typeof schema.freezeRecordSchema>;
export type PublishedCheckRun = z.infer<typeof schema.publishedCheckRunSchema>;
/** An effect the shell reported failed for good (effect_failed), and when. */
export type FailedEffect = z.infer<typeof schema.failedEffectSchema>;
