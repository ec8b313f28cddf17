import type {
  Account,
  CheckRun,
  CheckSuite,
  CommitStatus,
  Installation,
  IssueComment,
  PullRequest,
  Repository,
  WorkflowRun,
} from './entities.ts';
import type { Delivery } from './hook-delivery.ts';
import type { SandboxEvent } from './sandbox-events.ts';

/** The keys of one repository's objects changed since the last journal record. */
export interface RepositoryKeys {
  repo: Repository;
  /** Made since the last record: the record holds it whole. */
  created: boolean;
  branches: Set<string>;
  pulls: Set<number>;
  /** Lower-cased names, as repo.labels keys them. */
  labels: Set<string>;
  /** Lower-cased logins, as repo.collaborators keys them. */
  collaborators: Set<string>;
  comments: Set<number>;
  checkSuites: Set<number>;
  checkRuns: Set<number>;
  statuses: Set<number>;
  workflowRuns: Set<number>;
}

/** Everything changed since the last take(), by key: the journal reads the values then. */
export interface TakenChanges {
  accounts: Account[];
  installations: Installation[];
  repositories: RepositoryKeys[];
  ci: boolean;
  workload: boolean;
  deliveries: { queued: Delivery[]; done: string[] };
}

/**
 * Which objects of the sandbox changed since the journal last wrote (sandbox-persistence.ts):
 * every operation marks what it changes, as it changes it, so a record holds only those. The
 * sandbox stands for GitHub, whose acknowledged writes are durable: a change is on disk before
 * the request that made it is answered and before its webhook goes out.
 *
 * `version` grows with every change that must be durable before it is acknowledged; without a
 * journal (tests, benchmarks) nothing else is kept.
 */
export class ChangeLog {
  private changes = 0;
  private tracking = false;
  private accounts = new Set<Account>();
  private installations = new Set<Installation>();
  private repositories = new Map<number, RepositoryKeys>();
  private ciChanged = false;
  private workloadChanged = false;
  private queued = new Map<string, Delivery>();
  private done = new Set<string>();
  /** Changes that need no acknowledgement wait for the next record (or the journal's timer). */
  private lazy = false;
  /** `version` when take() last ran. */
  private takenAt = 0;

  /** Grows with every change that must be on disk before it is acknowledged. */
  get version(): number {
    return this.changes;
  }

  /** Something is kept that a record should hold, urgent or not. */
  get pending(): boolean {
    return this.lazy || this.changes > this.takenAt;
  }

  /** From now on the changed keys are kept for take() (a journal is attached). */
  track(): void {
    this.tracking = true;
  }

  /** What changed since the last take(), and forgets it. */
  take(): TakenChanges {
    const taken: TakenChanges = {
      accounts: [...this.accounts],
      installations: [...this.installations],
      repositories: [...this.repositories.values()],
      ci: this.ciChanged,
      workload: this.workloadChanged,
      deliveries: { queued: [...this.queued.values()], done: [...this.done] },
    };
    this.accounts = new Set();
    this.installations = new Set();
    this.repositories = new Map();
    this.ciChanged = false;
    this.workloadChanged = false;
    this.queued = new Map();
    this.done = new Set();
    this.lazy = false;
    this.takenAt = this.changes;
    return taken;
  }

  /** What an event says changed (the operations mark what no event shows). */
  event(event: SandboxEvent): void {
    switch (event.type) {
      case 'push':
        this.branch(event.repo, event.branch);
        return;
      case 'branch_created':
      case 'branch_deleted':
        this.branch(event.repo, event.branch);
        return;
      case 'pull_request':
      case 'pull_request_review':
        this.pull(event.repo, event.pull);
        return;
      case 'issue_comment':
        this.comment(event.repo, event.comment);
        return;
      case 'check_run':
        this.checkRun(event.repo, event.run);
        return;
      case 'check_suite':
        this.checkSuite(event.repo, event.suite);
        return;
      case 'status':
        this.status(event.repo, event.status);
        return;
      case 'installation':
        this.installation(event.installation);
        return;
    }
  }

  account(account: Account): void {
    if (this.mark()) this.accounts.add(account);
  }

  installation(installation: Installation): void {
    if (this.mark()) this.installations.add(installation);
  }

  /** A new repository, whole. */
  created(repo: Repository): void {
    const keys = this.keysOf(repo);
    if (keys) keys.created = true;
  }

  /** The repository's own fields (pushed_at, the next number…) changed. */
  repository(repo: Repository): void {
    this.keysOf(repo);
  }

  branch(repo: Repository, name: string): void {
    this.keysOf(repo)?.branches.add(name);
  }

  pull(repo: Repository, pull: PullRequest): void {
    this.keysOf(repo)?.pulls.add(pull.number);
  }

  label(repo: Repository, key: string): void {
    this.keysOf(repo)?.labels.add(key);
  }

  collaborator(repo: Repository, login: string): void {
    this.keysOf(repo)?.collaborators.add(login.toLowerCase());
  }

  comment(repo: Repository, comment: IssueComment): void {
    this.keysOf(repo)?.comments.add(comment.id);
  }

  checkSuite(repo: Repository, suite: CheckSuite): void {
    this.keysOf(repo)?.checkSuites.add(suite.id);
  }

  /** A check run, and its suite (which lists its runs and follows their completion). */
  checkRun(repo: Repository, run: CheckRun): void {
    const keys = this.keysOf(repo);
    keys?.checkRuns.add(run.id);
    keys?.checkSuites.add(run.suiteId);
  }

  status(repo: Repository, status: CommitStatus): void {
    this.keysOf(repo)?.statuses.add(status.id);
  }

  workflowRun(repo: Repository, run: WorkflowRun): void {
    this.keysOf(repo)?.workflowRuns.add(run.id);
  }

  /** Simulated CI's own knowledge changed (SandboxCi.takeChanges has it). */
  ci(): void {
    if (this.mark()) this.ciChanged = true;
  }

  /** The demo workload moved on. */
  workload(): void {
    if (this.mark()) this.workloadChanged = true;
  }

  /** A webhook to deliver: on disk before it goes out, so a restart sends it. */
  deliveryQueued(delivery: Delivery): void {
    if (!this.mark()) return;
    this.queued.delete(delivery.id);
    this.queued.set(delivery.id, delivery);
  }

  /**
   * A webhook delivered or given up: not urgent (a restart that does not know it sends it again
   * under its id, which the app recognises, as it would a redelivery).
   */
  deliveryDone(id: string): void {
    if (!this.tracking) return;
    this.done.add(id);
    this.lazy = true;
  }

  /** Counts a change; true when its keys are to be kept. */
  private mark(): boolean {
    this.changes++;
    return this.tracking;
  }

  private keysOf(repo: Repository): RepositoryKeys | undefined {
    if (!this.mark()) return undefined;
    let keys = this.repositories.get(repo.id);
    if (!keys) {
      keys = {
        repo,
        created: false,
        branches: new Set(),
        pulls: new Set(),
        labels: new Set(),
        collaborators: new Set(),
        comments: new Set(),
        checkSuites: new Set(),
        checkRuns: new Set(),
        statuses: new Set(),
        workflowRuns: new Set(),
      };
      this.repositories.set(repo.id, keys);
    }
    return keys;
  }
}
