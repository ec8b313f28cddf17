import type { z } from 'zod';
import type { mergeIntegritySchema } from '../../shared/schemas/merge-queue.schema.ts';
import type { IntegrityResult, MergeIntegrity } from './integrity.schema.ts';
import { findIntegrityResult } from './integrity.ts';

type MergeIntegrityView = z.output<typeof mergeIntegritySchema>;

/** The status's `merge_integrity`: counts by outcome and the recent verifications, newest first. */
export function projectMergeIntegrity(integrity: MergeIntegrity | undefined): {
  merge_integrity?: MergeIntegrityView;
} {
  if (integrity === undefined) return {};
  return {
    merge_integrity: {
      counts: integrity.counts,
      recent: integrity.recent.toReversed().map(projectResult),
    },
  };
}

/**
 * The most recent verification that covered pull request `number` (the per pull request
 * `merge-integrity` view): null when none of the recent ones did.
 */
export function projectPullRequestIntegrity(
  integrity: MergeIntegrity | undefined,
  number: number,
): MergeIntegrityView['recent'][number] | null {
  const result = findIntegrityResult(integrity, number);
  return result === null ? null : projectResult(result);
}

function projectResult(result: IntegrityResult): MergeIntegrityView['recent'][number] {
  return {
    batch: result.batchName,
    base_ref: result.base,
    pull_requests: result.pullRequests,
    outcome: result.outcome,
    tested_sha: result.testedSha,
    tested_tree: result.expectedTree,
    landed_sha: result.landedSha,
    landed_tree: result.landedTree,
    partial: result.partial,
    verified_at: result.at,
  };
}
