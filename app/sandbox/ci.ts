import {
  type BaseContent,
  type CiModel,
  decideRun,
  type PullRequestTruth,
  type RunOutcome,
} from '../sim/ci-model.ts';
import type { Clock } from './clock.ts';
import {
  type CheckConclusion,
  type PullRequest,
  type Repository,
  type WorkflowRun,
  ZERO_SHA,
} from './entities.ts';
import type { SandboxGithub } from './model.ts';

export interface SandboxCiOptions {
  github: SandboxGithub;
  /** CI runs on this clock: a VirtualClock in tests, a ScaledClock in the demo. */
  clock: Clock;
  /** The shared CI model (app/sim/ci-model.ts): durations, flakiness, seed. */
  model: CiModel;
  /** Check run names of each run (its jobs); all conclude alike. */
  jobs?: string[];
  workflowName?: string;
  /** From a push to the run's check runs appearing (queued). */
  pickupDelayMs?: number;
  /** From queued to in progress; the model's duration counts from there. */
  startDelayMs?: number;
  /** Which pushed branches get a run (default: every branch, as `on: push` does). */
  runsOn?: (repo: Repository, branch: string) => boolean;
  /** false: runs start but wait for conclude() (tests that script CI by hand). */
  auto?: boolean;
  /**
   * What a previous SandboxCi on this model knew (its toSnapshot()): PR truths, and the runs it
   * had not finished, which go on from where they were — a restarted sandbox must not leave the
   * app waiting for checks that nobody runs any more.
   */
  restore?: SandboxCiSnapshot;
  /**
   * A workflow's `concurrency: {group: branch, cancel-in-progress: true}` (default true): a
   * push that is no longer the branch's head when CI picks it up is skipped, and a new run
   * cancels the unfinished runs of its branch. Building a batch merge by merge then costs one
   * run, not one per merge.
   */
  cancelSuperseded?: boolean;
}

/** What one CI run tested and what the model decided. */
export interface CiRunRecord {
  repo: Repository;
  sha: string;
  branch: string;
  workflowRunId: number;
  /** The model's key for this run: a rerun of a commit gets a new key, hence a new flaky draw. */
  key: string;
  /** PR numbers the commit holds on top of its base, in merge order. */
  tested: number[];
  outcome: RunOutcome | null;
  conclusion: CheckConclusion | null;
}

type Truth = Omit<PullRequestTruth, 'number'>;
const innocent: Truth = { areas: [], bad: false, conflictsWith: [] };

/** A push that CI has seen and not yet picked up. */
interface Pickup {
  repo: Repository;
  branch: string;
  sha: string;
  at: number;
}

/** What SandboxCi knows that the model does not, as plain JSON; repositories by id. */
export interface SandboxCiSnapshot {
  /** `<repository id>#<PR number>` → truth. */
  truths: [string, Truth][];
  pullsByCommit: [number, [string, number[]][]][];
  attempts: [string, number][];
  pickups: { repo: number; branch: string; sha: string; at: number }[];
  /** Runs started and not finished (their workflow run is in the model). */
  unfinished: (Omit<CiRunRecord, 'repo' | 'conclusion'> & { repo: number })[];
}

/**
 * What SandboxCi learnt since its last takeChanges(), for the journal: the entries of its
 * growing maps that changed, and its runs under way whole (a handful).
 */
export interface SandboxCiChanges {
  truths: [string, Truth][];
  /** [repository id, commit, the PRs it holds]. */
  pullsByCommit: [number, string, number[]][];
  attempts: [string, number][];
  /** Present when they changed. */
  runtime?: Pick<SandboxCiSnapshot, 'pickups' | 'unfinished'>;
}

/**
 * Simulated GitHub Actions: every push to a branch starts a workflow run whose jobs (check runs
 * of the Actions app) are queued, start, and conclude after the duration the shared CI model
 * draws. What a commit tests is read from the commit graph — the pull requests whose commits it
 * holds beyond its merge base with the default branch — so a PR marked bad fails every batch,
 * in-place check or draft PR that contains it, and a flaky failure strikes with the model's rate.
 */
