import { hashToUnit } from '../sim/random.ts';
import { generateWorkload, type WorkloadItem } from '../sim/workload.ts';
import type { SandboxCi } from './ci.ts';
import type { Clock } from './clock.ts';
import { DEMO_AUTHORS, DEMO_MAINTAINER, HOTFIX_LABEL } from './demo-repository.ts';
import type { Repository } from './entities.ts';
import type { SandboxGithub } from './model.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

export interface DemoWorkloadSettings {
  seed: number;
  /** Pull requests opened per hour of sandbox time, on average (a Poisson process, flat over the day). */
  ratePerHour: number;
  /** Areas of code (`areas/area-00/`…); pull requests of one area may conflict. */
  areas: number;
  /** Zipf exponent of area sizes: a few busy areas, some quiet ones. */
  areaSkew: number;
  /** Probability that a pull request also touches a second area. */
  secondAreaRate: number;
  /** Probability that a pull request is bad: CI fails every run that contains it. */
  badRate: number;
  /** Probability that a pull request is a hotfix, labelled for the priority rule. */
  hotfixRate: number;
  /** Probability that two pull requests of an area opened within conflictWindowMs break the build together. */
  conflictRate: number;
  conflictWindowMs: number;
  /**
   * Probability that a pull request also edits its area's `index.ts`: two such pull requests
   * of one area conflict in git, so the second to merge cannot (a textual conflict).
   */
  sharedFileRate: number;
  /** Commits pushed to the base branch from outside the queue, per hour on average. */
  externalPushesPerHour: number;
  /** From opening a pull request to its author's `@trainyard queue` comment. */
  queueDelayMs: { min: number; max: number };
  /** The workload is generated one period at a time (app/sim/workload.ts needs a length). */
  periodMs: number;
}

/** A lively but readable demo: a pull request every 7½ minutes, a few of them bad or hotfixes. */
export const DEFAULT_DEMO_WORKLOAD: DemoWorkloadSettings = {
  seed: 1,
  ratePerHour: 8,
  areas: 4,
  areaSkew: 0.8,
  secondAreaRate: 0.15,
  badRate: 0.08,
  hotfixRate: 0.08,
  conflictRate: 0.1,
  conflictWindowMs: 30 * MINUTE,
  sharedFileRate: 0.1,
  externalPushesPerHour: 0.5,
  queueDelayMs: { min: 30_000, max: 5 * MINUTE },
  periodMs: 7 * 24 * HOUR,
};

/**
 * The workload of a sandbox that runs `pace` times faster than a real repository (decision
 * 0030): pull requests and pushes come `pace` times as often, and every wait is `pace` times
 * shorter. The clock stays the wall clock; the durations shrink.
 */
export function paceWorkload(settings: DemoWorkloadSettings, pace: number): DemoWorkloadSettings {
  if (!(pace > 0)) throw new Error('the pace must be positive');
  if (pace === 1) return settings;
  const shorter = (ms: number) => Math.max(1, Math.round(ms / pace));
  return {
    ...settings,
    ratePerHour: settings.ratePerHour * pace,
    externalPushesPerHour: settings.externalPushesPerHour * pace,
    conflictWindowMs: shorter(settings.conflictWindowMs),
    queueDelayMs: { min: shorter(settings.queueDelayMs.min), max: shorter(settings.queueDelayMs.max) },
    // As many pull requests per generated period as at pace 1.
    periodMs: shorter(settings.periodMs),
  };
}

/** Where the workload stands: what a restarted sandbox needs to go on without repeating itself. */
export interface DemoWorkloadState {
  /** Sandbox time of the workload's offset 0. */
  startedAt: number;
  /** The period being played, and the index of its next item to open. */
  period: number;
  next: number;
  /** Pull requests opened so far (names branches and files, unique across periods). */
  opened: number;
  /** Workload number → sandbox PR number, for this period's items: the app's draft PRs take numbers too. */
  numbers: [number, number][];
  /** Opened pull requests whose author has yet to queue them. */
  comments: { number: number; author: string; at: number }[];
  /** External pushes so far, and when the next one comes (null: none planned). */
  pushes: number;
  nextPushAt: number | null;
}

export type DemoActivity =
  | {
      type: 'opened';
      number: number;
      author: string;
      hotfix: boolean;
      bad: boolean;
      areas: readonly string[];
    }
  | { type: 'queued'; number: number; author: string }
  | { type: 'pushed'; sha: string; label: string }
  | { type: 'error'; error: Error };

