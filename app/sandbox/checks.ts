import type {
  Account,
  CheckConclusion,
  CheckRun,
  CheckStatus,
  CheckSuite,
  CommitStatus,
  GithubAppInfo,
  Repository,
  StatusState,
} from './entities.ts';
import { GithubError } from './github-error.ts';
import type { SandboxCore } from './sandbox-core.ts';

export interface CheckRunFields {
  name?: string;
  status?: CheckStatus;
  conclusion?: CheckConclusion | null;
  startedAt?: number | null;
  completedAt?: number | null;
  title?: string | null;
  summary?: string | null;
  text?: string | null;
  detailsUrl?: string | null;
  externalId?: string | null;
}

/** GitHub's order of precedence when a suite's runs disagree: the first present wins. */
const suitePrecedence: CheckConclusion[] = [
  'action_required',
  'cancelled',
  'timed_out',
  'failure',
  'neutral',
  'skipped',
  'success',
];

/** Check runs (grouped into one suite per app and commit) and commit statuses. */
export class CheckOperations {
  constructor(private readonly core: SandboxCore) {}

  createRun(
    repo: Repository,
    params: CheckRunFields & { app: GithubAppInfo; name: string; headSha: string; sender: Account },
  ): CheckRun {
    if (!repo.graph.get(params.headSha)) {
      throw GithubError.validation({ resource: 'CheckRun', field: 'head_sha', code: 'invalid' });
    }
    const suite = this.suiteFor(repo, params.app, params.headSha);
    const run: CheckRun = {
      id: this.core.ids.take('checkRun'),
      app: params.app,
      suiteId: suite.id,
      headSha: params.headSha,
      name: params.name,
      status: 'queued',
      conclusion: null,
      startedAt: null,
      completedAt: null,
      title: null,
      summary: null,
      text: null,
      detailsUrl: null,
      externalId: null,
    };
    repo.checkRuns.set(run.id, run);
    repo.checkRunsBySha.set(run.headSha, [...(repo.checkRunsBySha.get(run.headSha) ?? []), run.id]);
    suite.runIds.push(run.id);
    suite.completionAnnounced = false;
    this.apply(run, { ...params, startedAt: params.startedAt ?? this.core.clock.now() });
    this.core.emit({ type: 'check_run', action: 'created', repo, run, sender: params.sender });
    if (run.status === 'completed') this.completed(repo, run, params.sender);
    return run;
  }

  /** PATCH /check-runs/{id}: only the app that created a run may change it. */
  updateRun(
    repo: Repository,
    id: number,
    params: CheckRunFields & { app: GithubAppInfo; sender: Account },
  ): CheckRun {
    const run = repo.checkRuns.get(id);
    if (!run) throw GithubError.notFound();
    if (run.app.id !== params.app.id) {
      throw new GithubError(
        403,
        `Invalid app_id \`${params.app.id}\` - check run can only be modified by the GitHub App that created it.`,
      );
    }
    const wasCompleted = run.status === 'completed';
    const previousConclusion = run.conclusion;
    this.apply(run, params);
    this.core.changes.checkRun(repo, run);
    if (run.status === 'completed' && (!wasCompleted || run.conclusion !== previousConclusion)) {
      this.completed(repo, run, params.sender);
    }
    return run;
  }

  private apply(run: CheckRun, fields: CheckRunFields): void {
    if (fields.name !== undefined) run.name = fields.name;
    if (fields.startedAt !== undefined) run.startedAt = fields.startedAt;
    for (const key of ['title', 'summary', 'text', 'detailsUrl', 'externalId'] as const) {
      if (fields[key] !== undefined) run[key] = fields[key];
    }
    // As on GitHub, a conclusion (or a completion time) completes the run.
    if (fields.conclusion) {
      run.status = 'completed';
      run.conclusion = fields.conclusion;
    } else if (fields.status !== undefined) {
      run.status = fields.status;
      if (fields.status !== 'completed') run.conclusion = null;
    }
    if (run.status === 'completed') {
      run.conclusion ??= 'neutral';
      run.completedAt = fields.completedAt ?? run.completedAt ?? this.core.clock.now();
    } else {
      run.completedAt = null;
    }
  }

