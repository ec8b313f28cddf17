import type { CheckOperations } from './checks.ts';
import type {
  Account,
  CheckConclusion,
  CheckRun,
  CheckStatus,
  GithubAppInfo,
  Repository,
  WorkflowRun,
} from './entities.ts';
import { GithubError } from './github-error.ts';
import type { SandboxCore } from './sandbox-core.ts';

/**
 * GitHub Actions as the app sees it: a workflow run per CI pass on a commit, whose jobs are
 * check runs of the Actions app. Cancelling a run cancels its unfinished jobs.
 */
export class WorkflowRunOperations {
  constructor(
    private readonly core: SandboxCore,
    private readonly checks: CheckOperations,
  ) {}

  start(
    repo: Repository,
    params: {
      app: GithubAppInfo;
      name: string;
      headSha: string;
      headBranch: string | null;
      event: WorkflowRun['event'];
      jobs: string[];
      actor: Account;
    },
  ): { run: WorkflowRun; jobs: CheckRun[] } {
    const jobs = params.jobs.map((name) =>
      this.checks.createRun(repo, {
        app: params.app,
        name,
        headSha: params.headSha,
        status: 'queued',
        startedAt: null,
        sender: params.actor,
      }),
    );
    const now = this.core.clock.now();
    const run: WorkflowRun = {
      id: this.core.ids.take('workflowRun'),
      name: params.name,
      runNumber: [...repo.workflowRuns.values()].filter((r) => r.name === params.name).length + 1,
      headSha: params.headSha,
      headBranch: params.headBranch,
      event: params.event,
      suiteId: jobs[0]?.suiteId ?? 0,
      actor: params.actor,
      checkRunIds: jobs.map((j) => j.id),
      createdAt: now,
      updatedAt: now,
      startedAt: null,
    };
    repo.workflowRuns.set(run.id, run);
    this.core.changes.workflowRun(repo, run);
    return { run, jobs };
  }

  jobs(repo: Repository, run: WorkflowRun): CheckRun[] {
    return run.checkRunIds.map((id) => repo.checkRuns.get(id)!);
  }

  status(repo: Repository, run: WorkflowRun): CheckStatus {
    const jobs = this.jobs(repo, run);
    if (jobs.every((j) => j.status === 'completed')) return 'completed';
    return jobs.some((j) => j.status !== 'queued') ? 'in_progress' : 'queued';
  }

  conclusion(repo: Repository, run: WorkflowRun): CheckConclusion | null {
    if (this.status(repo, run) !== 'completed') return null;
    const conclusions = this.jobs(repo, run).map((j) => j.conclusion);
    if (conclusions.includes('cancelled')) return 'cancelled';
    if (conclusions.some((c) => c === 'failure' || c === 'timed_out')) return 'failure';
    return 'success';
  }

  list(repo: Repository, filter: { headSha?: string; branch?: string; status?: string }): WorkflowRun[] {
    return [...repo.workflowRuns.values()]
      .filter((r) => filter.headSha === undefined || r.headSha === filter.headSha)
      .filter((r) => filter.branch === undefined || r.headBranch === filter.branch)
      .filter((r) => filter.status === undefined || this.status(repo, r) === filter.status)
      .sort((a, b) => b.id - a.id);
  }

  /** POST /actions/runs/{id}/cancel: 409 when the run already finished. */
  cancel(repo: Repository, params: { id: number; sender: Account }): void {
    const run = repo.workflowRuns.get(params.id);
    if (!run) throw GithubError.notFound();
    if (this.status(repo, run) === 'completed') {
      throw new GithubError(409, 'Cannot cancel a workflow run that is completed.');
    }
    for (const job of this.jobs(repo, run)) {
      if (job.status === 'completed') continue;
      this.checks.updateRun(repo, job.id, { app: job.app, conclusion: 'cancelled', sender: params.sender });
    }
    run.updatedAt = this.core.clock.now();
    this.core.changes.workflowRun(repo, run);
  }
}
