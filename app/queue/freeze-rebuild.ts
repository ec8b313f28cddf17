import { abortBatchesFrom } from './abort.ts';
import { findSuspects, isAside } from './aside.ts';
import { computeEligible } from './embark.ts';
import { isAnyFreezeActive, isFrozen } from './freeze.ts';
import { computeComparator, computeEmbarked, orderSessions, orderWaiting } from './ordering.ts';
import { summarizeSessions } from './sessions-summary.ts';
import type { Batch, Session } from './state.ts';
import { currentLane, findSession, lanesOf, type Transition } from './transition.ts';

/*
 * A frozen pull request keeps testing but cannot merge, and only a lane's head batch merges: a
 * batch holding a frozen pull request holds every pull request behind it until the freeze ends.
 * So while a freeze is active the frozen pull requests go last in their lane (orderWaiting) and
 * never share a batch with the others (planNextBatch), and whenever a pull request that may merge
 * is stuck behind a frozen one — a freeze started, a label changed, a pull request entered — the
 * batches from the first frozen one are rebuilt (SCHEDULED_FREEZE_STATUS_CHANGED). When the
 * freeze ends (or stops matching a pull request), the pull requests it held take their place in
 * queue order back: see planThawRebuild.
 */

const rebuilt = {
  code: 'SCHEDULED_FREEZE_STATUS_CHANGED',
  reason: 'a scheduled freeze holds a pull request ahead of pull requests that may merge: batches rebuilt',
} as const;

const thawed = {
  code: 'SCHEDULED_FREEZE_STATUS_CHANGED',
  reason: 'a scheduled freeze no longer holds a pull request that goes before: batches rebuilt',
} as const;

export function planFreezeRebuild(t: Transition): void {
  planThawRebuild(t);
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
 * Pull requests a freeze held at the previous step (their freeze period is still open, see
 * held-time.ts) and no longer holds: in each of their lanes, the batches from the first one
 * ahead of them holding a pull request that should come after them (by queue order, or still
 * frozen) are rebuilt, so they embark again in queue order. Otherwise the overtaking would last:
 * a pull request in several partitions that overtook one in a lane goes first in their other
 * lanes too (findBehindElsewhere keeps one order in every shared lane), against queue order.
 * Done even while paused: the freeze period closes at this step, whatever happens next.
 */
function planThawRebuild(t: Transition): void {
  if (!summarizeSessions(t.state.sessions).anyHeld) return;
  const released = Object.values(t.state.sessions).filter(
    (s) => (s.freeze?.since ?? null) !== null && !isFrozen(t.state, s.number, t.now),
  );
  if (released.length === 0) return;
  const compare = computeComparator(t.state.config);
  const after = (session: Session, number: number) => {
    const other = findSession(t.state, number);
    return other !== undefined && (isFrozen(t.state, number, t.now) || compare(session, other) < 0);
  };
  for (const session of orderSessions(t.state.config, released)) {
    for (const stale of lanesOf(t.state, session)) {
      const lane = currentLane(t, stale);
      const inLine = lane.batches.filter((batch) => !isAside(t.state.config, batch));
      const own = inLine.findIndex((batch) => batch.numbers.includes(session.number));
      const ahead = own < 0 ? inLine : inLine.slice(0, own);
      const first = ahead.find((batch) => batch.numbers.some((n) => after(session, n)));
      if (first === undefined || !isRebuildable(first)) continue;
      abortBatchesFrom(t, { lane, index: lane.batches.indexOf(first), first: thawed, behind: thawed });
    }
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
