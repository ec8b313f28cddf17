import { isCulprit } from './information-floor.ts';
import type { SimulationRecord } from './simulator.ts';

/**
 * Is a queue keeping up? A queue that merges more slowly than good pull requests arrive has a
 * backlog that grows without bound, and its p95 time in queue over a fixed window only says how
 * long the window was. So before any latency is compared, each run is judged stable or not, on
 * the second half of the measured window (the first half fills the queue from empty):
 *
 * - throughput: merged/h at least `THROUGHPUT_SHARE` (95 %) of the latency oracle's, which
 *   merges every good pull request one CI run after it is queued (so its merged/h is the good
 *   arrivals per hour). Counted over the second half, a stable queue merges what arrived one
 *   time-in-queue earlier, as many per hour as arrive, however slow it is; counted from the
 *   start, its first hours of filling the pipeline would count against it as lost throughput.
 *   With a whole number of days in the half (an even number of days in all), the daily profile
 *   does not bias the count either;
 * - backlog: the slope of the queue's depth over the second half is ≈ 0 within noise (below).
 *
 * The backlog is the number of pull requests in the queue, sampled every `SAMPLE_MS`. The daily
 * profile makes it swing every day, and a least-squares line through a day or two of a daily
 * swing takes the swing's phase for a slope (±0.3 PR/h for a swing of ±40 PRs over a day and a
 * half); so the series is first averaged over the day before each sample (a trailing 24-hour
 * mean, which removes any daily cycle exactly), and the slope (pull requests per hour) is
 * fitted by least squares to that mean at the samples from mid-run to the end of the measured
 * window (the drain after it is left out).
 *
 * "≈ 0 within noise": the slope is not significantly positive against a queue that merges
 * exactly as fast as pull requests arrive. Such a queue is the boundary between stable and
 * diverging; its backlog is a random walk whose variance grows by about 2λ per hour (λ
 * arrivals and as many departures per hour, Poisson), and the least-squares slope of a random
 * walk with variance rate v over a window of W hours has a standard deviation of √(6v / 5W). The
 * bound is two of those, over √n for the mean of n seeds:
 *
 *     slope ≤ NOISE_SIGMAS · √(1.2 · 2λ / W) / √n
 *
 * with λ the pull requests first queued per hour in the second half (good or not) and W its
 * length in hours. On mid (λ ≈ 10/h) over 6 days (W = 72 h), that is 1.15 PR/h for one seed and
 * 0.52 PR/h for the mean of five, about 5 % of the arrival rate. A negative slope (a backlog
 * draining after a burst) is not divergence, so the test is one-sided. The bound is a random
 * walk's: a stable queue's backlog returns to its mean and its slope is far smaller, so a queue
 * flagged by it is falling behind, not unlucky.
 */
export const SAMPLE_MS = 10 * 60_000;
/** The trailing mean's length: one day, the period of the arrivals' profile. */
export const SMOOTHING_MS = 24 * 3_600_000;
export const THROUGHPUT_SHARE = 0.95;
export const NOISE_SIGMAS = 2;

const HOUR = 3_600_000;

/** What one run says about stability, over the second half of the measured window. */
export interface StabilitySample {
  /** Merged in the second half, per hour of it. */
  mergedPerHour: number;
  /** Pull requests first queued in the second half per hour, and those of them that can merge (not culprits). */
  arrivalsPerHour: number;
  goodArrivalsPerHour: number;
  /** Least-squares slope of the day-averaged backlog over the second half, PRs per hour. */
  slope: number;
  /** Length of the second half, hours. */
  windowHours: number;
}

export interface StabilityVerdict {
  /** Means over the samples (seeds). */
  mergedPerHour: number;
  goodArrivalsPerHour: number;
  slope: number;
  /** The noise bound the mean slope is held to (PRs per hour). */
  slopeBound: number;
  /** merged/h over the latency oracle's. */
  throughputRatio: number;
  keepsUp: boolean;
  backlogFlat: boolean;
  stable: boolean;
}