export interface DemoWorkloadOptions {
  github: SandboxGithub;
  ci: SandboxCi;
  clock: Clock;
  repo: Repository;
  settings: DemoWorkloadSettings;
  /** A previous run's toSnapshot(): goes on from there. */
  state?: DemoWorkloadState;
  onActivity?: (activity: DemoActivity) => void;
}

type Due = { at: number; run: () => void };

/**
 * Plays app/sim/workload.ts on the sandbox over time: authors with write permission open pull
 * requests touching files of their areas, queue them with a comment a little later, label some
 * as hotfixes; CI is told which are bad or conflict (by their sandbox numbers), and a
 * maintainer pushes to the base branch now and then. Everything is drawn from the seed, so a
 * run on a virtual clock is the same every time.
 */
export class DemoWorkload {
  private readonly state: DemoWorkloadState;
  private items: WorkloadItem[];
  private cancel: (() => void) | null = null;

  constructor(private readonly options: DemoWorkloadOptions) {
    const now = options.clock.now();
    this.state = options.state
      ? structuredClone(options.state)
      : {
          startedAt: now,
          period: 0,
          next: 0,
          opened: 0,
          numbers: [],
          comments: [],
          pushes: 0,
          nextPushAt: null,
        };
    if (!options.state) this.state.nextPushAt = this.pushAfter(now);
    this.items = this.generate(this.state.period);
  }

  start(): void {
    if (!this.cancel) this.wake();
  }

  stop(): void {
    this.cancel?.();
    this.cancel = null;
  }

  /**
   * Moves everything still to come `ms` later: a sandbox resumed after being stopped goes on
   * where it was instead of doing at once all that fell due while it was stopped.
   */
  shift(ms: number): void {
    if (!(ms > 0)) return;
    this.state.startedAt += ms;
    for (const comment of this.state.comments) comment.at += ms;
    if (this.state.nextPushAt !== null) this.state.nextPushAt += ms;
    this.options.github.changes.workload();
  }

  toSnapshot(): DemoWorkloadState {
    return structuredClone(this.state);
  }

  /** The sandbox PR number of a workload item of the current period, if opened. */
  pullRequestOf(workloadNumber: number): number | undefined {
    return this.state.numbers.find(([w]) => w === workloadNumber)?.[1];
  }

  /** Does everything due by now, in time order, then sleeps until the next thing is due. */
  private wake(): void {
    this.cancel = null;
    const now = this.options.clock.now();
    for (let due = this.nextDue(); due && due.at <= now; due = this.nextDue()) {
      try {
        due.run();
      } catch (error) {
        // A refused step (a branch deleted by hand…) must not stop the demo.
        this.options.onActivity?.({ type: 'error', error: error as Error });
      }
      // Its position is journalled with what it did: a restart must not open a pull request twice.
      this.options.github.changes.workload();
    }
    const next = this.nextDue();
    if (next) this.cancel = this.options.clock.schedule(next.at, () => this.wake());
  }

  private nextDue(): Due | null {
    const candidates: Due[] = [];
    const item = this.items[this.state.next];
    if (item) {
      const at = this.state.startedAt + this.state.period * this.options.settings.periodMs + item.at;
      candidates.push({ at, run: () => this.open(item) });
    } else {
      const at = this.state.startedAt + (this.state.period + 1) * this.options.settings.periodMs;
      candidates.push({ at, run: () => this.nextPeriod() });
    }
    const comment = this.state.comments[0];
    if (comment) candidates.push({ at: comment.at, run: () => this.queue(comment) });
    const pushAt = this.state.nextPushAt;
    if (pushAt !== null) candidates.push({ at: pushAt, run: () => this.push() });
    // Equal times: opening first, so that a comment due at the same moment finds its pull request.
    return candidates.reduce<Due | null>((best, c) => (best === null || c.at < best.at ? c : best), null);
  }

  private nextPeriod(): void {
    this.state.period++;
    this.state.next = 0;
    this.state.numbers = [];
    this.items = this.generate(this.state.period);
  }

