import { cancelRun, closeDraft } from './abort.ts';
import { isAside, markCleared, OVERTAKEN_REASON } from './aside.ts';
import { bisectionEndEvent, bisectionStartEvent, computeBisectionSubject } from './batch-events.ts';
import { leaveQueue } from './leave.ts';
import { emit } from './queue-events.ts';
import type { Batch, Bisection, Lane, QueueState, SubBatch, TestRun } from './state.ts';
import { abortEnding, computeSubBatchUnit, emitChecksEnd, successEnding } from './tested-unit.ts';
import { commonOf, currentLane, putLane, type Transition } from './transition.ts';

/**
 * The prefix lengths to probe strictly between `lo` (passes) and `hi` (fails), evenly spaced:
 * 6 PRs, 3 probes ⇒ [2, 4, 5] (the last PR's result is known: prefix 6 failed).
 */
export function planBisection(lo: number, hi: number, probes: number): number[] {
  const candidates = hi - lo - 1;
  if (candidates <= probes) return Array.from({ length: candidates }, (_, i) => lo + i + 1);
  return Array.from({ length: probes }, (_, i) => lo + Math.ceil((candidates * (i + 1)) / probes));
}

export function computeProbeCount(maxParallelChecks: number): number {
  return Math.max(2, maxParallelChecks);
}

/**
 * With bisect_aside the probes run beside the line and their passing results are rarely merged
 * (the queue moves on), so a round spends only two: prefixes cutting the range in thirds, or —
 * when the whole batch is not known to fail (after a culprit) — the whole batch and its middle.
 * With one probe a round (`bisect_aside_probes: 1`): the middle prefix, or the whole batch after
 * a culprit (most often it passes: nothing else to find) — a binary search.
 */
export function planAsideBisection(lo: number, hi: number, length: number, probes: 1 | 2 = 2): number[] {
  const lengths =
    probes === 1
      ? [hi > length ? length : lo + Math.ceil((hi - lo) / 2)]
      : hi > length
        ? [lo + Math.ceil((length - lo) / 2), length]
        : [lo + Math.ceil((hi - lo) / 3), lo + Math.ceil((2 * (hi - lo)) / 3)];
  return [...new Set(lengths)].filter((l) => l > lo && l < hi).sort((a, b) => a - b);
}

/**
 * Probes a round of a bisection aside: `bisect_aside_probes` (default 2), for every batch. Also
 * for a batch holding a pull request of several partitions: a second probe would clear its
 * suspects (held in their other lanes, aside.ts) sooner, but those lanes have already rebuilt
 * without them, and the extra probe costs more than the wait (figures in
 * docs/decisions/0018-bisect-aside.md).
 */
export function computeAsideProbes(state: QueueState): 1 | 2 {
  return state.config.merge_queue.bisect_aside_probes ?? 2;
}

/** Starts a round of probes; the sub-batches start as slots allow (embark). */
function startRound(
  t: Transition,
  params: { lane: Lane; batch: Batch; failedRun: TestRun; bisection: Omit<Bisection, 'subBatches'> },
): void {
  const { lane, batch, failedRun, bisection } = params;
  const probes = computeProbeCount(t.state.config.merge_queue.max_parallel_checks);
  const lengths = t.state.config.merge_queue.bisect_aside
    ? planAsideBisection(bisection.lo, bisection.hi, batch.numbers.length, computeAsideProbes(t.state))
    : planBisection(bisection.lo, bisection.hi, probes);
  const subBatches: SubBatch[] = lengths.map((length) => ({
    id: t.ids.uuid(),
    name: `${batch.name}.${bisection.depth}.${length}`,
    length,
    trial: { phase: 'waiting' },
  }));
  const bisecting: Batch = {
    ...commonOf(batch),
    phase: 'bisecting',
    failedRun,
    bisection: { ...bisection, subBatches },
  };
  putLane(t, { ...lane, batches: lane.batches.map((b) => (b.id === batch.id ? bisecting : b)) });
  emit(
    t,
    bisectionStartEvent(t, computeBisectionSubject(t, lane, batch), {
      sizeBeforeSplit: bisection.hi - bisection.lo,
      subBatches: subBatches.length,
      depth: bisection.depth,
    }),
  );
}

