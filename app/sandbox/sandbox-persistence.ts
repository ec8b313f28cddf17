import type { ChangeLog, RepositoryKeys } from './change-log.ts';
import type { SandboxCi } from './ci.ts';
import { type Clock, ScaledClock } from './clock.ts';
import { snapshotCommits } from './commit-graph-snapshot.ts';
import type { DemoWorkload } from './demo-workload.ts';
import type { Repository } from './entities.ts';
import type { SandboxGithub } from './model.ts';
import {
  snapshotRepository,
  snapshotRepositoryFields,
  storeCheckRun,
  storeCheckSuite,
  storeComment,
  storeInstallation,
  storeLabel,
  storePull,
  storeStatus,
  storeWorkflowRun,
} from './model-snapshot.ts';
import { type SandboxFile, writeSandboxFile } from './sandbox-file.ts';
import { type JournalRecord, type RepositoryRecord, SandboxJournal } from './sandbox-journal.ts';
import type { WebhookDelivery } from './webhooks/delivery.ts';

export interface SandboxPersistenceOptions {
  dataDir: string;
  github: SandboxGithub;
  ci: SandboxCi;
  workload: DemoWorkload;
  webhooks: WebhookDelivery;
  clock: Clock;
  /** What sandbox.json holds that never changes. */
  fixed: Pick<SandboxFile, 'webhookSecret' | 'timeScale' | 'workloadSettings' | 'ciModel'>;
  /** The last journal record already on disk (0 on a first start). */
  journalSeq: number;
  /** Why a write in the background failed (a pino logger fits). */
  log?: { warn(details: object, message: string): void };
  /**
   * Real milliseconds a scaled clock's time is kept on disk ahead of it (default 2,000): after a
   * crash it resumes that far on at most, and never before what anyone read from it.
   */
  leaseMs?: number;
}

/** The journal is folded into a new sandbox.json once it holds this much, or twice the last one. */
const COMPACT_AT_BYTES = 8 * 1024 * 1024;

/**
 * The sandbox's durability (crash test C1): it stands for GitHub, whose acknowledged writes are
 * never lost. Every change is marked (change-log.ts); before an answer or a webhook leaves,
 * durable() appends what was marked to the journal as one record and flushes it to disk (group
 * commit: concurrent requests share a record and its fsync). Now and then, and on stop, the
 * journal is folded into a full sandbox.json. A restart (journal-replay.ts) finds every
 * acknowledged change, and SIGKILL at any moment loses only what nobody was told of.
 *
 * The clock (crash test C3): each record carries the furthest time the clock may reach before
 * the next one; a scaled clock is held below what is on disk and its lease renewed ahead of it,
 * so a restart resumes past any time anyone saw.
 */
export class SandboxPersistence {
  private readonly changes: ChangeLog;
  /** changes.version the last completed write covers. */
  private durableVersion: number;
  private writing: Promise<void> | null = null;
  private compactNext = false;
  private snapshotBytes = 0;
  private seq: number;
  /** Per repository id: the commits already on disk. */
  private readonly commitsStored = new Map<number, number>();
  private timer: ReturnType<typeof setInterval> | null = null;
  private readonly leaseMs: number;

  private constructor(
    private readonly options: SandboxPersistenceOptions,
    private readonly journal: SandboxJournal,
  ) {
    this.changes = options.github.changes;
    this.durableVersion = this.changes.version;
    this.seq = options.journalSeq;
    this.leaseMs = options.leaseMs ?? 2_000;
  }

  /**
   * Starts keeping the sandbox on disk: a full sandbox.json of the state as it is (the first
   * start's, or the restored one with the journal folded in), then a record per change.
   */
  static async open(options: SandboxPersistenceOptions): Promise<SandboxPersistence> {
    const journal = await SandboxJournal.open(options.dataDir);
    const persistence = new SandboxPersistence(options, journal);
    options.github.changes.track();
    await persistence.compact();
    // Lease renewals, and the webhooks delivered since the last record (not urgent).
    const every = Math.min(1_000, Math.max(10, persistence.leaseMs / 4));
    persistence.timer = setInterval(() => persistence.tick(), every);
    persistence.timer.unref();
    return persistence;
  }

