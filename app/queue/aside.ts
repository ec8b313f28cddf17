import type { TrainyardConfig } from '../config/config.schema.ts';
import { abortBatchesFrom, closeDraft } from './abort.ts';
import { endSplitRoundIfDone } from './batch-events.ts';
import { repeatUntilDone } from './repeat.ts';
import { summarizeSessions } from './sessions-summary.ts';
import type { Batch, Lane, QueueState, Session } from './state.ts';
import { abortEnding, computeBatchUnit, emitChecksEnd, successEnding } from './tested-unit.ts';
import { currentLane, findSession, lanesOf, putLane, putSessions, type Transition } from './transition.ts';

/*
 * `merge_queue.bisect_aside`: a failed batch steps aside instead of holding its lane. Without it
 * the lane waits while the failed batch is retried and bisected (docs/queue-semantics.md,
 * "Failures"), so every culprit stalls every pull request behind it for one or more CI runs. With
 * it, the batches built on the failed batch are aborted at once and the lane goes on without it:
 * new batches are built on the batches ahead that are still in line, and merge when they pass.
 * The failed batch is judged (retried, bisected, dropped) as usual, aside. Once a batch has been
 * built past it, the base may move under it, so it is `overtaken` and never merges: when its
 * bisection (or retry) clears pull requests, they go back to waiting, first in queue order, and
 * are tested again behind the batches that overtook them. Safety is unchanged (a merge still
 * needs a passing test of exactly base + parents + itself); what changes is that innocent pull
 * requests of a failed batch may merge after pull requests queued behind them.
 */

/** A batch the lane does not wait for: not a parent of new batches, never the merging head. */
export function isAside(config: TrainyardConfig, batch: Batch): boolean {
  const { bisect_aside, skip_intermediate_results } = config.merge_queue;
  if (!bisect_aside) return false;
  if (batch.overtaken === true || batch.phase === 'bisecting') return true;
  // With skip_intermediate_results a failed batch waits for the batches behind it (one passing
  // proves the failure transient), so it holds its place until judged.
  return batch.phase === 'trial' && batch.trial.phase === 'failed' && !skip_intermediate_results;
}

/** The batch that merges next in the lane: the first one in line. */
export function findMergeHead(config: TrainyardConfig, lane: Lane): Batch | undefined {
  return lane.batches.find((batch) => !isAside(config, batch));
}

/** A new batch is built past every batch aside: they are overtaken from now on. */
export function markOvertaken(config: TrainyardConfig, lane: Lane): Lane {
  if (!lane.batches.some((b) => isAside(config, b) && b.overtaken !== true)) return lane;
  return {
    ...lane,
    batches: lane.batches.map((b) =>
      isAside(config, b) && b.overtaken !== true ? { ...b, overtaken: true } : b,
    ),
  };
}

/**
 * Suspects: the pull requests in several partitions held by batches aside. The queue goes on
 * without them in one lane, so they are held in their other lanes until they go back to
 * waiting (embark.ts), and then take their place in the order as of then (`orderedAt`).
 */
export function findSuspects(state: QueueState): Session[] {
  if (!state.config.merge_queue.bisect_aside) return [];
  const suspects: Session[] = [];
  for (const lane of state.lanes) {
    for (const batch of lane.batches) {
      if (!isAside(state.config, batch)) continue;
      for (const n of batch.numbers) {
        const session = state.sessions[String(n)];
        if (session !== undefined && session.partitions.length > 1) suspects.push(session);
      }
    }
  }
  return suspects;
}

/**
 * Marks new suspects; suspects back to waiting are ordered as of now (see findSuspects). A
 * suspect cleared while a batch in line holds it (its batch is retried in line, or its passing
 * prefix became the head) keeps its place: nothing was built past that batch (it would be
 * overtaken), so nobody overtook it there, and re-ordering it would put it behind the pull
 * requests after it in its own batch.
 */
export function planSuspects(t: Transition): void {
  if (!t.state.config.merge_queue.bisect_aside) return;
  const now = new Set(findSuspects(t.state).map((s) => s.number));
  const changed: Session[] = [];
  let seq = t.state.counters.session;
  let inLine: Set<number> | null = null;
  // Only those flagged or to flag can change, in the record's key order (ascending numbers).
  const candidates = [...new Set([...summarizeSessions(t.state.sessions).suspects, ...now])].sort(
    (a, b) => a - b,
  );
  for (const number of candidates) {
    const session = findSession(t.state, number);
    if (session === undefined) continue;
    const flagged = session.suspect === true;
    if (flagged === now.has(session.number)) continue;
    if (!flagged) changed.push({ ...session, suspect: true });
    else {
      const { suspect: _cleared, ...rest } = session;
      inLine ??= findInLine(t.state);
      changed.push(inLine.has(session.number) ? rest : { ...rest, orderedAt: t.nowIso, seq: ++seq });
    }
  }
  if (changed.length === 0) return;
  // Entry order numbers are drawn from the session counter, so a re-ordered suspect stays unique.
  t.state = { ...t.state, counters: { ...t.state.counters, session: seq } };
  putSessions(t, changed);
}