  private open(item: WorkloadItem): void {
    const { github, ci, repo, settings } = this.options;
    this.state.next++;
    const change = ++this.state.opened;
    const key = [this.state.period, item.pullRequest.number] as const;
    const author =
      DEMO_AUTHORS[Math.floor(hashToUnit(settings.seed, 'author', ...key) * DEMO_AUTHORS.length)]!;
    const { areas } = item.pullRequest;
    const files: Record<string, string> = {};
    for (const area of areas)
      files[`areas/${area}/change-${change}.ts`] = `export const change${change} = '${area}';\n`;
    if (hashToUnit(settings.seed, 'shared-file', ...key) < settings.sharedFileRate) {
      const index = `areas/${areas[0]}/index.ts`;
      files[index] =
        `${github.fileText(repo, repo.defaultBranch, index) ?? ''}export * from './change-${change}.ts';\n`;
    }
    const pull = github.openPullRequest(repo, {
      author,
      title: `${item.hotfix ? 'Hotfix' : 'Update'} ${areas.join(' and ')} (change ${change})`,
      body: `Change ${change} of the sandbox's demo workload.`,
      branch: `${author}/change-${change}`,
      files,
      labels: item.hotfix ? [HOTFIX_LABEL] : undefined,
    });
    this.state.numbers.push([item.pullRequest.number, pull.number]);

    // What CI knows, by sandbox number; each conflict is written on both sides.
    const partners = item.pullRequest.conflictsWith
      .map((w) => this.pullRequestOf(w))
      .filter((n) => n !== undefined);
    ci.setTruth(repo, pull.number, { areas, bad: item.pullRequest.bad, conflictsWith: partners });
    for (const partner of partners) {
      const { number: _, ...truth } = ci.truthOf(repo, partner);
      ci.setTruth(repo, partner, { ...truth, conflictsWith: [...truth.conflictsWith, pull.number] });
    }

    const { min, max } = settings.queueDelayMs;
    const delay = min + Math.round(hashToUnit(settings.seed, 'queue-delay', ...key) * (max - min));
    this.state.comments.push({ number: pull.number, author, at: this.options.clock.now() + delay });
    this.state.comments.sort((a, b) => a.at - b.at);
    this.options.onActivity?.({
      type: 'opened',
      number: pull.number,
      author,
      hotfix: item.hotfix,
      bad: item.pullRequest.bad,
      areas,
    });
  }

  private queue(comment: DemoWorkloadState['comments'][number]): void {
    const { github, repo } = this.options;
    this.state.comments.shift();
    if (repo.pulls.get(comment.number)?.state !== 'open') return;
    github.issues.comment(repo, {
      number: comment.number,
      body: `@${github.app.slug} queue`,
      user: github.account(comment.author),
    });
    this.options.onActivity?.({ type: 'queued', number: comment.number, author: comment.author });
  }

  private push(): void {
    const { github, repo } = this.options;
    const n = ++this.state.pushes;
    this.state.nextPushAt = this.pushAfter(this.state.nextPushAt ?? this.options.clock.now());
    const commit = github.git.commit(repo, {
      branch: repo.defaultBranch,
      files: {
        [`docs/notes/${String(n).padStart(4, '0')}.md`]: `# Note ${n}\n\nWritten outside the queue.\n`,
      },
      message: `Add release note ${n}`,
      author: github.account(DEMO_MAINTAINER),
    });
    this.options.onActivity?.({ type: 'pushed', sha: commit.sha, label: commit.label });
  }

  /** When the push after one at `from` comes: exponential gaps, drawn by push number. */
  private pushAfter(from: number): number | null {
    const rate = this.options.settings.externalPushesPerHour;
    if (!(rate > 0)) return null;
    const u = hashToUnit(this.options.settings.seed, 'push-gap', this.state.pushes);
    return from + Math.round((-Math.log(1 - u) * HOUR) / rate);
  }

  private generate(period: number): WorkloadItem[] {
    const s = this.options.settings;
    return generateWorkload({
      // Each period draws afresh, from the seed and the period number.
      seed: Math.floor(hashToUnit(s.seed, 'period', period) * 4_294_967_296),
      durationMs: s.periodMs,
      ratePerHour: s.ratePerHour,
      areas: s.areas,
      areaSkew: s.areaSkew,
      secondAreaRate: s.secondAreaRate,
      badRate: s.badRate,
      conflictRate: s.conflictRate,
      conflictWindowMs: s.conflictWindowMs,
      hotfixRate: s.hotfixRate,
    });
  }
}
