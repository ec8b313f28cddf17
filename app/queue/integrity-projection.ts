import type { z } from 'zod';
import type { mergeIntegritySchema } from '../../shared/schemas/merge-queue.schema.ts';
import type { IntegrityResult, MergeIntegrity } from './integrity.schema.ts';

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
