import { abortBatchesFrom } from './abort.ts';
import { findSuspects, isAside } from './aside.ts';
import { computeEligible } from './embark.ts';
import { isAnyFreezeActive, isFrozen } from './freeze.ts';
import { computeEmbarked, orderWaiting } from './ordering.ts';
import type { Batch } from './state.ts';
import { currentLane, type Transition } from './transition.ts';

/*
 * A frozen pull request keeps testing but cannot merge, and only a lane's head batch merges: a
 * batch holding a frozen pull request holds every pull request behind it until the freeze ends.
 * So while a freeze is active the frozen pull requests go last in their lane (orderWaiting) and
 * never share a batch with the others (planNextBatch), and whenever a pull request that may merge
 * is stuck behind a frozen one — a freeze started, a label changed, a pull request entered — the
 * batches from the first frozen one are rebuilt (SCHEDULED_FREEZE_STATUS_CHANGED). When the
 * freeze ends nothing needs rebuilding: the frozen batches are last and merge in turn.
 */

const rebuilt = {
  code: 'SCHEDULED_FREEZE_STATUS_CHANGED',
  reason: 'a scheduled freeze holds a pull request ahead of pull requests that may merge: batches rebuilt',
} as const;

export function planFreezeRebuild(t: Transition): void {
  if (t.state.pause.paused || !isAnyFreezeActive(t.state, t.now)) return;
  const frozen = (number: number) => isFrozen(t.state, number, t.now);
  for (const stale of t.state.lanes) {
    const lane = currentLane(t, stale);
    const inLine = lane.batches.filter((batch) => !isAside(t.state.config, batch));
    const first = inLine.findIndex((batch) => batch.numbers.some(frozen));
    if (first < 0 || !isRebuildable(inLine[first]!)) continue;
    const stuckEmbarked = inLine.slice(first).some((batch) => batch.numbers.some((n) => !frozen(n)));
    const stuckWaiting =
      !stuckEmbarked &&
      computeEligible(orderWaiting(t.state, lane, t.now), computeEmbarked(lane), findSuspects(t.state)).some(
        (session) => !frozen(session.number),
      );
    if (!stuckEmbarked && !stuckWaiting) continue;
    abortBatchesFrom(t, {
      lane,
      index: lane.batches.indexOf(inLine[first]!),
      first: rebuilt,
      behind: rebuilt,
    });
  }
}

/**
 * A batch being prepared, tested or passed. A merge in progress finishes as it can; a failed or
 * bisecting batch is judged first (its culprits leave, the rest go back to waiting in the order
 * above).
 */
function isRebuildable(batch: Batch): boolean {
  return batch.phase === 'trial' && batch.trial.phase !== 'failed';
}