/** Pull requests held by batches in line (not aside) in any lane. */
function findInLine(state: QueueState): Set<number> {
  return new Set(
    state.lanes.flatMap((lane) =>
      lane.batches.filter((b) => !isAside(state.config, b)).flatMap((b) => b.numbers),
    ),
  );
}

/**
 * With bisect_aside, before failures are judged: batches built on a failed batch cannot pass
 * usefully, so they are aborted now (their pull requests wait again and embark without it).
 * So are the batches in line, in other lanes, that hold a suspect in several partitions: it is
 * held there until cleared.
 */
export function abortBuiltOnFailed(t: Transition): void {
  if (!t.state.config.merge_queue.bisect_aside) return;
  abortSuspectsElsewhere(t);
  for (const initial of t.state.lanes) {
    // Each pass aborts the lane from a batch it holds: the lane shrinks by one batch or more, so
    // at most one pass per batch, plus the one that finds none.
    const limit = currentLane(t, initial).batches.length + 1;
    repeatUntilDone('abortBuiltOnFailed: batches built on a failed batch aside', limit, () => {
      const lane = currentLane(t, initial);
      const failed = lane.batches.filter((b) => isAside(t.state.config, b) && isFailedTrial(b));
      const index = lane.batches.findIndex((b) => failed.some((f) => b.parentIds.includes(f.id)));
      if (index < 0) return false;
      const culprit = failed.find((f) => lane.batches[index]!.parentIds.includes(f.id))!;
      const why = { code: 'BATCH_AHEAD_FAILED' as const, reason: `${culprit.name}, ahead, failed` };
      abortBatchesFrom(t, { lane, index, first: why, behind: why });
      return true;
    });
  }
}

function abortSuspectsElsewhere(t: Transition): void {
  for (const suspect of findSuspects(t.state)) {
    for (const initial of lanesOf(t.state, suspect)) {
      const lane = currentLane(t, initial);
      // A merging batch waiting for the suspect's other partitions goes too (nothing in flight).
      const index = lane.batches.findIndex(
        (b) =>
          b.numbers.includes(suspect.number) &&
          !isAside(t.state.config, b) &&
          (b.phase !== 'merging' || (b.inFlight.length === 0 && !b.merged.includes(suspect.number))),
      );
      if (index < 0) continue;
      const why = {
        code: 'PR_DEQUEUED_FROM_PARTITION' as const,
        reason: `#${suspect.number} is being bisected in another partition`,
      };
      abortBatchesFrom(t, { lane, index, first: why, behind: why });
    }
  }
}

/** Overtaken batches that passed (a retry): their pull requests go back to waiting. */
export function returnOvertaken(t: Transition): void {
  for (const initial of t.state.lanes) {
    const lane = currentLane(t, initial);
    const returning = lane.batches.filter(
      (b) => b.overtaken === true && b.phase === 'trial' && b.trial.phase === 'passed',
    );
    if (returning.length === 0) continue;
    for (const batch of returning) {
      if (batch.phase !== 'trial' || batch.trial.phase !== 'passed') continue;
      const { run } = batch.trial;
      emitChecksEnd(
        t,
        computeBatchUnit(lane, batch, run),
        batch.numbers,
        // A group split from a failed batch passing is what it was for: its pull requests are innocent.
        batch.split === undefined
          ? abortEnding(run, 'MERGE_QUEUE_RESET', OVERTAKEN_REASON(batch.name), 'REEMBARKED')
          : successEnding(run.checks),
      );
      if (batch.mode === 'draft') closeDraft(t, batch.id, run);
    }
    putLane(t, { ...lane, batches: lane.batches.filter((b) => !returning.includes(b)) });
    markCleared(
      t,
      returning.flatMap((b) => b.numbers),
    );
    for (const batch of returning) endSplitRoundIfDone(t, lane, batch);
  }
}

/** Pull requests that passed on top of the ones ahead and go back to waiting: cleared. */
export function markCleared(t: Transition, numbers: readonly number[]): void {
  const sessions = numbers
    .map((n) => findSession(t.state, n))
    .filter((s): s is Session => s !== undefined && s.cleared !== true);
  putSessions(
    t,
    sessions.map((s) => ({ ...s, cleared: true as const })),
  );
}

/**
 * Cleared pull requests at the front of the waiting ones (in queue order): a batch starting with
 * them embarks at once and takes them all (up to the batch size's max), then fills up with the
 * pull requests behind: a batch of cleared ones alone would often hold one or two and cost a CI
 * run for them (figures in docs/decisions/0018-bisect-aside.md).
 */
export function countLeadingCleared(sessions: readonly Session[]): number {
  const end = sessions.findIndex((s) => s.cleared !== true);
  return end < 0 ? sessions.length : end;
}

/** Embarking consumes the mark: a cleared pull request that fails again is a suspect again. */
export function consumeCleared(t: Transition, sessions: readonly Session[]): void {
  const marked = sessions.filter((s) => s.cleared === true);
  if (marked.length === 0) return;
  putSessions(
    t,
    marked.map(({ cleared: _consumed, ...rest }) => rest),
  );
}

export const OVERTAKEN_REASON = (name: string) =>
  `${name} passed after the queue went on without it: its pull requests are tested again behind`;

function isFailedTrial(batch: Batch): boolean {
  return batch.phase === 'trial' && batch.trial.phase === 'failed';
}
