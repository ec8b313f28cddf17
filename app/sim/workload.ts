import { decideConflict, type PullRequestTruth } from './ci-model.ts';
import { createRandom } from './random.ts';

/**
 * Who queues what and when: the workload shared by the simulator and the sandbox. Pull requests
 * arrive as a Poisson process whose rate follows a daily profile and optional bursts, plus
 * optional daily drops (many queued at once, as coding agents do); each touches one area
 * (sometimes two) drawn from a Zipf law — a few big areas, many small ones — is bad with
 * probability p, a hotfix with a small probability, and semantically conflicts with some recent
 * pull requests of a shared area. Same spec ⇒ same items.
 */
export interface WorkloadSpec {
  seed: number;
  /** Arrivals stop at this offset (ms) from the start; the start is a Monday 00:00. */
  durationMs: number;
  /** Mean arrival rate over a day (pull requests per hour). */
  ratePerHour: number;
  /** Relative rate of each hour of the day (24 values, rescaled to mean 1). Default: flat. */
  dailyProfile?: readonly number[];
  /** Periods where arrivals are `factor` times the profile's rate. */
  bursts?: readonly Burst[];
  /** Pull requests queued together every day on top of the Poisson arrivals (coding agents). */
  dailyDrops?: readonly DailyDrop[];
  /** Number of areas (1 = one shared area). */
  areas: number;
  /** Zipf exponent of area sizes (0 = equal sizes). */
  areaSkew: number;
  /** Probability that a pull request also touches a second area. */
  secondAreaRate: number;
  /** Probability p that a pull request is bad. */
  badRate: number;
  /** Probability q that two pull requests of a shared area conflict… */
  conflictRate: number;
  /** …when the later one arrives within this window (ms) of the earlier one (they overlap in review). */
  conflictWindowMs: number;
  /** Probability that a pull request is a hotfix (queued with high priority). */
  hotfixRate: number;
}

export interface Burst {
  startMs: number;
  durationMs: number;
  factor: number;
}

/**
 * `count` pull requests queued every day within `withinMs` after `offsetMs` past midnight (their
 * times uniform in that window): what a fleet of coding agents opening its work at once does.
 */
export interface DailyDrop {
  offsetMs: number;
  withinMs: number;
  count: number;
}

export interface WorkloadItem {
  /** Offset (ms) from the start when the pull request is queued. */
  at: number;
  pullRequest: PullRequestTruth;
  hotfix: boolean;
  /** Changed files: `areas/<area>/…`, what partition rules match. */
  files: string[];
}

/** An engineering team's working day: quiet nights, a morning and an afternoon peak. */
export const OFFICE_HOURS_PROFILE: readonly number[] = [
  0.2, 0.15, 0.1, 0.1, 0.1, 0.15, 0.3, 0.6, 1.2, 1.8, 2, 1.8, 1.2, 1.6, 2, 2, 1.8, 1.4, 1, 0.8, 0.6, 0.5, 0.4,
  0.3,
];

export function areaName(index: number): string {
  return `area-${String(index).padStart(2, '0')}`;
}

/** The partition rule condition that matches an area's files. */
export function areaFilesPattern(area: string): string {
  return `^areas/${area}/`;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export function generateWorkload(spec: WorkloadSpec): WorkloadItem[] {
  const random = createRandom(spec.seed);
  const arrivals = random.fork('arrivals');
  const traits = random.fork('traits');
  const profile = normalizeProfile(spec.dailyProfile ?? [1]);
  const peak = Math.max(...profile) * Math.max(1, ...(spec.bursts ?? []).map((b) => b.factor));
  const peakRate = (spec.ratePerHour * peak) / HOUR;
  const times: number[] = [];
  // Thinning: candidates at the peak rate, each kept with probability rate(t) / peak.
  for (
    let at = arrivals.exponential(1 / peakRate);
    at < spec.durationMs;
    at += arrivals.exponential(1 / peakRate)
  ) {
    if (arrivals.chance(computeRate(spec, profile, at) / (spec.ratePerHour * peak))) times.push(at);
  }
  if ((spec.dailyDrops ?? []).length > 0) {
    // Their own stream: the Poisson arrivals are the ones drawn without drops.
    const drops = random.fork('daily-drops');
    for (let day = 0; day * DAY < spec.durationMs; day++) {
      for (const drop of spec.dailyDrops!) {
        for (let i = 0; i < drop.count; i++) {
          const at = day * DAY + drop.offsetMs + drops.next() * drop.withinMs;
          if (at < spec.durationMs) times.push(at);
        }
      }
    }
    times.sort((a, b) => a - b);
  }
  const items: WorkloadItem[] = [];
  const partners = new Map<number, number[]>();
  for (const at of times) {
    const number = items.length + 1;
    const areas = drawAreas(spec, traits);
    const pr = { number, areas, bad: traits.chance(spec.badRate), conflictsWith: [] as number[] };
    const own: number[] = [];
    for (let i = items.length - 1; i >= 0; i--) {
      const earlier = items[i]!;
      if (at - earlier.at > spec.conflictWindowMs) break;
      if (!decideConflict(spec.seed, spec.conflictRate, earlier.pullRequest, pr)) continue;
      own.push(earlier.pullRequest.number);
      partners.get(earlier.pullRequest.number)!.push(number);
    }
    partners.set(number, own);
    items.push({
      at: Math.round(at),
      pullRequest: pr,
      hotfix: traits.chance(spec.hotfixRate),
      files: areas.map((area) => `areas/${area}/change-${number}.ts`),
    });
  }
  return items.map((item) => ({
    ...item,
    pullRequest: {
      ...item.pullRequest,
      conflictsWith: (partners.get(item.pullRequest.number) ?? []).sort((a, b) => a - b),
    },
  }));
}

/** Arrivals per hour at an offset: profile × bursts. */
export function computeRate(spec: WorkloadSpec, profile: readonly number[], at: number): number {
  const hour = Math.floor(at / HOUR) % 24;
  const factor = profile[Math.floor((hour * profile.length) / 24)] ?? 1;
  const burst = (spec.bursts ?? [])
    .filter((b) => at >= b.startMs && at < b.startMs + b.durationMs)
    .reduce((f, b) => f * b.factor, 1);
  return spec.ratePerHour * factor * burst;
}

/** Rescales a profile so that its mean is 1 (the spec's rate is the daily mean). */
export function normalizeProfile(profile: readonly number[]): number[] {
  const mean = profile.reduce((sum, v) => sum + v, 0) / profile.length;
  return profile.map((v) => v / mean);
}

function drawAreas(spec: WorkloadSpec, random: ReturnType<typeof createRandom>): string[] {
  const first = random.zipf(spec.areas, spec.areaSkew);
  if (spec.areas < 2 || !random.chance(spec.secondAreaRate)) return [areaName(first)];
  let second = random.zipf(spec.areas, spec.areaSkew);
  // A second, different area: redraw (bounded) rather than bias towards neighbours.
  for (let i = 0; i < 16 && second === first; i++) second = random.zipf(spec.areas, spec.areaSkew);
  return second === first ? [areaName(first)] : [first, second].sort((a, b) => a - b).map(areaName);
}