/** A failed batch of several pull requests (its checks already ended) starts being bisected. */
export function startBisection(t: Transition, lane: Lane, batch: Batch, failedRun: TestRun): void {
  startRound(t, {
    lane,
    batch,
    failedRun,
    bisection: { depth: 1, lo: 0, hi: batch.numbers.length, passedPrefix: null },
  });
}

/** Moves every bisection whose round is over: narrow down, then resolve or probe again. */
export function planBisectionProgress(t: Transition): void {
  for (const initial of t.state.lanes) {
    // One bisection per lane, or several with bisect_aside (each failed batch steps aside).
    const ids = initial.batches.filter((b) => b.phase === 'bisecting').map((b) => b.id);
    for (const id of ids) progressBisection(t, initial, id);
  }
}

function progressBisection(t: Transition, initial: Lane, id: string): void {
  const lane = currentLane(t, initial);
  const batch = lane.batches.find((b) => b.id === id);
  if (batch === undefined || batch.phase !== 'bisecting') return;
  const { bisection } = batch;
  const failing = bisection.subBatches.filter((s) => s.trial.phase === 'failed').map((s) => s.length);
  const hi = Math.min(bisection.hi, ...failing);
  // The round is decided once every probe shorter than the shortest failing one is known:
  // the longer probes can no longer change the answer.
  if (!bisection.subBatches.every((s) => s.length >= hi || isDone(s))) return;
  const adopted = bisection.subBatches
    .filter((s) => s.trial.phase === 'passed' && s.length < hi && s.length > bisection.lo)
    .sort((a, b) => b.length - a.length)[0];
  const passedPrefix = closeRound(t, { lane, batch, adopted });
  const lo = passedPrefix?.length ?? 0;
  const cap = t.state.config.queue_rules.find(
    (r) => r.name === batch.queueName,
  )?.batch_max_failure_resolution_attempts;
  const next = { depth: bisection.depth + 1, lo, hi, passedPrefix };
  // Aside, a culprit with pull requests after it: clear those too rather than send them back untested.
  // Overtaken, what is left is tested again anyway (as a cleared batch): no probes for it here.
  const goOn =
    hi - lo === 1 && hi < batch.numbers.length && isAside(t.state.config, batch) && batch.overtaken !== true;
  if (goOn) continueAfterCulprit(t, { lane: currentLane(t, lane), batch, next });
  else if (hi - lo === 1) resolveBisection(t, { lane: currentLane(t, lane), batch, next, capReached: false });
  else if (cap !== null && cap !== undefined && bisection.depth >= cap) {
    resolveBisection(t, { lane: currentLane(t, lane), batch, next, capReached: true });
  } else startRound(t, { lane: currentLane(t, lane), batch, failedRun: batch.failedRun, bisection: next });
}

/**
 * With bisect_aside: the culprit at `lo` leaves and the bisection goes on over the batch without
 * it, whose full length is not known to fail (`hi` = length + 1: the next round probes it). So
 * several culprits are found in one bisection, and the pull requests after a culprit are cleared
 * or blamed here instead of failing their next batch.
 */
function continueAfterCulprit(
  t: Transition,
  params: { lane: Lane; batch: Batch & { phase: 'bisecting' }; next: Omit<Bisection, 'subBatches'> },
): void {
  const { lane, batch, next } = params;
  const culprit = batch.numbers[next.lo]!;
  const rest = batch.numbers.filter((n) => n !== culprit);
  emit(
    t,
    bisectionEndEvent(t, computeBisectionSubject(t, lane, batch), {
      culprits: [culprit],
      remaining: rest,
      capReached: false,
    }),
  );
  const without: Batch = { ...batch, numbers: rest };
  // Out of the batch first, so that leaving does not abort the bisection it is no longer in.
  putLane(t, { ...lane, batches: lane.batches.map((b) => (b.id === batch.id ? without : b)) });
  leaveQueue(t, culprit, {
    code: 'CHECKS_FAILED',
    detail: `#${culprit} fails on top of the pull requests ahead (bisection of ${batch.name})`,
  });
  startRound(t, {
    lane: currentLane(t, lane),
    batch: without,
    failedRun: batch.failedRun,
    // Depth goes on counting (sub-batch names stay unique).
    bisection: { depth: next.depth, lo: next.lo, hi: rest.length + 1, passedPrefix: next.passedPrefix },
  });
}

