import { computeLaneDepth } from './adaptive.ts';
import { computeBatchSize } from './embark.ts';
import { isFrozen } from './freeze.ts';
import { laneKey, orderWaiting } from './ordering.ts';
import type { Batch, Lane, QueueState, Session } from './state.ts';
import { findLane } from './transition.ts';

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
  let untested = 0;
  return lane.batches.map((batch) => {
    if (previous === null || state.pause.paused) return null;
    const pending =
      batch.phase === 'merging' ? batch.numbers.filter((n) => !batch.merged.includes(n)) : batch.numbers;
    if (pending.some((n) => isFrozen(state, n, params.now))) {
      previous = null;
      return null;
    }
    if (!isPassed(batch)) untested++;
    const estimate: number = Math.max(now, previous, readyAt(batch, now, ciMs));
    previous = estimate;
    return estimate + computeFailureAllowance(state, { untested, quantile: params.quantile, ciMs });
  });
}

function isPassed(batch: Batch): boolean {
  return batch.phase === 'merging' || (batch.phase === 'trial' && batch.trial.phase === 'passed');
}

/**
 * Above the median, the time failures ahead cost: every batch not yet passed up to this one may
 * fail (observed failure rate), and each failure sends what is behind it to be tested again, one
 * more CI run. The allowance is the q-quantile of that count (binomial) times the CI duration.
 * The median itself assumes no failure, as the status's estimated_merge_at always has.
 */
export function computeFailureAllowance(
  state: QueueState,
  params: { untested: number; quantile: number | undefined; ciMs: number },
): number {
  const q = params.quantile ?? 0.5;
  if (q <= 0.5 || params.untested === 0) return 0;
  const f = computeFailureRate(state);
  const n = params.untested;
  if (f >= 1) return n * params.ciMs;
  // Smallest m with P(Binomial(n, f) <= m) >= q.
  let probability = (1 - f) ** n;
  let cumulative = probability;
  let m = 0;
  while (cumulative < q && m < n) {
    probability *= ((n - m) / (m + 1)) * (f / (1 - f));
    m++;
    cumulative += probability;
  }
  return m * params.ciMs;
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

/**
 * Estimated merge instants (epoch ms) of a lane's waiting pull requests, `waiting` in the order
 * they embark (orderWaiting with `now`): they follow the lane's batches in batches of their
 * queue rule's size (computeBatchSize over the rule's waiting backlog); each such batch starts
 * when the batch `max_parallel_checks` places ahead of it in line is done, or at once when
 * there is none (a batch short of its size waits for `batch_max_wait_time` after its oldest pull
 * request was queued), is ready a CI duration later and merges no earlier than the batch ahead.
 * Null wherever computeBatchEtas gives none (paused, behind a frozen pull request) and for
 * frozen pull requests and those after them.
 */
export function computeWaitingEtas(
  state: QueueState,
  lane: Lane,
  waiting: readonly Session[],
  params: { now: Date; quantile?: number; batchEtas?: readonly (number | null)[] },
): (number | null)[] {
  const now = params.now.getTime();
  const line = [...(params.batchEtas ?? computeBatchEtas(state, lane, params))];
  if (state.pause.paused || line.some((eta) => eta === null)) return waiting.map(() => null);
  const ciMs = computeCiQuantile(state, params.quantile ?? 0.5) * 1000;
  // The batches the lane tests at once: max_parallel_checks, or with mode adaptive what its queue gives.
  const queued = waiting.length + lane.batches.reduce((sum, b) => sum + b.numbers.length, 0);
  const slots = computeLaneDepth(state.config, queued).depth;
  let untested = lane.batches.filter((b) => !isPassed(b)).length;
  const allowance = (count: number) =>
    computeFailureAllowance(state, { untested: count, quantile: params.quantile, ciMs });
  const backlog = new Map<string, number>();
  for (const s of waiting) backlog.set(s.queueName, (backlog.get(s.queueName) ?? 0) + 1);
  const etas: (number | null)[] = [];
  let index = 0;
  while (index < waiting.length) {
    const first = waiting[index]!;
    if (isFrozen(state, first.number, params.now)) break;
    const rule = state.config.queue_rules.find((r) => r.name === first.queueName);
    const size = rule === undefined ? 1 : computeBatchSize(rule, backlog.get(first.queueName)!, slots);
    const members: Session[] = [];
    while (
      index < waiting.length &&
      members.length < size &&
      waiting[index]!.queueName === first.queueName &&
      !isFrozen(state, waiting[index]!.number, params.now)
    ) {
      members.push(waiting[index]!);
      index++;
    }
    const ahead = line.length - slots;
    let start: number = ahead >= 0 ? (line[ahead] as number) : now;
    if (members.length < size && rule !== undefined) {
      const oldest = Math.min(...members.map((s) => Date.parse(s.queuedAt)));
      start = Math.max(start, oldest + rule.batch_max_wait_time * 1000);
    }
    const previous = (line.at(-1) as number | undefined) ?? now;
    // The line ahead already carries the failure allowance of its batches: add this batch's share.
    untested++;
    const eta = Math.max(now, previous, start + ciMs) + allowance(untested) - allowance(untested - 1);
    line.push(eta);
    etas.push(...members.map(() => eta));
  }
  while (etas.length < waiting.length) etas.push(null);
  return etas;
}

/**
 * Estimated merge instant (epoch ms) of each queued pull request: its batch's in each lane it is
 * in, or its waiting estimate there, the latest of them (it merges once validated in every
 * partition); null when one of them has none. Lanes are estimated once, when first asked.
 */
export function createSessionEtas(
  state: QueueState,
  params: { now: Date; quantile?: number },
): (session: Session) => number | null {
  const lanes = new Map<string, Map<number, number | null>>();
  const etasOf = (base: string, partition: string) => {
    const key = laneKey({ base, partition });
    const known = lanes.get(key);
    if (known !== undefined) return known;
    const lane = findLane(state, base, partition) ?? { base, partition, batches: [] };
    const etas = new Map<number, number | null>();
    const batchEtas = computeBatchEtas(state, lane, params);
    lane.batches.forEach((batch, i) => {
      for (const n of batch.numbers) etas.set(n, batchEtas[i] ?? null);
    });
    const waiting = orderWaiting(state, lane, params.now);
    computeWaitingEtas(state, lane, waiting, { ...params, batchEtas }).forEach((eta, i) => {
      etas.set(waiting[i]!.number, eta);
    });
    lanes.set(key, etas);
    return etas;
  };
  return (session) => {
    let latest = params.now.getTime();
    for (const partition of session.partitions) {
      const eta = etasOf(session.base, partition).get(session.number) ?? null;
      if (eta === null) return null;
      latest = Math.max(latest, eta);
    }
    return latest;
  };
}
