import type { Batch, QueueState, TestRun } from './state.ts';
import type { Transition } from './transition.ts';

/*
 * What the reasons of one projection share (reasons.ts, batch-reasons.ts), computed at most once.
 */

/** What every reason of one projection shares, computed at most once. */
export interface ReasonContext {
  state: QueueState;
  now: Date;
  /** Check names seen on the repository's known commits (heads and tested commits), lazily. */
  seenChecks: () => ReadonlySet<string>;
  /** A read-only transition for the engine rules that take one (nothing is written to it). */
  view: Transition;
}

export function createReasonContext(state: QueueState, now: Date): ReasonContext {
  let seen: Set<string> | null = null;
  return {
    state,
    now,
    seenChecks: () => {
      seen ??= collectSeenChecks(state);
      return seen;
    },
    view: {
      state,
      now,
      nowIso: now.toISOString(),
      effects: [],
      events: [],
      ids: {
        uuid: () => {
          throw new Error('reasons are read-only: they make no ids');
        },
      },
    } as unknown as Transition,
  };
}

function collectSeenChecks(state: QueueState): Set<string> {
  const seen = new Set<string>();
  for (const pr of Object.values(state.pullRequests)) for (const c of pr.checkRuns) seen.add(c.name);
  for (const lane of state.lanes) {
    for (const batch of lane.batches) {
      const run = runOf(batch);
      for (const c of run?.checks ?? []) seen.add(c.name);
    }
  }
  return seen;
}

export function runOf(batch: Batch): TestRun | null {
  if (batch.phase === 'merging') return batch.run;
  if (batch.phase === 'bisecting') return batch.failedRun;
  return batch.trial.phase === 'preparing' ? null : batch.trial.run;
}
