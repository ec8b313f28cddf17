import type { Batch, Lane, QueueState, SubBatch, Trial } from './state.ts';

/** Where a tested unit (batch or sub-batch) lives. */
export interface Located {
  lane: Lane;
  batch: Batch;
  sub: SubBatch | null;
  trial: Trial;
}

/** Finds the batch or sub-batch with this id. */
export function locateUnit(state: QueueState, id: string): Located | undefined {
  for (const lane of state.lanes) {
    for (const batch of lane.batches) {
      if (batch.id === id && batch.phase === 'trial') return { lane, batch, sub: null, trial: batch.trial };
      if (batch.phase !== 'bisecting') continue;
      const sub = batch.bisection.subBatches.find((s) => s.id === id);
      if (sub !== undefined) return { lane, batch, sub, trial: sub.trial };
    }
  }
  return undefined;
}

/** Every unit whose tested commit is `sha` and whose checks are running. */
export function locateTesting(state: QueueState, sha: string): Located[] {
  const found: Located[] = [];
  for (const lane of state.lanes) {
    for (const batch of lane.batches) {
      if (batch.phase === 'trial' && batch.trial.phase === 'testing' && batch.trial.run.sha === sha) {
        found.push({ lane, batch, sub: null, trial: batch.trial });
      }
      if (batch.phase !== 'bisecting') continue;
      for (const sub of batch.bisection.subBatches) {
        if (sub.trial.phase === 'testing' && sub.trial.run.sha === sha)
          found.push({ lane, batch, sub, trial: sub.trial });
      }
    }
  }
  return found;
}

/** Every unit under test, for timeouts. */
export function locateAllTesting(state: QueueState): Located[] {
  const found: Located[] = [];
  for (const lane of state.lanes) {
    for (const batch of lane.batches) {
      if (batch.phase === 'trial' && batch.trial.phase === 'testing')
        found.push({ lane, batch, sub: null, trial: batch.trial });
      if (batch.phase !== 'bisecting') continue;
      for (const sub of batch.bisection.subBatches) {
        if (sub.trial.phase === 'testing') found.push({ lane, batch, sub, trial: sub.trial });
      }
    }
  }
  return found;
}
