import { Agenda } from './agenda.ts';
import { BaseHistory } from './base-history.ts';
import { type CiModel, decideRun, type PullRequestTruth } from './ci-model.ts';
import { CiPool, type CiUsage, type PooledRun } from './ci-pool.ts';
import type { QueuePolicy, QueueWorld, RunHandle, RunRequest } from './policy.ts';
import type { WorkloadItem } from './workload.ts';

/**
 * The discrete-event simulator: a virtual clock, the workload's arrivals, CI runs sharing C
 * runners, the base branch, and one queue policy deciding what to test, merge and eject. No
 * HTTP, no database, no wall clock: the same spec and policy give the same record.
 *
 * Developers are modelled too: a good pull request ejected by the queue (a flaky failure, or
 * blamed wrongly) is queued again after `requeueDelayMs`, as its author would after a look at
 * the failure; a bad or conflicting one stays out.
 */
export interface SimulationSpec {
  workload: readonly WorkloadItem[];
  ci: CiModel;
  /** Concurrent CI runs C (Infinity: unlimited). */
  capacity: number;
  /** Arrivals and the measured window end here (ms). */
  horizonMs: number;
  /** The simulation goes on this long after the horizon so that queued pull requests can finish. */
  drainMs: number;
  requeueDelayMs: number;
  maxRequeues: number;
}

export interface PullRequestRecord {
  number: number;
  hotfix: boolean;
  firstQueuedAt: number;
  mergedAt: number | null;
  /** Each stay in the queue: [entered, left or null while still queued]. */
  sessions: [number, number | null][];
  ejections: { at: number; reason: string }[];
}

export interface SimulationRecord {
  policy: string;
  spec: SimulationSpec;
  /** When the simulation stopped (ms). */
  endedAt: number;
  pullRequests: PullRequestRecord[];
  truths: ReadonlyMap<number, PullRequestTruth>;
  ci: CiUsage;
  /** Runs that finished failing, and their runner time (ms). */
  failedRuns: { runs: number; ms: number };
  baseBreaks: BaseHistory['breaks'];
  /** ∫ queue depth dt over [0, endedAt] (ms × pull requests) and the largest depth. */
  depth: { area: number; max: number };
}

export function simulate(spec: SimulationSpec, policy: QueuePolicy): SimulationRecord {
  return new Simulation(spec, policy).run();
}

class Simulation implements QueueWorld {
  private clock = 0;
  private readonly agenda = new Agenda();
  private readonly base = new BaseHistory();
  private readonly pool: CiPool;
  private readonly truths: Map<number, PullRequestTruth>;
  private readonly items: Map<number, WorkloadItem>;
  private readonly records = new Map<number, PullRequestRecord>();
  private readonly queued = new Set<number>();
  private readonly runs = new Map<number, PooledRun>();
  private readonly contentRuns = new Map<string, number>();
  private runCounter = 0;
  private readonly failedRuns = { runs: 0, ms: 0 };
  private depthArea = 0;
  private depthMax = 0;
  private depthSince = 0;
  readonly medianCiMs: number;

  constructor(
    private readonly spec: SimulationSpec,
    private readonly policy: QueuePolicy,
  ) {
    this.pool = new CiPool(policy.unlimitedCi === true ? Number.POSITIVE_INFINITY : spec.capacity, {
      now: () => this.clock,
      schedule: (at, fire) => this.agenda.schedule(at, fire),
    });
    this.truths = new Map(spec.workload.map((item) => [item.pullRequest.number, item.pullRequest]));
    this.items = new Map(spec.workload.map((item) => [item.pullRequest.number, item]));
    this.medianCiMs = spec.ci.medianMs;
  }

  run(): SimulationRecord {
    for (const item of this.spec.workload) {
      if (item.at < this.spec.horizonMs) this.agenda.schedule(item.at, () => this.arrive(item));
    }
    this.policy.start(this);
    const end = this.spec.horizonMs + this.spec.drainMs;
    for (;;) {
      const at = this.agenda.peek();
      if (at === null || at > end) break;
      const entry = this.agenda.pop()!;
      this.clock = Math.max(this.clock, entry.at);
      entry.fire();
    }
    // Stopped by the limit: the record covers up to it; idle before it: up to the last event.
    if (this.agenda.peek() !== null) this.clock = end;
    this.trackDepth();
    return {
      policy: this.policy.name,
      spec: this.spec,
      endedAt: this.clock,
      pullRequests: [...this.records.values()].sort((a, b) => a.number - b.number),
      truths: this.truths,
      ci: { ...this.pool.usage },
      failedRuns: { ...this.failedRuns },
      baseBreaks: this.base.breaks,
      depth: { area: this.depthArea, max: this.depthMax },
    };
  }

