import { abortBatchesFrom } from './abort.ts';
import type { PauseCleared, PauseSet } from './inputs.ts';
import type { Batch } from './state.ts';
import type { Transition } from './transition.ts';

/** Draft-PR checks can be stopped; in-place ones cannot (they run on the pull request itself). */
function isCancellable(batch: Batch): boolean {
  if (batch.phase === 'merging') return false;
  if (batch.phase === 'bisecting') return true;
  return batch.mode === 'draft' && batch.trial.phase !== 'passed';
}

/**
 * Paused: nothing starts and nothing merges. Running draft-PR batches are cancelled with the
 * batches built on them; their pull requests wait again in their order. The API records the
 * pause and emits `queue.pause.*`; the engine only honours it.
 */
export function handlePauseSet(t: Transition, input: PauseSet): void {
  const since = t.state.pause.paused ? t.state.pause.since : t.nowIso;
  t.state = { ...t.state, pause: { paused: true, reason: input.reason, since, by: input.by.name } };
  for (const lane of t.state.lanes) {
    const index = lane.batches.findIndex(isCancellable);
    if (index < 0) continue;
    const why = {
      code: 'PR_CHECKS_STOPPED_BECAUSE_MERGE_QUEUE_PAUSE' as const,
      reason: `The merge queue is paused: ${input.reason}`,
    };
    abortBatchesFrom(t, { lane, index, first: why, behind: why });
  }
}

/** Unpaused: the queue resumes at once (the step's settling embarks and merges). */
export function handlePauseCleared(t: Transition, _input: PauseCleared): void {
  t.state = { ...t.state, pause: { paused: false } };
}
