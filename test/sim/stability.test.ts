import { describe, expect, it } from 'vitest';
import { compareScenario } from '../../app/sim/comparison.ts';
import { computeMetrics } from '../../app/sim/metrics.ts';
import { OraclePolicy } from '../../app/sim/policies/oracle.ts';
import { SerialPolicy } from '../../app/sim/policies/serial.ts';
import { buildSimulation, findScenario } from '../../app/sim/scenarios.ts';
import { type SimulationRecord, simulate } from '../../app/sim/simulator.ts';
import {
  judgeStability,
  leastSquaresSlope,
  measureStability,
  type StabilitySample,
  sampleBacklog,
  slopeNoiseBound,
  smoothedSlope,
} from '../../app/sim/stability.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const STEP = 10 * 60_000;

/** A backlog sampled every 10 minutes over `days`: a daily swing of ±amplitude around 50, plus a trend (PRs/h). */
function series(days: number, amplitude: number, trend: number): number[] {
  return Array.from({ length: (days * DAY) / STEP + 1 }, (_, i) => {
    const hours = (i * STEP) / HOUR;
    return 50 + amplitude * Math.sin((2 * Math.PI * hours) / 24 + 1.5) + trend * hours;
  });
}

function sample(over: Partial<StabilitySample>): StabilitySample {
  return {
    mergedPerHour: 9.5,
    arrivalsPerHour: 10,
    goodArrivalsPerHour: 9.5,
    slope: 0,
    windowHours: 84,
    ...over,
  };
}

/** Mid, cut to `days` days of arrivals (a short window keeps the test to a few seconds). */
function mid(days: number, seed: number) {
  const full = buildSimulation(findScenario('mid'), seed);
  return { ...full, horizonMs: days * DAY, workload: full.workload.filter((w) => w.at < days * DAY) };
}

describe('the backlog slope', () => {
  it('is the trend, not the phase of the daily swing: fitted to the mean over the day before each sample', () => {
    // A swing of ±40 PRs and no trend, 3 days: a straight least-squares fit over the second half
    // (a day and a half) takes the swing's phase for a slope.
    const flat = series(3, 40, 0);
    const hours = flat.map((_, i) => (i * STEP) / HOUR);
    const first = (1.5 * DAY) / STEP;
    expect(leastSquaresSlope(hours.slice(first), flat.slice(first))).toBeGreaterThan(0.3);
    expect(smoothedSlope(flat, STEP, 1.5 * DAY)).toBeCloseTo(0, 6);
    expect(smoothedSlope(series(3, 40, 0.5), STEP, 1.5 * DAY)).toBeCloseTo(0.5, 6);
    expect(smoothedSlope(series(7, 40, -2), STEP, 3.5 * DAY)).toBeCloseTo(-2, 6);
    expect(() => smoothedSlope(flat, STEP, 12 * HOUR)).toThrow();
  });

  it('is sampled from the sessions of the record: depth at each sample time', () => {
    const record = {
      pullRequests: [
        { sessions: [[0, 30 * 60_000]] },
        { sessions: [[5 * 60_000, null]] },
        {
          sessions: [
            [10 * 60_000, 12 * 60_000],
            [25 * 60_000, 45 * 60_000],
          ],
        },
      ],
    } as unknown as SimulationRecord;
    expect(sampleBacklog(record, STEP, 60 * 60_000)).toEqual([1, 3, 2, 2, 2, 1, 1]);
  });

  it("has a noise bound of 2 σ of a random walk's least-squares slope, over √n for n seeds", () => {
    // λ = 10/h, W = 84 h: 2 · √(1.2 · 2 · 10 / 84).
    expect(slopeNoiseBound(10, 84, 1)).toBeCloseTo(1.069, 3);
    expect(slopeNoiseBound(10, 84, 5)).toBeCloseTo(1.069 / Math.sqrt(5), 3);
  });
});