  now(): number {
    return this.clock;
  }

  baseVersion(): number {
    return this.base.version;
  }

  truth(number: number): PullRequestTruth {
    const truth = this.truths.get(number);
    if (truth === undefined) throw new Error(`no pull request #${number}`);
    return truth;
  }

  wakeAt(at: number, fire: () => void): void {
    this.agenda.schedule(Math.max(at, this.clock), fire);
  }

  startRun(request: RunRequest): RunHandle {
    const version = Math.min(request.baseVersion ?? this.base.version, this.base.version);
    const base = this.base.at(version);
    const tested = request.numbers.filter((n) => !base.has(n)).map((n) => this.truth(n));
    // Keyed by content: two policies testing the same commit draw the same flake and duration.
    const content = `${version}:${tested.map((pr) => pr.number).join(',')}`;
    const repeat = (this.contentRuns.get(content) ?? 0) + 1;
    this.contentRuns.set(content, repeat);
    const outcome = decideRun(this.spec.ci, { key: `${content}#${repeat}`, base, tested });
    const id = ++this.runCounter;
    const pooled = this.pool.submit(outcome.durationMs, () => {
      this.runs.delete(id);
      if (!outcome.passed) {
        this.failedRuns.runs++;
        this.failedRuns.ms += outcome.durationMs;
      }
      request.onDone({ passed: outcome.passed, durationMs: outcome.durationMs });
    });
    this.runs.set(id, pooled);
    return { id };
  }

  cancelRun(handle: RunHandle): number {
    const pooled = this.runs.get(handle.id);
    if (pooled === undefined) return 0;
    this.runs.delete(handle.id);
    const used = pooled.state === 'running' ? this.clock - pooled.startedAt! : 0;
    this.pool.cancel(pooled);
    return used;
  }

  merge(number: number): void {
    const record = this.leave(number, 'merge');
    this.base.merge(this.truth(number), this.clock);
    record.mergedAt = this.clock;
  }

  eject(number: number, reason: string): void {
    const record = this.leave(number, 'eject');
    record.ejections.push({ at: this.clock, reason });
    const truth = this.truth(number);
    // The author looks at the failure: a bad or conflicting change stays out, anything else is queued again.
    const legit = truth.bad || truth.conflictsWith.some((n) => this.base.has(n));
    if (!legit && record.ejections.length <= this.spec.maxRequeues) {
      const item = this.items.get(number)!;
      this.agenda.schedule(this.clock + this.spec.requeueDelayMs, () => this.enter(item));
    }
  }

  private arrive(item: WorkloadItem): void {
    this.records.set(item.pullRequest.number, {
      number: item.pullRequest.number,
      hotfix: item.hotfix,
      firstQueuedAt: this.clock,
      mergedAt: null,
      sessions: [],
      ejections: [],
    });
    this.enter(item);
  }

  private enter(item: WorkloadItem): void {
    const record = this.records.get(item.pullRequest.number)!;
    this.trackDepth();
    this.queued.add(record.number);
    this.depthMax = Math.max(this.depthMax, this.queued.size);
    record.sessions.push([this.clock, null]);
    this.policy.onQueued({
      number: record.number,
      hotfix: item.hotfix,
      files: item.files,
      queuedAt: this.clock,
    });
  }

  private leave(number: number, what: string): PullRequestRecord {
    const record = this.records.get(number);
    if (record === undefined || !this.queued.has(number)) {
      throw new Error(`${this.policy.name} tried to ${what} #${number}, which is not queued`);
    }
    this.trackDepth();
    this.queued.delete(number);
    record.sessions.at(-1)![1] = this.clock;
    return record;
  }

  private trackDepth(): void {
    this.depthArea += this.queued.size * (this.clock - this.depthSince);
    this.depthSince = this.clock;
  }
}
