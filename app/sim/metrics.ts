import type { SimulationRecord } from './simulator.ts';

/**
 * What the benchmark compares, from one simulation record. Times in queue are from a pull
 * request's first queueing to its merge (a requeue after a wrong ejection counts against the
 * queue); good pull requests still queued at the end count with their age so far, so that a
 * queue that cannot keep up is not flattered by what it never merged.
 */
export interface QueueMetrics {
  policy: string;
  /** Merged within the measured window, per hour of it. */
  mergedPerHour: number;
  merged: number;
  /** Minutes. */
  timeInQueue: { p50: number; p95: number; p99: number; mean: number };
  ciRunsPerMerged: number;
  ciMinutesPerMerged: number;
  /** Ejections of pull requests that were not bad and none of whose conflicting partners merged. */
  goodEjected: number;
  /** Merges of bad pull requests and of the second side of a conflict (must be 0 for a safe queue). */
  baseBreaks: number;
  queueDepth: { mean: number; max: number };
  /** Good pull requests not merged when the simulation stopped (queued, or ejected). */
  unfinished: number;
}

const MINUTE = 60_000;

export function computeMetrics(record: SimulationRecord): QueueMetrics {
  const { spec } = record;
  const merged = record.pullRequests.filter((pr) => pr.mergedAt !== null);
  const inWindow = merged.filter((pr) => pr.mergedAt! <= spec.horizonMs).length;
  const mergedNumbers = new Set(merged.map((pr) => pr.number));
  const times: number[] = [];
  let goodEjected = 0;
  let unfinished = 0;
  for (const pr of record.pullRequests) {
    const truth = record.truths.get(pr.number)!;
    const partnerMerged = truth.conflictsWith.some((n) => mergedNumbers.has(n));
    if (!truth.bad && !partnerMerged) goodEjected += pr.ejections.length;
    if (pr.mergedAt !== null) times.push(pr.mergedAt - pr.firstQueuedAt);
    else if (!truth.bad && !partnerMerged) {
      unfinished++;
      times.push(record.endedAt - pr.firstQueuedAt);
    }
  }
  times.sort((a, b) => a - b);
  const count = Math.max(1, merged.length);
  return {
    policy: record.policy,
    mergedPerHour: inWindow / (spec.horizonMs / 3_600_000),
    merged: merged.length,
    timeInQueue: {
      p50: percentile(times, 0.5) / MINUTE,
      p95: percentile(times, 0.95) / MINUTE,
      p99: percentile(times, 0.99) / MINUTE,
      mean: times.reduce((s, t) => s + t, 0) / Math.max(1, times.length) / MINUTE,
    },
    ciRunsPerMerged: record.ci.runs / count,
    ciMinutesPerMerged: record.ci.busyMs / MINUTE / count,
    goodEjected,
    baseBreaks: record.baseBreaks.length,
    queueDepth: { mean: record.depth.area / Math.max(1, record.endedAt), max: record.depth.max },
    unfinished,
  };
}

/** Nearest-rank percentile of sorted values (0 when empty). */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank]!;
}