describe('the stability verdict', () => {
  it('needs merged/h ≥ 95 % of the latency oracle and a slope within the noise; a draining backlog is flat', () => {
    expect(judgeStability([sample({})], 9.5)).toMatchObject({
      keepsUp: true,
      backlogFlat: true,
      stable: true,
    });
    const slow = judgeStability([sample({ mergedPerHour: 8.9 })], 9.5);
    expect(slow).toMatchObject({ keepsUp: false, backlogFlat: true, stable: false });
    expect(slow.throughputRatio).toBeCloseTo(8.9 / 9.5, 9);
    expect(judgeStability([sample({ slope: 1.2 })], 9.5)).toMatchObject({
      backlogFlat: false,
      stable: false,
    });
    expect(judgeStability([sample({ slope: -3 })], 9.5)).toMatchObject({ backlogFlat: true, stable: true });
    // Five seeds average the noise down: a mean slope of 0.6 PR/h is within one seed's noise, not five's.
    expect(judgeStability([sample({ slope: 0.6 })], 9.5).backlogFlat).toBe(true);
    expect(
      judgeStability(
        [1, 2, 3, 4, 5].map(() => sample({ slope: 0.6 })),
        9.5,
      ).backlogFlat,
    ).toBe(false);
  });

  it('flags a diverging policy (serial on mid) and not the latency oracle (3 days of mid, seeds 1 and 2)', () => {
    const runs = [1, 2].map((seed) => {
      const spec = mid(3, seed);
      const serial = simulate(spec, new SerialPolicy());
      const oracle = simulate(spec, new OraclePolicy('latency'));
      return { serial, oracle };
    });
    const oracleMerged = runs.reduce((s, r) => s + measureStability(r.oracle).mergedPerHour, 0) / runs.length;
    const serial = judgeStability(
      runs.map((r) => measureStability(r.serial)),
      oracleMerged,
    );
    const oracle = judgeStability(
      runs.map((r) => measureStability(r.oracle)),
      oracleMerged,
    );
    // Serial merges one PR per run (T = 30 min, < 2/h) of ~9 good ones arriving per hour.
    expect(serial.stable).toBe(false);
    expect(serial.keepsUp).toBe(false);
    // Each criterion flags it on its own: the backlog grows by several PRs an hour.
    expect(serial.backlogFlat).toBe(false);
    expect(serial.slope).toBeGreaterThan(5 * serial.slopeBound);
    expect(oracle.stable).toBe(true);
    expect(Math.abs(oracle.slope)).toBeLessThan(oracle.slopeBound / 5);
    expect(oracle.mergedPerHour / oracle.goodArrivalsPerHour).toBeGreaterThan(0.97);
  });

  it("leaves an unstable policy's p95 out of the comparison, and judges the others against the targets", () => {
    const spec = mid(3, 1);
    const records = {
      serial: simulate(spec, new SerialPolicy()),
      oracle: simulate(spec, new OraclePolicy('latency')),
      ci: simulate(spec, new OraclePolicy('ci')),
    };
    const runs = (name: string, kind: 'baseline' | 'oracle', record: SimulationRecord) => ({
      name,
      kind,
      seeds: [computeMetrics(record)],
      stability: [measureStability(record)],
    });
    const comparison = compareScenario({ name: 'mid', p95Target: 2 }, 12, [
      runs('serial', 'baseline', records.serial),
      runs('oracle (latency)', 'oracle', records.oracle),
      runs('oracle (ci)', 'oracle', records.ci),
    ]);
    expect(comparison.oracleStable).toBe(true);
    const [serial, oracle, ci] = comparison.results;
    expect(serial!.p95ToOracle).toBeNull();
    expect(serial!.targets).toMatchObject({ stable: 'missed', p95: 'not compared', base: 'met' });
    expect(serial!.met).toBe(false);
    expect(oracle!.p95ToOracle).toBe(1);
    expect(oracle!.targets).toMatchObject({ stable: 'met', p95: 'met' });
    // The CI oracle batches everything waiting: within 2× of the latency oracle's p95, far below the floor.
    expect(ci!.targets).toMatchObject({ stable: 'met', p95: 'met', ci: 'met', base: 'met' });
    expect(ci!.met).toBe(true);
  });
});