/** Ends the round's probes: passing ones now unless adopted as the prefix that will merge, running ones aborted. */
function isDone(sub: SubBatch): boolean {
  return sub.trial.phase === 'passed' || sub.trial.phase === 'failed';
}

function closeRound(
  t: Transition,
  params: { lane: Lane; batch: Batch & { phase: 'bisecting' }; adopted: SubBatch | undefined },
): SubBatch | null {
  const { lane, batch, adopted } = params;
  const previous = batch.bisection.passedPrefix;
  const keep = adopted ?? previous;
  const dropped = [
    ...batch.bisection.subBatches,
    ...(previous !== null && adopted !== undefined ? [previous] : []),
  ];
  for (const sub of dropped) {
    if (sub.id === keep?.id) continue;
    const unit = computeSubBatchUnit(
      lane,
      batch,
      sub,
      sub.trial.phase === 'passed' || sub.trial.phase === 'testing' ? sub.trial.run : null,
    );
    const numbers = batch.numbers.slice(0, sub.length);
    if (sub.trial.phase === 'passed') emitChecksEnd(t, unit, numbers, successEnding(sub.trial.run.checks));
    if (sub.trial.phase === 'testing') {
      const reason = 'a shorter prefix failed: this probe no longer matters';
      emitChecksEnd(t, unit, numbers, abortEnding(sub.trial.run, 'BATCH_AHEAD_FAILED', reason, 'REEMBARKED'));
      cancelRun(t, sub.id, sub.trial.run);
    }
    if (sub.trial.phase !== 'waiting')
      closeDraft(t, sub.id, sub.trial.phase === 'preparing' ? null : sub.trial.run);
  }
  return keep ?? null;
}

/**
 * Bisection is over: the longest passing prefix becomes a passed batch (it merges as the head),
 * the culprit(s) leave, the pull requests after them go back to waiting in their order.
 */
function resolveBisection(
  t: Transition,
  params: {
    lane: Lane;
    batch: Batch & { phase: 'bisecting' };
    next: Omit<Bisection, 'subBatches'>;
    capReached: boolean;
  },
): void {
  const { lane, batch, next, capReached } = params;
  const culprits = batch.numbers.slice(next.lo, capReached ? next.hi : next.lo + 1);
  const back = batch.numbers.slice(next.lo + culprits.length);
  const prefix = next.passedPrefix;
  // Overtaken: the pull requests after the culprit go back with the cleared ones (their batch is
  // their test; a second culprit among them fails it and is bisected in turn).
  if (batch.overtaken === true && !capReached) markCleared(t, back);
  // Overtaken (bisect_aside): the base may have moved since the prefix was tested; it waits again.
  if (batch.overtaken === true && prefix !== null && prefix.trial.phase === 'passed') {
    const { run } = prefix.trial;
    const unit = computeSubBatchUnit(lane, batch, prefix, run);
    const reason = OVERTAKEN_REASON(prefix.name);
    const numbers = batch.numbers.slice(0, prefix.length);
    emitChecksEnd(t, unit, numbers, abortEnding(run, 'MERGE_QUEUE_RESET', reason, 'REEMBARKED'));
    closeDraft(t, prefix.id, run);
    markCleared(t, numbers);
  }
  const merging: Batch[] =
    batch.overtaken !== true && prefix !== null && prefix.trial.phase === 'passed'
      ? [
          {
            ...commonOf(batch),
            id: prefix.id,
            name: prefix.name,
            numbers: batch.numbers.slice(0, prefix.length),
            phase: 'trial',
            trial: prefix.trial,
          },
        ]
      : [];
  putLane(t, { ...lane, batches: lane.batches.flatMap((b) => (b.id === batch.id ? merging : [b])) });
  emit(
    t,
    bisectionEndEvent(t, computeBisectionSubject(t, lane, batch), {
      culprits,
      remaining: [...batch.numbers.slice(0, next.lo), ...back],
      capReached,
    }),
  );
  for (const number of culprits) {
    leaveQueue(t, number, {
      code: capReached ? 'BATCH_MAX_FAILURE_RESOLUTION_ATTEMPTS' : 'CHECKS_FAILED',
      detail: capReached
        ? `bisection of ${batch.name} stopped after ${next.depth - 1} rounds`
        : `#${number} fails on top of the pull requests ahead (bisection of ${batch.name})`,
    });
  }
}
