import type { AbortCode } from '../../shared/schemas/event-parts.schema.ts';
import { bisectionEndEvent, computeBisectionSubject, endSplitRoundIfDone } from './batch-events.ts';
import { computeTestBranch } from './ids.ts';
import type { Batch, Lane, SubBatch, TestRun } from './state.ts';
import { abortEnding, computeBatchUnit, computeSubBatchUnit, emitChecksEnd } from './tested-unit.ts';
import { currentLane, putLane, type Transition } from './transition.ts';

export interface AbortReason {
  code: AbortCode;
  reason: string;
}

/**
 * Aborts the batch at `index` (for `first`) and every batch behind it (for `behind`): they were
 * all tested on top of it. Their pull requests go back to waiting, except `leaving` ones.
 */
export function abortBatchesFrom(
  t: Transition,
  params: {
    lane: Lane;
    index: number;
    first: AbortReason;
    behind: AbortReason;
    leaving?: ReadonlySet<number>;
  },
): Lane {
  const { first, behind } = params;
  // The caller's lane may be stale: find the batch again in the lane as it is now.
  const id = params.lane.batches[params.index]?.id;
  const lane = currentLane(t, params.lane);
  const index = lane.batches.findIndex((b) => b.id === id);
  if (index < 0) return lane;
  const leaving = params.leaving ?? new Set<number>();
  // Split groups are built on the base alone, not on what is ahead of them in the lane: they stay.
  const from = lane.batches.slice(index);
  const kept = from.filter((batch, offset) => offset > 0 && batch.split !== undefined);
  from.forEach((batch, offset) => {
    if (!kept.includes(batch)) abortBatch(t, { lane, batch, why: offset === 0 ? first : behind, leaving });
  });
  const next = { ...lane, batches: [...lane.batches.slice(0, index), ...kept] };
  putLane(t, next);
  for (const batch of from) if (!kept.includes(batch)) endSplitRoundIfDone(t, next, batch);
  return next;
}

function abortBatch(
  t: Transition,
  params: { lane: Lane; batch: Batch; why: AbortReason; leaving: ReadonlySet<number> },
): void {
  const { lane, batch, why, leaving } = params;
  const ending = (run: TestRun | null) => (number: number) =>
    abortEnding(run, why.code, why.reason, leaving.has(number) ? 'DEFINITIVE' : 'REEMBARKED');
  switch (batch.phase) {
    case 'trial': {
      const trial = batch.trial;
      if (trial.phase !== 'preparing') {
        emitChecksEnd(t, computeBatchUnit(lane, batch, trial.run), batch.numbers, ending(trial.run));
      }
      if (trial.phase === 'testing' && batch.mode === 'draft') cancelRun(t, batch.id, trial.run);
      if (batch.mode === 'draft') closeDraft(t, batch.id, trial.phase === 'preparing' ? null : trial.run);
      return;
    }
    case 'bisecting': {
      // The bisection ends unresolved: every pull request stays (or leaves for its own reason).
      t.events.push(
        bisectionEndEvent(t, computeBisectionSubject(t, lane, batch), {
          culprits: [],
          remaining: batch.numbers.filter((n) => !leaving.has(n)),
          capReached: false,
        }),
      );
      const subs = [
        ...batch.bisection.subBatches,
        ...(batch.bisection.passedPrefix ? [batch.bisection.passedPrefix] : []),
      ];
      for (const sub of subs) abortSubBatch(t, { lane, batch, sub, ending });
      return;
    }
    case 'merging': {
      const open = batch.numbers.filter((n) => !batch.merged.includes(n));
      emitChecksEnd(t, computeBatchUnit(lane, batch, batch.run), open, ending(batch.run));
      return;
    }
  }
}

function abortSubBatch(
  t: Transition,
  params: {
    lane: Lane;
    batch: Batch;
    sub: SubBatch;
    ending: (run: TestRun | null) => (number: number) => ReturnType<typeof abortEnding>;
  },
): void {
  const { lane, batch, sub, ending } = params;
  const trial = sub.trial;
  if (trial.phase === 'waiting') return;
  const run = trial.phase === 'preparing' ? null : trial.run;
  if (trial.phase === 'testing' || trial.phase === 'passed') {
    const unit = computeSubBatchUnit(lane, batch, sub, run);
    emitChecksEnd(t, unit, batch.numbers.slice(0, sub.length), ending(run));
  }
  if (trial.phase === 'testing' && run !== null) cancelRun(t, sub.id, run);
  closeDraft(t, sub.id, run);
}

export function cancelRun(t: Transition, batchId: string, run: TestRun): void {
  t.effects.push({
    type: 'cancel_checks',
    key: `cancel_checks:${batchId}:${run.sha}`,
    batchId,
    sha: run.sha,
  });
}

export function closeDraft(t: Transition, batchId: string, run: TestRun | null): void {
  t.effects.push({
    type: 'close_draft_pr',
    key: `close_draft_pr:${batchId}`,
    batchId,
    branch: computeTestBranch(batchId),
    draftPullRequest: run?.draftPullRequest ?? null,
  });
}
