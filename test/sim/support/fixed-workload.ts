import type { PullRequestTruth } from '../../../app/sim/ci-model.ts';
import type { SimulationSpec } from '../../../app/sim/simulator.ts';
import type { WorkloadItem } from '../../../app/sim/workload.ts';

const MINUTE = 60_000;

/** Pull requests queued at given minutes, with a fixed CI duration and no flakiness: for exact cases. */
export function fixedSimulation(params: {
  arrivals: readonly number[];
  ciMinutes: number;
  bad?: readonly number[];
  capacity?: number;
  horizonMinutes?: number;
}): SimulationSpec {
  const workload: WorkloadItem[] = params.arrivals.map((minute, i) => {
    const pullRequest: PullRequestTruth = {
      number: i + 1,
      areas: ['area-00'],
      bad: (params.bad ?? []).includes(i + 1),
      conflictsWith: [],
    };
    return { at: minute * MINUTE, pullRequest, hotfix: false, files: [`areas/area-00/change-${i + 1}.ts`] };
  });
  return {
    workload,
    ci: { seed: 1, medianMs: params.ciMinutes * MINUTE, spread: 0, flakeRate: 0 },
    capacity: params.capacity ?? 100,
    horizonMs: (params.horizonMinutes ?? 24 * 60) * MINUTE,
    drainMs: 24 * 60 * MINUTE,
    requeueDelayMs: 15 * MINUTE,
    maxRequeues: 0,
  };
}

/** Minutes from queueing to merge per pull request (null: not merged). */
export function mergeMinutes(record: { pullRequests: { number: number; mergedAt: number | null }[] }) {
  return Object.fromEntries(
    record.pullRequests.map((pr) => [pr.number, pr.mergedAt === null ? null : pr.mergedAt / MINUTE]),
  );
}
