import { z } from 'zod';
import { checkRunFactSchema } from '../config/conditions/pull-request-facts.ts';

/*
 * The stored state's batches (part of state.schema.ts): the lanes, their batches, the trials of
 * batches and bisection probes, and the CI runs they record. state.ts infers the types from here.
 */

/** Field types every part of the state uses. */
export const iso = z.iso.datetime({ offset: true });
export const uuid = z.uuid();
export const prNumber = z.int().min(1);

/** A check on a tested commit, as CI reported it. */
export const checkReportSchema = z.strictObject({
  name: z.string(),
  state: checkRunFactSchema.shape.state,
  url: z.string().nullable(),
  description: z.string(),
  avatarUrl: z.string().nullable(),
  startedAt: z.string().nullable(),
  completedAt: z.string().nullable(),
});

/** One CI run on a tested commit. */
export const testRunSchema = z.strictObject({
  sha: z.string(),
  /** The draft PR the checks run on; null when tested in place. */
  draftPullRequest: prNumber.nullable(),
  startedAt: iso,
  checks: z.array(checkReportSchema),
  /**
   * The tree of the test branch after each pull request was merged into it, in batch order (the
   * last is the tested commit's tree): what the base's tree must be once the batch, or a prefix
   * of it, has merged (integrity.ts). Absent when unknown (tested in place).
   */
  trees: z.array(z.string().nullable()).optional(),
  /**
   * The stall doctor's finding (stall.ts): required checks that had not reported on this commit
   * long after CI usually ends, and when that was found. Absent until then; reported once.
   */
  stalled: z.strictObject({ checks: z.array(z.string()).min(1), at: iso }).optional(),
});

const attempt = z.int().min(1);
const preparing = z.strictObject({
  phase: z.literal('preparing'),
  attempt,
  failures: z.int().min(0),
  retryAt: iso.nullable(),
});
const testing = z.strictObject({ phase: z.literal('testing'), attempt, run: testRunSchema });
const passed = z.strictObject({ phase: z.literal('passed'), attempt, run: testRunSchema, endedAt: iso });
const failed = z.strictObject({
  phase: z.literal('failed'),
  attempt,
  run: testRunSchema,
  endedAt: iso,
  timedOut: z.boolean(),
});

/**
 * The life of one test (a batch's, or a bisection sub-batch's). `attempt` grows with every new
 * test branch (retry, draft PR re-creation), so late answers for older attempts are recognised.
 */
export const trialSchema = z.discriminatedUnion('phase', [
  z.strictObject({ phase: z.literal('waiting') }),
  preparing,
  testing,
  passed,
  failed,
]);
const batchTrialSchema = z.discriminatedUnion('phase', [preparing, testing, passed, failed]);

export const subBatchSchema = z.strictObject({
  id: uuid,
  name: z.string(),
  /** Tests the first `length` pull requests of the bisected batch. */
  length: z.int().min(1),
  trial: trialSchema,
});

/**
 * Cumulative-prefix bisection of a failed batch: prefix `lo` is known to pass (0: nothing),
 * prefix `hi` is known to fail (or, = length + 1, nothing is known to fail: bisect_aside goes on
 * after a culprit). Each round probes prefixes strictly between them.
 */
export const bisectionSchema = z.strictObject({
  depth: z.int().min(1),
  lo: z.int().min(0),
  hi: z.int().min(1),
  /** The sub-batch that showed prefix `lo` passes, if any: it merges when bisection ends. */
  passedPrefix: subBatchSchema.nullable(),
  subBatches: z.array(subBatchSchema),
});

/** A batch's identity without its phase. */
const commonShape = {
  id: uuid,
  /** `batch-<n>`, unique in the repository's history: shown in status and timelines. */
  name: z.string(),
  queueName: z.string(),
  numbers: z.array(prNumber).min(1),
  /** Pull requests of the batches ahead at creation: the tested commit is base + these + own. */
  parentNumbers: z.array(prNumber),
  parentIds: z.array(uuid),
  /** The base commit known at creation (null when not known yet). */
  baseSha: z.string().nullable(),
  mode: z.enum(['draft', 'in_place']),
  createdAt: iso,
  /** Checks retries used (max_checks_retries). */
  retries: z.int().min(0),
  /**
   * With `bisect_aside`: a batch was built past this one (without it) while it stepped aside, so
   * the base may move under it and it must never merge; its innocent pull requests wait again.
   */
  overtaken: z.literal(true).optional(),
  /**
   * With `merge_queue.bisect_aside_split`: a group split from a failed batch (`from`, its name;
   * `of`, its pull requests; `depth`, 1 from a batch of the line, one more from a failed group).
   * A group is tested on the base alone beside the line and never merges (it is overtaken from
   * the start): passing, its pull requests go back to the front of the queue; failing, it splits
   * again.
   */
  split: z.strictObject({ from: z.string(), of: z.array(prNumber).min(1), depth: z.int().min(1) }).optional(),
  /** With `mode: adaptive`: the lane's depth when the batch was built, and the queue it was computed from. */
  laneDepth: z.strictObject({ depth: z.int().min(1), queued: z.int().min(0) }).optional(),
};

/** For the type of a batch's identity only (BatchCommon): batches are parsed by batchSchema. */
export const batchCommonSchema = z.strictObject(commonShape);

/** A batch and its phase: in trial, being bisected, or merging. */
export const batchSchema = z.discriminatedUnion('phase', [
  z.strictObject({ ...commonShape, phase: z.literal('trial'), trial: batchTrialSchema }),
  z.strictObject({
    ...commonShape,
    phase: z.literal('bisecting'),
    failedRun: testRunSchema,
    bisection: bisectionSchema,
  }),
  /** Passed at the head: merging pull request by pull request (`inFlight`: asked, not answered). */
  z.strictObject({
    ...commonShape,
    phase: z.literal('merging'),
    run: testRunSchema,
    merged: z.array(prNumber),
    inFlight: z.array(prNumber),
  }),
]);

export const laneSchema = z.strictObject({
  base: z.string(),
  partition: z.string(),
  /** Head first: each batch is tested on the base plus every batch ahead of it. */
  batches: z.array(batchSchema),
});
