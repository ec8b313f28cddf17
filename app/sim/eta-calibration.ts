import { createSessionEtas } from '../queue/eta.ts';
import type { QueueState } from '../queue/state.ts';
import type { SimulationRecord } from './simulator.ts';

/*
 * How well the engine's merge estimates (app/queue/eta.ts) hold: each pull request's p50 and p90
 * taken when it enters the queue, against when it merged. A p90 that holds for 85–95 % of merged
 * pull requests is calibrated; the p50 should hold for about half.
 */

/** A pull request's estimates when it entered the queue, in simulation time (ms); null: none given. */
export interface EtaEstimate {
  at: number;
  p50: number | null;
  p90: number | null;
}

/** Records the estimates of a pull request that just entered (the latest entry wins). */
export class EtaRecorder {
  readonly estimates = new Map<number, EtaEstimate>();

  record(state: QueueState, params: { number: number; engineNow: Date; epoch: number; at: number }): void {
    const session = state.sessions[String(params.number)];
    if (session === undefined) return;
    const p50 = createSessionEtas(state, { now: params.engineNow })(session);
    const p90 = createSessionEtas(state, { now: params.engineNow, quantile: 0.9 })(session);
    this.estimates.set(params.number, {
      at: params.at,
      p50: p50 === null ? null : p50 - params.epoch,
      p90: p90 === null ? null : p90 - params.epoch,
    });
  }
}

export interface EtaCalibration {
  /** Merged pull requests with an estimate from their last entry. */
  merged: number;
  /** Merged pull requests that had no estimate (paused, frozen). */
  withoutEstimate: number;
  /** Shares (0..1) of those merged by their p50 and by their p90. */
  byP50: number;
  byP90: number;
  /** Median of (merge − entry) / (p90 − entry): below 1, the p90 is early enough. */
  medianP90Ratio: number;
}

export function measureEtaCalibration(
  record: SimulationRecord,
  estimates: ReadonlyMap<number, EtaEstimate>,
): EtaCalibration {
  let merged = 0;
  let withoutEstimate = 0;
  let byP50 = 0;
  let byP90 = 0;
  const ratios: number[] = [];
  for (const pr of record.pullRequests) {
    if (pr.mergedAt === null) continue;
    const estimate = estimates.get(pr.number);
    if (estimate === undefined || estimate.p50 === null || estimate.p90 === null) {
      withoutEstimate++;
      continue;
    }
    merged++;
    if (pr.mergedAt <= estimate.p50) byP50++;
    if (pr.mergedAt <= estimate.p90) byP90++;
    const span = Math.max(1, estimate.p90 - estimate.at);
    ratios.push((pr.mergedAt - estimate.at) / span);
  }
  ratios.sort((a, b) => a - b);
  return {
    merged,
    withoutEstimate,
    byP50: merged === 0 ? 0 : byP50 / merged,
    byP90: merged === 0 ? 0 : byP90 / merged,
    medianP90Ratio: ratios.length === 0 ? 0 : ratios[Math.floor(ratios.length / 2)]!,
  };
}
