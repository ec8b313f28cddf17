import type { CiModel } from './ci-model.ts';
import type { SimulationSpec } from './simulator.ts';
import { generateWorkload, OFFICE_HOURS_PROFILE, type WorkloadSpec } from './workload.ts';

/**
 * The benchmark's scenarios. Each fixes the workload and CI; the seed varies. Shared
 * assumptions: durations lognormal around T with σ 0.25; arrivals follow an office-hours daily
 * profile (the rate given is the daily mean); 1 % hotfixes; a PR also touches a second area 10 %
 * of the time; two PRs of a shared area queued within an hour of each other conflict with
 * probability q = 0.5 %; a good PR ejected by the queue is queued again by its author 15 minutes
 * later (up to 3 times).
 */
export interface Scenario {
  name: string;
  description: string;
  workload: Omit<WorkloadSpec, 'seed'>;
  ci: Omit<CiModel, 'seed'>;
  capacity: number;
  /** Partition the queue by area (the monorepo). */
  partitionByArea: boolean;
  /**
   * The benchmark's target for p95 time in queue: at most this many times the latency oracle's
   * (null: no target on this scenario).
   */
  p95Target: number | null;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const MINUTE = 60_000;
export const SIMULATED_DAYS = 6;

const common = {
  durationMs: SIMULATED_DAYS * DAY,
  dailyProfile: OFFICE_HOURS_PROFILE,
  secondAreaRate: 0.1,
  conflictRate: 0.005,
  conflictWindowMs: HOUR,
  hotfixRate: 0.01,
  areaSkew: 1,
};

export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'small',
    description: '2 PRs/h, T = 15 min, p = 2 %, f = 1 %, C = 4',
    workload: { ...common, ratePerHour: 2, areas: 4, badRate: 0.02 },
    ci: { medianMs: 15 * MINUTE, spread: 0.25, flakeRate: 0.01 },
    capacity: 4,
    partitionByArea: false,
    p95Target: null,
  },
  {
    name: 'mid',
    description: '10 PRs/h, T = 30 min, p = 5 %, f = 3 %, C = 10',
    workload: { ...common, ratePerHour: 10, areas: 8, badRate: 0.05 },
    ci: { medianMs: 30 * MINUTE, spread: 0.25, flakeRate: 0.03 },
    capacity: 10,
    partitionByArea: false,
    p95Target: 2,
  },
  {
    name: 'monorepo',
    description: '40 PRs/h, T = 45 min, 20 areas (Zipf), p = 5 %, f = 5 %, C = 30',
    workload: { ...common, ratePerHour: 40, areas: 20, badRate: 0.05 },
    ci: { medianMs: 45 * MINUTE, spread: 0.25, flakeRate: 0.05 },
    capacity: 30,
    partitionByArea: true,
    p95Target: 3,
  },
  {
    name: 'burst',
    description: 'mid, with 3× arrivals for 2 hours (day 3, 10:00–12:00)',
    workload: {
      ...common,
      ratePerHour: 10,
      areas: 8,
      badRate: 0.05,
      bursts: [{ startMs: 2 * DAY + 10 * HOUR, durationMs: 2 * HOUR, factor: 3 }],
    },
    ci: { medianMs: 30 * MINUTE, spread: 0.25, flakeRate: 0.03 },
    capacity: 10,
    partitionByArea: false,
    p95Target: 2,
  },
  {
    name: 'flaky',
    description: 'mid with f = 10 %: 10 PRs/h, T = 30 min, p = 5 %, C = 10',
    workload: { ...common, ratePerHour: 10, areas: 8, badRate: 0.05 },
    ci: { medianMs: 30 * MINUTE, spread: 0.25, flakeRate: 0.1 },
    capacity: 10,
    partitionByArea: false,
    p95Target: 2,
  },
  {
    name: 'slow-ci',
    description: '6 PRs/h, T = 90 min, p = 5 %, f = 3 %, C = 12',
    workload: { ...common, ratePerHour: 6, areas: 8, badRate: 0.05 },
    ci: { medianMs: 90 * MINUTE, spread: 0.25, flakeRate: 0.03 },
    capacity: 12,
    partitionByArea: false,
    p95Target: 2,
  },
  {
    name: 'agent-burst',
    description: 'mid, plus 80 PRs queued within 10 minutes every day at 09:00 (coding agents)',
    workload: {
      ...common,
      ratePerHour: 10,
      areas: 8,
      badRate: 0.05,
      dailyDrops: [{ offsetMs: 9 * HOUR, withinMs: 10 * MINUTE, count: 80 }],
    },
    ci: { medianMs: 30 * MINUTE, spread: 0.25, flakeRate: 0.03 },
    capacity: 10,
    partitionByArea: false,
    p95Target: 3,
  },
];

export function findScenario(name: string): Scenario {
  const scenario = SCENARIOS.find((s) => s.name === name);
  if (scenario === undefined) throw new Error(`no scenario ${name}`);
  return scenario;
}

/**
 * The simulation of a scenario with a seed (the workload's, CI's and the engine's), over `days`
 * of arrivals (default: the scenario's). A shorter run's workload is the start of a longer one's.
 */
export function buildSimulation(scenario: Scenario, seed: number, days?: number): SimulationSpec {
  const durationMs = days === undefined ? scenario.workload.durationMs : days * DAY;
  return {
    workload: generateWorkload({ ...scenario.workload, durationMs, seed }),
    ci: { ...scenario.ci, seed },
    capacity: scenario.capacity,
    horizonMs: durationMs,
    drainMs: DAY,
    requeueDelayMs: 15 * MINUTE,
    maxRequeues: 3,
  };
}
