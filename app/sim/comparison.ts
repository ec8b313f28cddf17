import type { QueueMetrics } from './metrics.ts';
import type { RosterEntry } from './roster.ts';

/**
 * One scenario's results across seeds: the mean of each figure per policy, the ratios to the
 * oracles (p95 to the latency oracle, CI to the CI oracle: each the bound for its figure), and
 * whether Trainyard dominates each baseline — strictly better on p95 time in queue or on CI
 * minutes per merged PR, and no worse on the other.
 */
export interface PolicyResult {
  name: string;
  kind: RosterEntry['kind'];
  mean: QueueMetrics;
  /** Per seed, in seed order. */
  seeds: QueueMetrics[];
  p95ToOracle: number;
  ciToOracle: number;
}

export interface ScenarioComparison {
  scenario: string;
  results: PolicyResult[];
  /** Baselines Trainyard dominates, and those it does not. */
  dominates: string[];
  notDominated: string[];
}

export function compareScenario(
  scenario: string,
  runs: readonly { name: string; kind: RosterEntry['kind']; seeds: QueueMetrics[] }[],
): ScenarioComparison {
  const means = runs.map((run) => ({ ...run, mean: averageMetrics(run.seeds) }));
  const latency = means.find((r) => r.name === 'oracle (latency)')?.mean.timeInQueue.p95 ?? Number.NaN;
  const ci = means.find((r) => r.name === 'oracle (ci)')?.mean.ciMinutesPerMerged ?? Number.NaN;
  const results = means.map((r) => ({
    ...r,
    p95ToOracle: r.mean.timeInQueue.p95 / latency,
    ciToOracle: r.mean.ciMinutesPerMerged / ci,
  }));
  const trainyard = results.find((r) => r.kind === 'trainyard');
  const baselines = results.filter((r) => r.kind === 'baseline');
  const dominated = (b: PolicyResult) => trainyard !== undefined && dominatesOn(trainyard.mean, b.mean);
  return {
    scenario,
    results,
    dominates: baselines.filter(dominated).map((b) => b.name),
    notDominated: baselines.filter((b) => !dominated(b)).map((b) => b.name),
  };
}

/** a dominates b: strictly better on one of p95 time in queue and CI minutes per merged PR, no worse on the other. */
export function dominatesOn(a: QueueMetrics, b: QueueMetrics): boolean {
  const [ap, bp] = [a.timeInQueue.p95, b.timeInQueue.p95];
  const [ac, bc] = [a.ciMinutesPerMerged, b.ciMinutesPerMerged];
  return (ap < bp && ac <= bc) || (ac < bc && ap <= bp);
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
