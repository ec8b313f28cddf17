import { z } from 'zod';

const iso = z.string();
const prNumber = z.int().min(1);

/**
 * A batch whose merges have started and whose landed tree is not yet verified. The tree the base
 * must have after its k-th pull request merged is `trees[k - 1]`, built the same way on the test
 * branch; the last is the tested commit's tree.
 */
export const integrityTrackSchema = z.strictObject({
  batchId: z.string(),
  batchName: z.string(),
  base: z.string(),
  method: z.enum(['merge', 'squash', 'rebase', 'fast-forward']),
  /** The batch's pull requests in merge order, with the heads that were tested. */
  pullRequests: z.array(z.strictObject({ number: prNumber, headSha: z.string() })),
  merged: z.array(prNumber),
  /** The commits GitHub answered for each merge, in order (one for a fast-forward). */
  mergeShas: z.array(z.string()),
  /** The base's head as the engine knew it before the batch's first merge; null when unknown. */
  startSha: z.string().nullable(),
  testedSha: z.string(),
  trees: z.array(z.string().nullable()).nullable(),
  /** A move of the base by someone else seen since the batch started merging. */
  outsideSha: z.string().nullable(),
  /** verify_merge asked: merges on this base wait for its answer. */
  checking: z.boolean(),
});

/**
 * `tree_unknown`: a batch merged partially whose prefix's tree the test branch did not record
 * (nothing to compare with).
 */
export const integrityOutcomeSchema = z.enum(['equal', 'different', 'base_moved_outside', 'tree_unknown']);

/** One verification, as the status and the per pull request view show it. */
export const integrityResultSchema = z.strictObject({
  batchName: z.string(),
  base: z.string(),
  pullRequests: z.array(prNumber),
  outcome: integrityOutcomeSchema,
  testedSha: z.string(),
  expectedTree: z.string().nullable(),
  landedSha: z.string(),
  landedTree: z.string(),
  /** Merged partially: only these pull requests of the batch landed (the expected tree is of that prefix). */
  partial: z.boolean(),
  at: iso,
});

export const mergeIntegritySchema = z.strictObject({
  tracks: z.array(integrityTrackSchema),
  /**
   * Per base, the last move that was not one of our merges (or not known to be: the first push
   * seen of a base whose head was unknown). A batch built before it and not rebuilt since was
   * tested on another base than the one it merges onto: its landed tree cannot be the tested one.
   */
  outsideMoves: z.record(z.string(), z.strictObject({ sha: z.string(), at: iso })).optional(),
  /** The most recent verifications, oldest first. */
  recent: z.array(integrityResultSchema),
  counts: z.strictObject({
    equal: z.int().min(0),
    different: z.int().min(0),
    base_moved_outside: z.int().min(0),
    tree_unknown: z.int().min(0),
  }),
});

export type IntegrityTrack = z.infer<typeof integrityTrackSchema>;
export type IntegrityResult = z.infer<typeof integrityResultSchema>;
export type IntegrityOutcome = z.infer<typeof integrityOutcomeSchema>;
export type MergeIntegrity = z.infer<typeof mergeIntegritySchema>;