  /** Resolves once every change made so far is on disk; rejects when it could not be written. */
  durable(): Promise<void> {
    const target = this.changes.version;
    if (this.durableVersion >= target) return Promise.resolve();
    return this.until(target);
  }

  /** Writes a full sandbox.json now and empties the journal. */
  async compact(): Promise<void> {
    this.compactNext = true;
    while (this.compactNext) await this.writeOnce();
  }

  /** The last write: sandbox.json at the clock's exact time (a clean restart resumes there). */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.writing?.catch(() => {});
    const { clock } = this.options;
    if (clock instanceof ScaledClock) clock.limitTo(clock.now()); // stopped: no one reads further
    this.compactNext = true;
    try {
      while (this.compactNext) await this.writeOnce({ exactClock: true });
    } finally {
      await this.journal.close();
    }
  }

  private async until(target: number): Promise<void> {
    while (this.durableVersion < target) await this.writeOnce();
  }

  /** Joins the write under way, or starts one. */
  private writeOnce(options: { exactClock?: boolean } = {}): Promise<void> {
    this.writing ??= this.write(options).finally(() => {
      this.writing = null;
    });
    return this.writing;
  }

  private tick(): void {
    const { clock } = this.options;
    const leaseDue = clock instanceof ScaledClock && clock.now() >= clock.limitAt - this.leaseSpan() / 2;
    if (!leaseDue && !this.changes.pending) return;
    this.writeOnce().catch((error: unknown) =>
      this.options.log?.warn({ err: error }, 'the sandbox could not write its journal'),
    );
  }

  private async write(options: { exactClock?: boolean }): Promise<void> {
    const version = this.changes.version;
    const clock = this.clockToStore(options.exactClock === true);
    const compactAt = Math.max(COMPACT_AT_BYTES, 2 * this.snapshotBytes);
    try {
      if (this.compactNext || this.journal.bytes > compactAt) await this.writeSnapshot(clock);
      else await this.journal.append(this.collect(clock));
    } catch (error) {
      // What was taken from the change log is not on disk: only a full snapshot has it all again.
      this.compactNext = true;
      throw error;
    }
    this.durableVersion = Math.max(this.durableVersion, version);
    const { clock: sandboxClock } = this.options;
    if (sandboxClock instanceof ScaledClock && !options.exactClock) sandboxClock.limitTo(clock);
  }

  /** What a record or snapshot says the clock may reach: a lease ahead of a scaled clock, else its time. */
  private clockToStore(exact: boolean): number {
    const { clock } = this.options;
    if (exact || !(clock instanceof ScaledClock)) return clock.now();
    const held = Number.isFinite(clock.limitAt) ? clock.limitAt : clock.now();
    return Math.max(held, clock.now() + this.leaseSpan());
  }

  private leaseSpan(): number {
    const { clock } = this.options;
    return clock instanceof ScaledClock ? this.leaseMs * clock.scale : 0;
  }

  private async writeSnapshot(clock: number): Promise<void> {
    const { github, ci, workload, webhooks } = this.options;
    // The snapshot holds everything: what was marked is dropped.
    this.changes.take();
    ci.takeChanges();
    const file: SandboxFile = {
      version: 1,
      savedAt: new Date().toISOString(),
      now: clock,
      journalSeq: this.seq,
      ...this.options.fixed,
      model: github.toSnapshot(),
      ci: ci.toSnapshot(),
      workload: workload.toSnapshot(),
      deliveries: webhooks.pending().map(asPending),
    };
    for (const repo of github.allRepositories()) this.commitsStored.set(repo.id, repo.graph.size);
    await writeSandboxFile(this.options.dataDir, file);
    this.snapshotBytes = Buffer.byteLength(JSON.stringify(file.model));
    await this.journal.clear();
    this.compactNext = false;
  }

  /** One record: every object marked since the last one, as it is now. */
  private collect(clock: number): JournalRecord {
    const { github, ci, workload } = this.options;
    const taken = this.changes.take();
    const record: JournalRecord = { seq: ++this.seq, clock, ids: github.ids.toSnapshot() };
    if (taken.accounts.length > 0) record.accounts = taken.accounts.map((a) => ({ ...a }));
    if (taken.installations.length > 0) record.installations = taken.installations.map(storeInstallation);
    const repositories = new Map(taken.repositories.map((keys) => [keys.repo.id, keys]));
    const records: RepositoryRecord[] = [];
    for (const repo of github.allRepositories()) {
      const keys = repositories.get(repo.id);
      const stored = this.commitsStored.get(repo.id) ?? 0;
      if (keys === undefined && repo.graph.size === stored) continue;
      records.push(this.repositoryRecord(repo, keys, stored));
      this.commitsStored.set(repo.id, repo.graph.size);
    }
    if (records.length > 0) record.repositories = records;
    if (taken.ci) record.ci = ci.takeChanges();
    if (taken.workload) record.workload = workload.toSnapshot();
    const { queued, done } = taken.deliveries;
    if (queued.length > 0 || done.length > 0) record.deliveries = { queued: queued.map(asPending), done };
    return record;
  }

  private repositoryRecord(
    repo: Repository,
    keys: RepositoryKeys | undefined,
    stored: number,
  ): RepositoryRecord {
    if (keys?.created || !this.commitsStored.has(repo.id))
      return { id: repo.id, created: snapshotRepository(repo) };
    const record: RepositoryRecord = { id: repo.id, fields: snapshotRepositoryFields(repo) };
    if (repo.graph.size > stored) record.graph = snapshotCommits(repo.graph, repo.graph.commitsSince(stored));
    if (!keys) return record;
    const some = <K, V, S>(set: Set<K>, get: (key: K) => V | undefined, store: (value: V) => S): S[] =>
      [...set].flatMap((key) => {
        const value = get(key);
        return value === undefined ? [] : [store(value)];
      });
    if (keys.branches.size > 0)
      record.branches = [...keys.branches].map((name) => [name, repo.branches.get(name) ?? null]);
    if (keys.collaborators.size > 0)
      record.collaborators = [...keys.collaborators].map((login) => [
        login,
        repo.collaborators.get(login) ?? null,
      ]);
    if (keys.pulls.size > 0) record.pulls = some(keys.pulls, (n) => repo.pulls.get(n), storePull);
    if (keys.labels.size > 0) record.labels = some(keys.labels, (k) => repo.labels.get(k), storeLabel);
    if (keys.comments.size > 0)
      record.comments = some(keys.comments, (id) => repo.comments.get(id), storeComment);
    if (keys.checkSuites.size > 0)
      record.checkSuites = some(keys.checkSuites, (id) => repo.checkSuites.get(id), storeCheckSuite);
    if (keys.checkRuns.size > 0)
      record.checkRuns = some(keys.checkRuns, (id) => repo.checkRuns.get(id), storeCheckRun);
    if (keys.statuses.size > 0) {
      const statuses = new Map(repo.statuses.filter((s) => keys.statuses.has(s.id)).map((s) => [s.id, s]));
      record.statuses = some(keys.statuses, (id) => statuses.get(id), storeStatus);
    }
    if (keys.workflowRuns.size > 0)
      record.workflowRuns = some(keys.workflowRuns, (id) => repo.workflowRuns.get(id), storeWorkflowRun);
    return record;
  }
}

/** A delivery as kept for a restart: to be sent again from its first attempt. */
function asPending<T extends { status: string; attempts: unknown[] }>(delivery: T): T {
  return { ...delivery, status: 'pending', attempts: [] };
}
