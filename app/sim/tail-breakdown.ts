import { percentile } from './metrics.ts';
import type { SimulationRecord } from './simulator.ts';

/**
 * Where the slowest pull requests' time in queue goes: what an engine change has to shorten to
 * move the p95. The simulator's Trainyard adapter reports each CI run a pull request is part of
 * (its start, what kind of run, how it ended); this sums them, per pull request in the tail,
 * into parts that add up to its time in queue:
 *
 * - `beforeFirstRun`: queued, not yet in any run (waiting for a batch to fill or a free slot);
 * - `abortedBehind`: in runs thrown away because a batch ahead of them failed;
 * - `failureToRetest`: from the end of a failed run of its own batch to its next run in line,
 *   of which `bisecting` until the last probe it was part of ended, the rest waiting to be
 *   tested again;
 * - `inRuns`: every other run it was part of, the one that let it merge included;
 * - `otherWaits`: the rest (between runs for other reasons, and ejected until queued again).
 */
export type RunKind = 'batch' | 'probe';
export type RunEnd = 'passed' | 'failed' | 'aborted_behind_failure' | 'aborted';

export interface TailParts {
  pullRequests: number;
  /** Mean minutes per tail pull request. */
  total: number;
  beforeFirstRun: number;
  abortedBehind: number;
  failureToRetest: number;
  bisecting: number;
  inRuns: number;
  otherWaits: number;
  /** Mean counts per tail pull request. */
  runs: number;
  abortsBehind: number;
  ownFailures: number;
  ejections: number;
}

interface RunSpan {
  kind: RunKind;
  startedAt: number;
  endedAt: number | null;
  end: RunEnd | null;
}

/** The runs of each pull request, in the order they started (fed by the simulator's adapter). */
export class RunTimeline {
  private readonly spans = new Map<number, RunSpan[]>();
  private readonly open = new Map<string, RunSpan>();

  started(number: number, unit: string, kind: RunKind, at: number): void {
    const span: RunSpan = { kind, startedAt: at, endedAt: null, end: null };
    const list = this.spans.get(number) ?? [];
    list.push(span);
    this.spans.set(number, list);
    this.open.set(`${unit}\u001f${number}`, span);
  }

  ended(number: number, unit: string, end: RunEnd, at: number): void {
    const key = `${unit}\u001f${number}`;
    const span = this.open.get(key);
    if (span === undefined) return;
    this.open.delete(key);
    span.endedAt = at;
    span.end = end;
  }

  runsOf(number: number): readonly RunSpan[] {
    return this.spans.get(number) ?? [];
  }
}

const MINUTE = 60_000;

/** The parts of the time in queue of the merged pull requests at or above the `q` quantile. */
export function computeTailParts(record: SimulationRecord, timeline: RunTimeline, q = 0.95): TailParts {
  const merged = record.pullRequests.filter((pr) => pr.mergedAt !== null);
  const sorted = merged.map((pr) => pr.mergedAt! - pr.firstQueuedAt).sort((a, b) => a - b);
  const threshold = percentile(sorted, q);
  const tail = merged.filter((pr) => pr.mergedAt! - pr.firstQueuedAt >= threshold);
  const sum = { total: 0, beforeFirstRun: 0, abortedBehind: 0, failureToRetest: 0, bisecting: 0, inRuns: 0 };
  const counts = { runs: 0, abortsBehind: 0, ownFailures: 0, ejections: 0 };
  for (const pr of tail) {
    const total = pr.mergedAt! - pr.firstQueuedAt;
    sum.total += total;
    counts.ejections += pr.ejections.length;
    const runs = timeline.runsOf(pr.number).filter((r) => r.startedAt >= pr.firstQueuedAt);
    sum.beforeFirstRun += (runs[0]?.startedAt ?? pr.mergedAt!) - pr.firstQueuedAt;
    let failedAt: number | null = null;
    let probedUntil: number | null = null;
    for (const run of runs) {
      const length = (run.endedAt ?? pr.mergedAt!) - run.startedAt;
      counts.runs++;
      if (failedAt !== null) {
        // From its batch's failure to its next run in line, probes of the bisection included.
        if (run.kind === 'probe') {
          probedUntil = Math.max(probedUntil ?? 0, run.endedAt ?? run.startedAt);
          continue;
        }
        sum.failureToRetest += run.startedAt - failedAt;
        sum.bisecting += Math.min(run.startedAt, probedUntil ?? failedAt) - failedAt;
        failedAt = null;
        probedUntil = null;
      }
      if (run.end === 'aborted_behind_failure') {
        counts.abortsBehind++;
        sum.abortedBehind += length;
      } else sum.inRuns += length;
      if (run.end === 'failed' && run.kind === 'batch') {
        counts.ownFailures++;
        failedAt = run.endedAt;
      }
    }
  }
  const n = Math.max(1, tail.length);
  const minutes = (ms: number) => ms / n / MINUTE;
  const parts = {
    total: minutes(sum.total),
    beforeFirstRun: minutes(sum.beforeFirstRun),
    abortedBehind: minutes(sum.abortedBehind),
    failureToRetest: minutes(sum.failureToRetest),
    bisecting: minutes(sum.bisecting),
    inRuns: minutes(sum.inRuns),
  };
  return {
    pullRequests: tail.length,
    ...parts,
    otherWaits:
      parts.total - parts.beforeFirstRun - parts.abortedBehind - parts.failureToRetest - parts.inRuns,
    runs: counts.runs / n,
    abortsBehind: counts.abortsBehind / n,
    ownFailures: counts.ownFailures / n,
    ejections: counts.ejections / n,
  };
}
