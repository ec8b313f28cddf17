import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../http/route-context.ts';
import { renderWorkflowRun } from '../rest/workflow-run.ts';

/** GitHub Actions' workflow runs, as the simulated CI records them. */
export function registerActionsRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const { github, urls } = ctx;

  // GET /actions/runs?head_sha=&branch=&status=
  app.get('/repos/:owner/:repo/actions/runs', async (request, reply) => {
    const repo = ctx.repo(request, 'read');
    const query = request.query as Record<string, string | undefined>;
    const runs = github.actions.list(repo, {
      headSha: query['head_sha'],
      branch: query['branch'],
      status: query['status'],
    });
    return {
      total_count: runs.length,
      workflow_runs: ctx.page(request, reply, runs).map((r) => renderWorkflowRun(github, urls, repo, r)),
    };
  });

  // POST /cancel: 202 while the run is going, 409 once it finished.
  app.post('/repos/:owner/:repo/actions/runs/:id/cancel', async (request, reply) => {
    const repo = ctx.repo(request, 'write');
    github.actions.cancel(repo, {
      id: ctx.number((request.params as { id: string }).id),
      sender: ctx.actor(request),
    });
    return reply.code(202).send({});
  });
}