/** The queue's depth at 0, step, 2·step, … up to `untilMs` (inclusive), from the record's sessions. */
export function sampleBacklog(record: SimulationRecord, stepMs: number, untilMs: number): number[] {
  const changes: [number, number][] = [];
  for (const pr of record.pullRequests) {
    for (const [entered, left] of pr.sessions) {
      changes.push([entered, 1]);
      if (left !== null) changes.push([left, -1]);
    }
  }
  changes.sort((a, b) => a[0] - b[0]);
  const samples: number[] = [];
  let depth = 0;
  let next = 0;
  for (let at = 0; at <= untilMs; at += stepMs) {
    while (next < changes.length && changes[next]![0] <= at) depth += changes[next++]![1];
    samples.push(depth);
  }
  return samples;
}

/** Least-squares slope of y against x. */
export function leastSquaresSlope(xs: readonly number[], ys: readonly number[]): number {
  const n = xs.length;
  if (n < 2) return 0;
  const mx = xs.reduce((s, x) => s + x, 0) / n;
  const my = ys.reduce((s, y) => s + y, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my);
    den += (xs[i]! - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

/**
 * Slope (per hour) of the trailing `SMOOTHING_MS` mean of a series sampled every `stepMs` from
 * 0, fitted at the samples from `fromMs` on. Needs `fromMs` ≥ the smoothing length.
 */
export function smoothedSlope(samples: readonly number[], stepMs: number, fromMs: number): number {
  const span = Math.round(SMOOTHING_MS / stepMs);
  const first = Math.ceil(fromMs / stepMs);
  if (first < span - 1) throw new Error('the slope window must start at least one smoothing length in');
  const xs: number[] = [];
  const ys: number[] = [];
  let sum = 0;
  for (let i = 0; i < samples.length; i++) {
    sum += samples[i]!;
    if (i >= span) sum -= samples[i - span]!;
    if (i >= first) {
      xs.push((i * stepMs) / HOUR);
      ys.push(sum / span);
    }
  }
  return leastSquaresSlope(xs, ys);
}

/** One run's figures over the second half of the measured window: throughput, arrivals, the backlog's slope. */
export function measureStability(record: SimulationRecord): StabilitySample {
  const { horizonMs, workload } = record.spec;
  const from = horizonMs / 2;
  const hours = (horizonMs - from) / HOUR;
  const arrived = workload.filter((w) => w.at >= from && w.at < horizonMs);
  const good = arrived.filter((w) => !isCulprit(w.pullRequest)).length;
  const merged = record.pullRequests.filter(
    (pr) => pr.mergedAt !== null && pr.mergedAt > from && pr.mergedAt <= horizonMs,
  ).length;
  const samples = sampleBacklog(record, SAMPLE_MS, horizonMs);
  return {
    mergedPerHour: merged / hours,
    arrivalsPerHour: arrived.length / hours,
    goodArrivalsPerHour: good / hours,
    slope: smoothedSlope(samples, SAMPLE_MS, from),
    windowHours: hours,
  };
}

/** The noise bound on the mean slope of `seeds` runs (see the module's comment). */
export function slopeNoiseBound(arrivalsPerHour: number, windowHours: number, seeds: number): number {
  return (NOISE_SIGMAS * Math.sqrt((1.2 * 2 * arrivalsPerHour) / windowHours)) / Math.sqrt(seeds);
}

/**
 * The verdict over seeds: stable when the mean merged/h is at least 95 % of the latency
 * oracle's mean (both over the second half: `StabilitySample.mergedPerHour`) and the mean slope
 * is within the noise bound.
 */
export function judgeStability(
  samples: readonly StabilitySample[],
  oracleMergedPerHour: number,
): StabilityVerdict {
  const n = samples.length;
  if (n === 0) throw new Error('no runs to judge');
  const mean = (pick: (s: StabilitySample) => number) => samples.reduce((sum, s) => sum + pick(s), 0) / n;
  const mergedPerHour = mean((s) => s.mergedPerHour);
  const slope = mean((s) => s.slope);
  const slopeBound = slopeNoiseBound(
    mean((s) => s.arrivalsPerHour),
    mean((s) => s.windowHours),
    n,
  );
  const throughputRatio = mergedPerHour / oracleMergedPerHour;
  const keepsUp = throughputRatio >= THROUGHPUT_SHARE;
  const backlogFlat = slope <= slopeBound;
  return {
    mergedPerHour,
    goodArrivalsPerHour: mean((s) => s.goodArrivalsPerHour),
    slope,
    slopeBound,
    throughputRatio,
    keepsUp,
    backlogFlat,
    stable: keepsUp && backlogFlat,
  };
}