export class SandboxCi {
  private readonly truths = new Map<string, Truth>();
  /**
   * Per repository: commit → the PRs it is a head of (now or before: a batch built on an older
   * head still contains the PR) or the merge commit of. Kept up to date from pull_request events.
   */
  private readonly pullsByCommit = new Map<number, Map<string, number[]>>();
  private readonly records: CiRunRecord[] = [];
  /** Runs per branch that may still be going (what a new push to the branch cancels). */
  private readonly unfinished = new Map<string, CiRunRecord[]>();
  /** Runs so far per commit: a rerun gets a new model key. */
  private readonly attempts = new Map<string, number>();
  private readonly pickups = new Set<Pickup>();
  private readonly timers = new Set<() => void>();
  private readonly unsubscribe: () => void;
  private readonly jobs: string[];
  /** Keys changed since takeChanges(); `runtime`: pickups or unfinished runs changed. */
  private dirty = {
    truths: new Set<string>(),
    commits: new Set<string>(),
    attempts: new Set<string>(),
    runtime: false,
  };

  constructor(private readonly options: SandboxCiOptions) {
    this.jobs = options.jobs ?? ['ci'];
    for (const repo of options.github.allRepositories())
      for (const pull of repo.pulls.values()) this.remember(repo, pull);
    if (options.restore) this.resume(options.restore);
    this.unsubscribe = options.github.on((event) => {
      if (event.type === 'pull_request') this.remember(event.repo, event.pull);
      // A job of Actions completed (cancelled by hand, too): the runs under way are fewer.
      if (
        event.type === 'check_run' &&
        event.action === 'completed' &&
        event.run.app.id === options.github.actionsApp.id
      )
        this.changed('runtime');
      if (event.type !== 'push' || event.after === ZERO_SHA) return;
      if (!(options.runsOn ?? (() => true))(event.repo, event.branch)) return;
      const { repo, branch, after } = event;
      this.pickUp({ repo, branch, sha: after, at: options.clock.now() + (options.pickupDelayMs ?? 2_000) });
    });
  }

  /** Everything needed to go on after a restart: truths, the commit index, pending pickups and unfinished runs. */
  toSnapshot(): SandboxCiSnapshot {
    return {
      truths: [...this.truths].map(([key, truth]) => [key, { ...truth }]),
      pullsByCommit: [...this.pullsByCommit].map(([repoId, index]) => [repoId, [...index]]),
      attempts: [...this.attempts],
      ...this.runtime(),
    };
  }

  /** What changed since the last call (the journal's record of CI), and forgets it. */
  takeChanges(): SandboxCiChanges {
    const { truths, commits, attempts, runtime } = this.dirty;
    this.dirty = { truths: new Set(), commits: new Set(), attempts: new Set(), runtime: false };
    return {
      truths: [...truths].flatMap((key) => {
        const truth = this.truths.get(key);
        return truth ? [[key, { ...truth }] as [string, Truth]] : [];
      }),
      pullsByCommit: [...commits].flatMap((key) => {
        const [repoId, commit] = key.split(' ') as [string, string];
        const numbers = this.pullsByCommit.get(Number(repoId))?.get(commit);
        return numbers ? [[Number(repoId), commit, [...numbers]] as [number, string, number[]]] : [];
      }),
      attempts: [...attempts].flatMap((key) => {
        const count = this.attempts.get(key);
        return count === undefined ? [] : [[key, count] as [string, number]];
      }),
      ...(runtime ? { runtime: this.runtime() } : {}),
    };
  }

