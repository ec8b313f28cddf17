import type { QueueMetrics } from './metrics.ts';
import type { RosterEntry } from './roster.ts';
import { judgeStability, type StabilitySample, type StabilityVerdict } from './stability.ts';

/**
 * One scenario's results across seeds, judged against the benchmark's targets (means over the
 * seeds):
 *
 * - stable (app/sim/stability.ts), wherever the latency oracle is;
 * - p95 time in queue at most the scenario's `p95Target` times the latency oracle's (the bound:
 *   no queue merges a pull request before one CI run that contains it has finished). Only a
 *   stable policy's p95 is compared: a growing queue's p95 over a fixed window measures the
 *   window;
 * - CI minutes per merged PR at most `CI_TARGET` times the information floor
 *   (app/sim/information-floor.ts), what any queue that does not know the culprits must spend;
 * - the base branch never broken.
 */
export const CI_TARGET = 1.25;
export const LATENCY_ORACLE = 'oracle (latency)';

/**
 * `met`/`missed`; `not compared`: the policy is not stable, so its p95 says nothing; `n/a`: no
 * such target on this scenario (or, for stability, the latency oracle itself is not stable).
 */
export type TargetStatus = 'met' | 'missed' | 'not compared' | 'n/a';

export interface TargetStatuses {
  stable: TargetStatus;
  p95: TargetStatus;
  ci: TargetStatus;
  base: TargetStatus;
}

export interface PolicyRuns {
  name: string;
  kind: RosterEntry['kind'];
  /** Per seed, in seed order. */
  seeds: QueueMetrics[];
  stability: StabilitySample[];
}

export interface PolicyResult {
  name: string;
  kind: RosterEntry['kind'];
  mean: QueueMetrics;
  /** Per seed, in seed order. */
  seeds: QueueMetrics[];
  stability: StabilityVerdict;
  /** p95 time in queue over the latency oracle's; null when not stable (not compared). */
  p95ToOracle: number | null;
  /** CI minutes per merged PR over the information floor. */
  ciToFloor: number;
  targets: TargetStatuses;
  /** Every target that applies is met. */
  met: boolean;
}

export interface ScenarioComparison {
  scenario: string;
  informationFloor: number;
  p95Target: number | null;
  ciTarget: number;
  /** Whether the latency oracle is stable: the stability target applies only where it is. */
  oracleStable: boolean;
  results: PolicyResult[];
}

export function compareScenario(
  scenario: { name: string; p95Target: number | null },
  informationFloor: number,
  runs: readonly PolicyRuns[],
): ScenarioComparison {
  const oracleRuns = runs.find((r) => r.name === LATENCY_ORACLE);
  if (oracleRuns === undefined) throw new Error(`no ${LATENCY_ORACLE} to compare with`);
  const oracleMean = averageMetrics(oracleRuns.seeds);
  const oracleMerged =
    oracleRuns.stability.reduce((sum, s) => sum + s.mergedPerHour, 0) / oracleRuns.stability.length;
  const oracleStability = judgeStability(oracleRuns.stability, oracleMerged);
  const results = runs.map((run): PolicyResult => {
    const mean = averageMetrics(run.seeds);
    const stability = judgeStability(run.stability, oracleMerged);
    const p95ToOracle = stability.stable ? mean.timeInQueue.p95 / oracleMean.timeInQueue.p95 : null;
    const ciToFloor = mean.ciMinutesPerMerged / informationFloor;
    const targets: TargetStatuses = {
      stable: !oracleStability.stable ? 'n/a' : stability.stable ? 'met' : 'missed',
      p95:
        scenario.p95Target === null || !oracleStability.stable
          ? 'n/a'
          : p95ToOracle === null
            ? 'not compared'
            : p95ToOracle <= scenario.p95Target
              ? 'met'
              : 'missed',
      ci: ciToFloor <= CI_TARGET ? 'met' : 'missed',
      base: mean.baseBreaks === 0 ? 'met' : 'missed',
    };
    const met = Object.values(targets).every((status) => status === 'met' || status === 'n/a');
    return { ...run, mean, stability, p95ToOracle, ciToFloor, targets, met };
  });
  return {
    scenario: scenario.name,
    informationFloor,
    p95Target: scenario.p95Target,
    ciTarget: CI_TARGET,
    oracleStable: oracleStability.stable,
    results,
  };
}

export function averageMetrics(seeds: readonly QueueMetrics[]): QueueMetrics {
  const n = seeds.length;
  const mean = (pick: (m: QueueMetrics) => number) => seeds.reduce((sum, m) => sum + pick(m), 0) / n;
  const first = seeds[0]!;
  return {
    policy: first.policy,
    mergedPerHour: mean((m) => m.mergedPerHour),
    merged: mean((m) => m.merged),
    timeInQueue: {
      p50: mean((m) => m.timeInQueue.p50),
      p95: mean((m) => m.timeInQueue.p95),
      p99: mean((m) => m.timeInQueue.p99),
      mean: mean((m) => m.timeInQueue.mean),
    },
    ciRunsPerMerged: mean((m) => m.ciRunsPerMerged),
    ciMinutesPerMerged: mean((m) => m.ciMinutesPerMerged),
    goodEjected: mean((m) => m.goodEjected),
    baseBreaks: mean((m) => m.baseBreaks),
    queueDepth: {
      mean: mean((m) => m.queueDepth.mean),
      max: Math.max(...seeds.map((m) => m.queueDepth.max)),
    },
    unfinished: mean((m) => m.unfinished),
  };
}