  private completed(repo: Repository, run: CheckRun, sender: Account): void {
    this.core.emit({ type: 'check_run', action: 'completed', repo, run, sender });
    const suite = repo.checkSuites.get(run.suiteId)!;
    suite.updatedAt = this.core.clock.now();
    if (this.suiteStatus(repo, suite) === 'completed' && !suite.completionAnnounced) {
      suite.completionAnnounced = true;
      this.core.emit({ type: 'check_suite', action: 'completed', repo, suite, sender });
    }
  }

  private suiteFor(repo: Repository, app: GithubAppInfo, headSha: string): CheckSuite {
    const existing = repo.checkSuites.get(repo.checkSuiteIndex.get(`${app.id}:${headSha}`) ?? 0);
    if (existing) return existing;
    const now = this.core.clock.now();
    const branch = [...repo.branches].find(([, sha]) => sha === headSha)?.[0] ?? null;
    const suite: CheckSuite = {
      id: this.core.ids.take('checkSuite'),
      app,
      headSha,
      headBranch: branch,
      createdAt: now,
      updatedAt: now,
      completionAnnounced: false,
      runIds: [],
    };
    repo.checkSuites.set(suite.id, suite);
    repo.checkSuiteIndex.set(`${app.id}:${headSha}`, suite.id);
    return suite;
  }

  runsOfSuite(repo: Repository, suite: CheckSuite): CheckRun[] {
    return suite.runIds.map((id) => repo.checkRuns.get(id)!);
  }

  suiteStatus(repo: Repository, suite: CheckSuite): CheckStatus {
    const runs = this.runsOfSuite(repo, suite);
    if (runs.length > 0 && runs.every((r) => r.status === 'completed')) return 'completed';
    return runs.some((r) => r.status !== 'queued') ? 'in_progress' : 'queued';
  }

  suiteConclusion(repo: Repository, suite: CheckSuite): CheckConclusion | null {
    if (this.suiteStatus(repo, suite) !== 'completed') return null;
    const conclusions = new Set(this.runsOfSuite(repo, suite).map((r) => r.conclusion));
    return suitePrecedence.find((c) => conclusions.has(c)) ?? 'success';
  }

  /**
   * GET /commits/{ref}/check-runs: newest first; `latest` keeps the newest run of each name
   * per app, as GitHub's default filter does.
   */
  runsFor(
    repo: Repository,
    sha: string,
    filter: { checkName?: string; status?: CheckStatus; appId?: number; latestOnly: boolean },
  ): CheckRun[] {
    const runs = (repo.checkRunsBySha.get(sha) ?? [])
      .map((id) => repo.checkRuns.get(id)!)
      .filter((r) => filter.checkName === undefined || r.name === filter.checkName)
      .filter((r) => filter.appId === undefined || r.app.id === filter.appId)
      .sort((a, b) => b.id - a.id);
    const kept = filter.latestOnly
      ? runs.filter((r, i) => runs.findIndex((o) => o.name === r.name && o.app.id === r.app.id) === i)
      : runs;
    return kept.filter((r) => filter.status === undefined || r.status === filter.status);
  }

  createStatus(
    repo: Repository,
    params: {
      sha: string;
      state: StatusState;
      context?: string;
      description?: string | null;
      targetUrl?: string | null;
      creator: Account;
    },
  ): CommitStatus {
    if (!repo.graph.get(params.sha)) {
      throw GithubError.validation({ resource: 'Status', field: 'sha', code: 'invalid' });
    }
    const status: CommitStatus = {
      id: this.core.ids.take('status'),
      sha: params.sha,
      state: params.state,
      context: params.context ?? 'default',
      description: params.description ?? null,
      targetUrl: params.targetUrl ?? null,
      creator: params.creator,
      createdAt: this.core.clock.now(),
    };
    repo.statuses.push(status);
    this.core.emit({ type: 'status', repo, status, sender: params.creator });
    return status;
  }

  /** The newest status of each context on a commit, newest first. */
  latestStatuses(repo: Repository, sha: string): CommitStatus[] {
    const latest = new Map<string, CommitStatus>();
    for (const status of repo.statuses) if (status.sha === sha) latest.set(status.context, status);
    return [...latest.values()].sort((a, b) => b.id - a.id);
  }

  /** GitHub's combined state: failure if any failed or errored, pending if any pending or none, else success. */
  combinedState(statuses: CommitStatus[]): 'failure' | 'pending' | 'success' {
    if (statuses.some((s) => s.state === 'failure' || s.state === 'error')) return 'failure';
    if (statuses.length === 0 || statuses.some((s) => s.state === 'pending')) return 'pending';
    return 'success';
  }
}