  /** Pickups not yet made and runs not yet finished, as stored. */
  private runtime(): Pick<SandboxCiSnapshot, 'pickups' | 'unfinished'> {
    const { github } = this.options;
    const unfinished = [...this.unfinished.values()].flat().filter((record) => {
      const run = record.repo.workflowRuns.get(record.workflowRunId);
      return (
        record.conclusion === null &&
        run !== undefined &&
        github.actions.status(record.repo, run) !== 'completed'
      );
    });
    return {
      pickups: [...this.pickups].map((p) => ({ repo: p.repo.id, branch: p.branch, sha: p.sha, at: p.at })),
      unfinished: unfinished.map(({ repo, conclusion: _, ...record }) => ({ ...record, repo: repo.id })),
    };
  }

  /** Marks a change of CI's own knowledge for the journal. */
  private changed(kind: 'truths' | 'commits' | 'attempts' | 'runtime', key = ''): void {
    if (kind === 'runtime') this.dirty.runtime = true;
    else this.dirty[kind].add(key);
    this.options.github.changes.ci();
  }

  /** What CI knows about a PR (innocent unless told otherwise). */
  truthOf(repo: Repository, number: number): PullRequestTruth {
    return { number, ...(this.truths.get(`${repo.id}#${number}`) ?? innocent) };
  }

  /** What CI knows and the queue does not: a PR that breaks the build, or conflicts with others. */
  setTruth(repo: Repository, number: number, truth: Partial<Truth>): void {
    this.truths.set(`${repo.id}#${number}`, { ...innocent, ...truth });
    this.changed('truths', `${repo.id}#${number}`);
  }

  markBad(repo: Repository, number: number): void {
    this.setTruth(repo, number, { ...this.truthOf(repo, number), bad: true });
  }

  runs(): readonly CiRunRecord[] {
    return this.records;
  }

  /** Finishes the newest run on `sha` now with `conclusion`, whatever the model had planned. */
  conclude(repo: Repository, sha: string, conclusion: CheckConclusion): void {
    const record = [...this.records].reverse().find((r) => r.repo === repo && r.sha === sha);
    if (!record) throw new Error(`no CI run on ${sha}`);
    this.finish(record, conclusion);
  }

  close(): void {
    this.unsubscribe();
    for (const cancel of this.timers) cancel();
    this.timers.clear();
  }

  private later(delayMs: number, task: () => void): void {
    this.when(this.options.clock.now() + delayMs, task);
  }

  private when(at: number, task: () => void): void {
    const cancel = this.options.clock.schedule(at, () => {
      this.timers.delete(cancel);
      task();
    });
    this.timers.add(cancel);
  }

  private pickUp(pickup: Pickup, restored = false): void {
    this.pickups.add(pickup);
    if (!restored) this.changed('runtime');
    this.when(pickup.at, () => {
      this.pickups.delete(pickup);
      this.changed('runtime');
      this.start(pickup.repo, pickup.branch, pickup.sha);
    });
  }

  /** Takes over a snapshot's knowledge and schedules what was under way, at its own time or now if overdue. */
  private resume(snapshot: SandboxCiSnapshot): void {
    const { github, clock } = this.options;
    const repoOf = (id: number) => github.repositoryById(id);
    for (const [key, truth] of snapshot.truths) this.truths.set(key, truth);
    for (const [key, count] of snapshot.attempts) this.attempts.set(key, count);
    for (const [repoId, entries] of snapshot.pullsByCommit) {
      const index = this.pullsByCommit.get(repoId) ?? new Map<string, number[]>();
      for (const [commit, numbers] of entries)
        index.set(commit, [...new Set([...(index.get(commit) ?? []), ...numbers])]);
      this.pullsByCommit.set(repoId, index);
    }
    for (const pickup of snapshot.pickups) {
      const repo = repoOf(pickup.repo);
      if (repo) this.pickUp({ ...pickup, repo, at: Math.max(pickup.at, clock.now()) }, true);
    }
    for (const stored of snapshot.unfinished) {
      const repo = repoOf(stored.repo);
      const run = repo?.workflowRuns.get(stored.workflowRunId);
      if (!repo || !run || github.actions.status(repo, run) === 'completed') continue;
      const record: CiRunRecord = { ...stored, repo, conclusion: null };
      this.records.push(record);
      const branchKey = `${repo.id}:${record.branch}`;
      this.unfinished.set(branchKey, [...(this.unfinished.get(branchKey) ?? []), record]);
      const outcome = record.outcome;
      if (outcome === null) {
        const startAt = run.createdAt + (this.options.startDelayMs ?? 3_000);
        this.when(Math.max(startAt, clock.now()), () => this.begin(record, run));
      } else if (this.options.auto !== false) {
        const finishAt = (run.startedAt ?? clock.now()) + outcome.durationMs;
        this.when(Math.max(finishAt, clock.now()), () =>
          this.finish(record, outcome.passed ? 'success' : 'failure'),
        );
      }
    }
  }

