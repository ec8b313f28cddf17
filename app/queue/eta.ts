import { isFrozen } from './freeze.ts';
import type { Batch, Lane, QueueState } from './state.ts';

/** CI duration assumed before any run has been seen. */
export const DEFAULT_CI_SECONDS = 600;

/** The q-quantile (0..1) of the recent CI durations, in seconds (nearest rank). */
export function computeCiQuantile(state: QueueState, q: number): number {
  const sorted = [...state.ciDurations].sort((a, b) => a - b);
  if (sorted.length === 0) return DEFAULT_CI_SECONDS;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index]!;
}

function readyAt(batch: Batch, now: number, ciMs: number): number {
  switch (batch.phase) {
    case 'merging':
      return now;
    case 'bisecting':
      return now + ciMs;
    case 'trial':
      switch (batch.trial.phase) {
        case 'passed':
          return now;
        case 'preparing':
          return now + ciMs;
        default:
          return Date.parse(batch.trial.run.startedAt) + ciMs;
      }
  }
}

/**
 * Estimated merge instant (epoch ms) of each batch of a lane, head first: a batch under test
 * is ready at its start plus the CI duration, and merges no earlier than the batch ahead of it.
 * Never earlier than now; null while paused or frozen (and for every batch behind a frozen one).
 */
export function computeBatchEtas(
  state: QueueState,
  lane: Lane,
  params: { now: Date; quantile?: number; ciSeconds?: number },
): (number | null)[] {
  const now = params.now.getTime();
  const ciMs = (params.ciSeconds ?? computeCiQuantile(state, params.quantile ?? 0.5)) * 1000;
  let previous: number | null = now;
  return lane.batches.map((batch) => {
    if (previous === null || state.pause.paused) return null;
    const pending =
      batch.phase === 'merging' ? batch.numbers.filter((n) => !batch.merged.includes(n)) : batch.numbers;
    if (pending.some((n) => isFrozen(state, n, params.now))) {
      previous = null;
      return null;
    }
    const estimate: number = Math.max(now, previous, readyAt(batch, now, ciMs));
    previous = estimate;
    return estimate;
  });
}

/** A range rather than a point: p50 and p90 of recent CI durations, chained the same way. */
export function computeEtaRange(
  state: QueueState,
  lane: Lane,
  now: Date,
): { p50: number | null; p90: number | null }[] {
  const p50 = computeBatchEtas(state, lane, { now, quantile: 0.5 });
  const p90 = computeBatchEtas(state, lane, { now, quantile: 0.9 });
  return p50.map((value, i) => ({ p50: value, p90: p90[i] ?? null }));
}

/** Failure rate assumed before any batch result has been seen. */
export const DEFAULT_FAILURE_RATE = 0.1;

/** Share of recent batch tests that failed. */
export function computeFailureRate(state: QueueState): number {
  const results = state.ciResults;
  return results.length === 0
    ? DEFAULT_FAILURE_RATE
    : results.filter((passed) => !passed).length / results.length;
}

/**
 * The chance that the batch at `index` of the lane merges by `at`: every batch up to it must
 * pass (observed failure rate), and the chained estimate must fall before `at` — taken over the
 * recent CI durations, each as likely as the others. A model, not a promise: retries and
 * bisection rescue some failures, which makes it a little pessimistic.
 */
export function computeMergeChance(
  state: QueueState,
  params: { lane: Lane; index: number; at: Date; now: Date },
): number {
  const { lane, index, at, now } = params;
  const durations = state.ciDurations.length > 0 ? state.ciDurations : [DEFAULT_CI_SECONDS];
  const inTime = durations.filter((ciSeconds) => {
    const eta = computeBatchEtas(state, lane, { now, ciSeconds })[index];
    return eta !== null && eta !== undefined && eta <= at.getTime();
  }).length;
  const pending = lane.batches
    .slice(0, index + 1)
    .filter((b) => !(b.phase === 'merging' || (b.phase === 'trial' && b.trial.phase === 'passed')));
  return (inTime / durations.length) * (1 - computeFailureRate(state)) ** pending.length;
}
