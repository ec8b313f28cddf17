import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { CheckRunFields } from '../checks.ts';
import type { CheckConclusion, CheckStatus, StatusState } from '../entities.ts';
import { GithubError } from '../github-error.ts';
import { Body } from '../http/body.ts';
import type { RouteContext } from '../http/route-context.ts';
import { renderCheckRun, renderCheckSuite, renderCombinedStatus, renderStatus } from '../rest/checks.ts';

const repoPath = '/repos/:owner/:repo';
const statuses = ['queued', 'in_progress', 'completed'] as const;
const conclusions = [
  'success',
  'failure',
  'neutral',
  'cancelled',
  'skipped',
  'timed_out',
  'action_required',
] as const;

/** The writable fields of a check run, from POST or PATCH. */
function readCheckRunFields(body: Body): CheckRunFields {
  const time = (key: string) => {
    const value = body.nullableString(key);
    if (value === undefined || value === null) return value;
    const ms = Date.parse(value);
    if (Number.isNaN(ms)) throw GithubError.validation({ resource: 'CheckRun', field: key, code: 'invalid' });
    return ms;
  };
  const output = body.object('output');
  const status: CheckStatus | undefined = body.oneOf('status', statuses);
  const conclusion: CheckConclusion | undefined = body.oneOf('conclusion', conclusions);
  if (status === 'completed' && conclusion === undefined) {
    throw GithubError.validation({ resource: 'CheckRun', field: 'conclusion', code: 'missing_field' });
  }
  return {
    name: body.optionalString('name'),
    status,
    conclusion,
    startedAt: time('started_at'),
    completedAt: time('completed_at'),
    title: output?.nullableString('title'),
    summary: output?.nullableString('summary'),
    text: output?.nullableString('text'),
    detailsUrl: body.nullableString('details_url'),
    externalId: body.nullableString('external_id'),
  };
}

/** Check runs and suites, commit statuses. */
export function registerCheckRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const { github, urls } = ctx;
  const commitOf = (request: FastifyRequest) => {
    const repo = ctx.repo(request, 'read');
    const ref = (request.params as { ref: string }).ref;
    const commit = github.git.resolve(repo, ref);
    if (!commit) throw new GithubError(422, `No commit found for SHA: ${ref}`);
    return { repo, commit };
  };

  app.post(`${repoPath}/check-runs`, async (request, reply) => {
    const repo = ctx.repo(request, 'write');
    const checkApp = ctx.installationApp(request);
    const body = new Body(request, 'CheckRun');
    const run = github.checks.createRun(repo, {
      ...readCheckRunFields(body),
      name: body.string('name'),
      headSha: body.string('head_sha'),
      app: checkApp,
      sender: ctx.actor(request),
    });
    return reply.code(201).send(renderCheckRun(urls, repo, run));
  });

  app.patch(`${repoPath}/check-runs/:id`, async (request) => {
    const repo = ctx.repo(request, 'write');
    const checkApp = ctx.installationApp(request);
    const id = ctx.number((request.params as { id: string }).id);
    const run = github.checks.updateRun(repo, id, {
      ...readCheckRunFields(new Body(request, 'CheckRun')),
      app: checkApp,
      sender: ctx.actor(request),
    });
    return renderCheckRun(urls, repo, run);
  });

  app.get(`${repoPath}/check-runs/:id`, async (request) => {
    const repo = ctx.repo(request, 'read');
    const run = repo.checkRuns.get(ctx.number((request.params as { id: string }).id));
    if (!run) throw GithubError.notFound();
    return renderCheckRun(urls, repo, run);
  });

  // GET /commits/{ref}/check-runs?check_name=&status=&filter=latest|all&app_id=
  app.get(`${repoPath}/commits/:ref/check-runs`, async (request, reply) => {
    const { repo, commit } = commitOf(request);
    const query = request.query as Record<string, string | undefined>;
    const status = query['status'];
    if (status !== undefined && !statuses.includes(status as CheckStatus)) {
      throw GithubError.validation({ resource: 'CheckRun', field: 'status', code: 'invalid' });
    }
    const runs = github.checks.runsFor(repo, commit.sha, {
      checkName: query['check_name'],
      status: status as CheckStatus | undefined,
      appId: query['app_id'] === undefined ? undefined : Number(query['app_id']),
      latestOnly: (query['filter'] ?? 'latest') === 'latest',
    });
    return {
      total_count: runs.length,
      check_runs: ctx.page(request, reply, runs).map((r) => renderCheckRun(urls, repo, r)),
    };
  });

  app.get(`${repoPath}/commits/:ref/check-suites`, async (request, reply) => {
    const { repo, commit } = commitOf(request);
    const suites = [...repo.checkSuites.values()].filter((s) => s.headSha === commit.sha);
    return {
      total_count: suites.length,
      check_suites: ctx.page(request, reply, suites).map((s) => renderCheckSuite(github, urls, repo, s)),
    };
  });

  // GET /commits/{ref}/status: the combined state and the newest status of each context.
  app.get(`${repoPath}/commits/:ref/status`, async (request, reply) => {
    const { repo, commit } = commitOf(request);
    const latest = github.checks.latestStatuses(repo, commit.sha);
    return renderCombinedStatus(urls, repo, {
      sha: commit.sha,
      state: github.checks.combinedState(latest),
      statuses: ctx.page(request, reply, latest),
      totalCount: latest.length,
    });
  });

  app.get(`${repoPath}/commits/:ref/statuses`, async (request, reply) => {
    const { repo, commit } = commitOf(request);
    const all = repo.statuses.filter((s) => s.sha === commit.sha).reverse();
    return ctx.page(request, reply, all).map((s) => renderStatus(urls, repo, s));
  });

  app.post(`${repoPath}/statuses/:sha`, async (request, reply) => {
    const repo = ctx.repo(request, 'write');
    const body = new Body(request, 'Status');
    const status = github.checks.createStatus(repo, {
      sha: (request.params as { sha: string }).sha,
      state:
        body.oneOf('state', ['error', 'failure', 'pending', 'success'] as const) ??
        (body.string('state') as StatusState),
      context: body.optionalString('context'),
      description: body.nullableString('description'),
      targetUrl: body.nullableString('target_url'),
      creator: ctx.actor(request),
    });
    return reply.code(201).send(renderStatus(urls, repo, status));
  });
}