  private remember(repo: Repository, pull: PullRequest): void {
    // The app's own draft PRs wrap batches: the PRs inside them are what is tested.
    if (pull.user.type === 'Bot') return;
    let index = this.pullsByCommit.get(repo.id);
    if (!index) {
      index = new Map();
      this.pullsByCommit.set(repo.id, index);
    }
    for (const commit of [pull.headSha, pull.mergeCommitSha]) {
      if (commit === null) continue;
      const numbers = index.get(commit) ?? [];
      if (numbers.includes(pull.number)) continue;
      index.set(commit, [...numbers, pull.number]);
      this.changed('commits', `${repo.id} ${commit}`);
    }
  }

  private start(repo: Repository, branch: string, sha: string): void {
    const { github } = this.options;
    if (this.options.cancelSuperseded !== false) {
      if (repo.branches.get(branch) !== sha) return;
      const branchKey = `${repo.id}:${branch}`;
      for (const older of this.unfinished.get(branchKey) ?? []) {
        const run = repo.workflowRuns.get(older.workflowRunId)!;
        if (github.actions.status(repo, run) !== 'completed') {
          github.actions.cancel(repo, { id: run.id, sender: github.actionsApp.bot });
        }
      }
      this.unfinished.delete(branchKey);
    }
    const { run } = github.actions.start(repo, {
      app: github.actionsApp,
      name: this.options.workflowName ?? 'CI',
      headSha: sha,
      headBranch: branch,
      event: 'push',
      jobs: this.jobs,
      actor: github.actionsApp.bot,
    });
    const attempt = (this.attempts.get(`${repo.id}:${sha}`) ?? 0) + 1;
    this.attempts.set(`${repo.id}:${sha}`, attempt);
    this.changed('attempts', `${repo.id}:${sha}`);
    this.changed('runtime');
    const record: CiRunRecord = {
      repo,
      sha,
      branch,
      workflowRunId: run.id,
      key: `${repo.id}:${sha}:${attempt}`,
      tested: [],
      outcome: null,
      conclusion: null,
    };
    this.records.push(record);
    const branchKey = `${repo.id}:${branch}`;
    this.unfinished.set(branchKey, [...(this.unfinished.get(branchKey) ?? []), record]);
    this.later(this.options.startDelayMs ?? 3_000, () => this.begin(record, run));
  }

  private begin(record: CiRunRecord, run: WorkflowRun): void {
    const { github, clock } = this.options;
    const { repo } = record;
    const jobs = github.actions.jobs(repo, run).filter((j) => j.status !== 'completed');
    if (jobs.length === 0) return; // cancelled before it started
    run.startedAt = clock.now();
    github.changes.workflowRun(repo, run);
    for (const job of jobs) {
      github.checks.updateRun(repo, job.id, {
        app: job.app,
        status: 'in_progress',
        startedAt: clock.now(),
        sender: job.app.bot,
      });
    }
    const { base, tested } = this.content(repo, record.sha);
    record.tested = tested.map((t) => t.number);
    record.outcome = decideRun(this.options.model, { key: record.key, base, tested });
    this.changed('runtime');
    if (this.options.auto === false) return;
    const outcome = record.outcome;
    this.later(outcome.durationMs, () => this.finish(record, outcome.passed ? 'success' : 'failure'));
  }

