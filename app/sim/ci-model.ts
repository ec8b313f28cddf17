import { hashToNormal, hashToUnit } from './random.ts';

/**
 * The simulated CI, shared by the simulator (app/sim) and the sandbox code host (app/sandbox).
 *
 * Each pull request carries a hidden truth: it is *bad* (breaks the build whatever it is
 * merged with) or not, and it may *semantically conflict* with some other pull requests — both
 * are fine alone, the build breaks once both are in. A run tests the base plus some pull
 * requests; `decideRun` is a pure function of the model, the run's key and its content, so
 * asking twice about the same run gives the same answer.
 */
export interface CiModel {
  /** Seeds the flaky failures and the durations. */
  seed: number;
  /** Median run duration T (ms). */
  medianMs: number;
  /** σ of the log-duration: 0 for a fixed duration; 0.25 gives p90 ≈ 1.4 T. */
  spread: number;
  /** Probability f that a run fails although its content is fine. */
  flakeRate: number;
}

/** What CI knows about a pull request and the queue does not. */
export interface PullRequestTruth {
  number: number;
  /** Areas of the code it touches (conflicts need a shared area; partitions follow areas). */
  areas: readonly string[];
  /** Breaks the build on any base. */
  bad: boolean;
  /** Pull requests it semantically conflicts with (symmetric: each lists the other). */
  conflictsWith: readonly number[];
}

/** The base branch's content as far as CI cares: which pull requests it holds, and whether it is broken. */
export interface BaseContent {
  has(number: number): boolean;
  /** A bad pull request or both sides of a conflict reached it: every run on it fails. */
  readonly broken: boolean;
}

export type FailureCause = 'bad' | 'conflict' | 'flaky' | 'broken_base';

export interface RunOutcome {
  passed: boolean;
  durationMs: number;
  /** null when passed. */
  cause: FailureCause | null;
  /** The pull requests whose content made it fail (empty for flaky or broken-base failures). */
  culprits: number[];
}

/**
 * The outcome of one CI run of `tested` (in merge order) on `base`. `key` names the run (e.g.
 * batch id and attempt): a retry must use a new key to get a new flaky draw and duration.
 */
export function decideRun(
  model: CiModel,
  run: { key: string; base: BaseContent; tested: readonly PullRequestTruth[] },
): RunOutcome {
  const durationMs = computeRunDuration(model, run.key);
  const culprits = findCulprits(run.base, run.tested);
  if (run.base.broken) return { passed: false, durationMs, cause: 'broken_base', culprits };
  if (culprits.length > 0) {
    const cause = run.tested.some((pr) => pr.bad && culprits.includes(pr.number)) ? 'bad' : 'conflict';
    return { passed: false, durationMs, cause, culprits };
  }
  if (hashToUnit(model.seed, 'flake', run.key) < model.flakeRate) {
    return { passed: false, durationMs, cause: 'flaky', culprits: [] };
  }
  return { passed: true, durationMs, cause: null, culprits: [] };
}

/** A run's duration: lognormal around the median, fixed by the run's key. */
export function computeRunDuration(model: CiModel, key: string): number {
  if (model.spread === 0) return model.medianMs;
  return Math.round(model.medianMs * Math.exp(model.spread * hashToNormal(model.seed, 'duration', key)));
}

/**
 * The tested pull requests that break the build: bad ones, and the later side of each
 * conflicting pair (the one that fails on top of the other, in the base or ahead of it).
 */
export function findCulprits(base: BaseContent, tested: readonly PullRequestTruth[]): number[] {
  const ahead = new Set<number>();
  const culprits: number[] = [];
  for (const pr of tested) {
    if (pr.bad || pr.conflictsWith.some((n) => ahead.has(n) || base.has(n))) culprits.push(pr.number);
    ahead.add(pr.number);
  }
  return culprits;
}

/**
 * Whether two pull requests conflict: only when they share an area, then with probability q,
 * fixed by the seed and the pair (so either order gives the same answer).
 */
export function decideConflict(
  seed: number,
  q: number,
  a: Pick<PullRequestTruth, 'number' | 'areas'>,
  b: Pick<PullRequestTruth, 'number' | 'areas'>,
): boolean {
  if (a.number === b.number || !a.areas.some((area) => b.areas.includes(area))) return false;
  const [lo, hi] = a.number < b.number ? [a.number, b.number] : [b.number, a.number];
  return hashToUnit(seed, 'conflict', lo, hi) < q;
}

/** A base branch that records what is merged into it and notices when it breaks. */
export class TrackedBase implements BaseContent {
  private readonly merged = new Set<number>();
  private brokenBy: number[] = [];

  has(number: number): boolean {
    return this.merged.has(number);
  }

  get broken(): boolean {
    return this.brokenBy.length > 0;
  }

  /** The pull requests whose merge broke the base (bad ones, or the second side of a conflict). */
  get culprits(): readonly number[] {
    return this.brokenBy;
  }

  /** Merges a pull request; returns true when that broke the base. */
  merge(pr: PullRequestTruth): boolean {
    const breaks = pr.bad || pr.conflictsWith.some((n) => this.merged.has(n));
    this.merged.add(pr.number);
    if (breaks) this.brokenBy = [...this.brokenBy, pr.number];
    return breaks;
  }

  /** Takes a merged pull request out again (a revert), e.g. to repair a broken base. */
  revert(number: number): void {
    this.merged.delete(number);
    this.brokenBy = this.brokenBy.filter((n) => n !== number);
  }
}
