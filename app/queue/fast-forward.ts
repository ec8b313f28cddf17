import type { TrainyardConfig } from '../config/config.schema.ts';
import type { Batch, Lane } from './state.ts';

/*
 * merge_method fast-forward moves the base to a batch's tested commit itself, which GitHub
 * accepts only when that commit descends from the base. The base becomes the tested commit of
 * each batch in turn, so a batch behind others is built on the tested commit of the batch
 * directly ahead (not on the base with their pull requests merged again: those merge commits
 * would be other commits, and its fast-forward refused).
 */

export function isFastForward(config: TrainyardConfig, queueName: string): boolean {
  return config.queue_rules.find((r) => r.name === queueName)?.merge_method === 'fast-forward';
}

/** The tested commit of a batch, once it has one. */
function testedShaOf(batch: Batch): string | null {
  if (batch.phase === 'merging') return batch.run.sha;
  if (batch.phase === 'trial' && batch.trial.phase !== 'preparing') return batch.trial.run.sha;
  return null;
}

/**
 * Where a fast-forward batch's test branch starts: the tested commit of the last batch it was
 * built on that is still in the lane (it holds the base and every pull request ahead), or
 * `'base'` when they have all merged (the base is the last one's tested commit). `'unknown'`:
 * that batch has no tested commit yet.
 */
export function findStartAhead(lane: Lane, batch: Batch): { sha: string } | 'base' | 'unknown' {
  const ahead = lane.batches.filter((b) => b.id !== batch.id && batch.parentIds.includes(b.id)).at(-1);
  if (ahead === undefined) return 'base';
  const sha = testedShaOf(ahead);
  return sha === null ? 'unknown' : { sha };
}

/** A new fast-forward batch behind `inLine` waits until the last of them has a tested commit. */
export function awaitsTestedAhead(inLine: readonly Batch[]): boolean {
  const last = inLine.at(-1);
  return last !== undefined && testedShaOf(last) === null;
}