  private finish(record: CiRunRecord, conclusion: CheckConclusion): void {
    const { github } = this.options;
    const { repo } = record;
    const run = repo.workflowRuns.get(record.workflowRunId)!;
    const open = github.actions.jobs(repo, run).filter((j) => j.status !== 'completed');
    if (open.length === 0) return; // cancelled, or concluded by hand already
    record.conclusion = conclusion;
    const summary = this.summary(record, conclusion);
    for (const job of open) {
      github.checks.updateRun(repo, job.id, {
        app: job.app,
        conclusion,
        title: conclusion === 'success' ? 'Build passed' : 'Build failed',
        summary,
        sender: job.app.bot,
      });
    }
    run.updatedAt = this.options.clock.now();
    github.changes.workflowRun(repo, run);
    this.changed('runtime');
  }

  private summary(record: CiRunRecord, conclusion: CheckConclusion): string {
    const tested =
      record.tested.length > 0 ? record.tested.map((n) => `#${n}`).join(', ') : 'no pull request';
    const outcome = record.outcome;
    if (conclusion === 'success' || !outcome || outcome.passed) return `Tested ${tested}.`;
    const culprits = outcome.culprits.map((n) => `#${n}`).join(', ');
    return `Tested ${tested}: ${outcome.cause}${culprits ? ` (${culprits})` : ''}.`;
  }

  /**
   * What a commit holds as CI sees it: its base is the merge base with the default branch;
   * the tested PRs are those whose commits it adds on top of that base, in the order its
   * first-parent history brought them in. Only the commits above the base are walked, so a run
   * costs the size of its batch, not of the repository's history.
   */
  private content(repo: Repository, sha: string): { base: BaseContent; tested: PullRequestTruth[] } {
    const { graph } = repo;
    const baseSha = graph.mergeBase(sha, repo.branches.get(repo.defaultBranch) ?? sha) ?? sha;
    const pullsOf = this.pullsByCommit.get(repo.id) ?? new Map<string, number[]>();
    const added = new Set(graph.commitsBetween(baseSha, sha).map((c) => c.sha));

    const chain: string[] = [];
    for (
      let commit = graph.get(sha);
      commit && added.has(commit.sha);
      commit = graph.get(commit.parents[0] ?? '')
    ) {
      chain.push(commit.sha);
    }
    const order: number[] = [];
    const place = (commit: string) => {
      for (const number of pullsOf.get(commit) ?? []) if (!order.includes(number)) order.push(number);
    };
    for (const commit of chain.reverse()) {
      const parent = graph.get(commit)!.parents[0];
      for (const brought of parent ? graph.commitsBetween(parent, commit) : [graph.get(commit)!])
        place(brought.sha);
    }
    for (const commit of [...added].sort()) place(commit); // anything off the first-parent line

    let ancestorsOfBase: Set<string> | undefined;
    const has = (number: number) => {
      ancestorsOfBase ??= new Set(graph.commitsBetween(null, baseSha).map((c) => c.sha));
      const commits = [...pullsOf]
        .filter(([, numbers]) => numbers.includes(number))
        .map(([commit]) => commit);
      return commits.some((commit) => ancestorsOfBase!.has(commit));
    };
    const risky = [...this.truths]
      .filter(
        ([key, truth]) => key.startsWith(`${repo.id}#`) && (truth.bad || truth.conflictsWith.length > 0),
      )
      .map(([key, truth]) => ({ number: Number(key.slice(key.indexOf('#') + 1)), ...truth }));
    const broken = risky.some((t) => has(t.number) && (t.bad || t.conflictsWith.some((other) => has(other))));
    return { base: { has, broken }, tested: order.map((n) => this.truthOf(repo, n)) };
  }
}
