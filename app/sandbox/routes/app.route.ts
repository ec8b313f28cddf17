import type { FastifyInstance, FastifyRequest } from 'fastify';
import { GithubError } from '../github-error.ts';
import type { RouteContext } from '../http/route-context.ts';
import { renderIntegration } from '../rest/accounts.ts';
import { installationPermissions, renderInstallation } from '../rest/installation.ts';
import { renderRepository } from '../rest/repository.ts';
import { isoTime } from '../rest/urls.ts';

/** The app's own endpoints, authenticated with its JWT: installations and their tokens. */
export function registerAppRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const { github, urls } = ctx;
  const installationOf = (request: FastifyRequest) => {
    ctx.app(request);
    const installation = github.access.installations.get(ctx.number((request.params as { id: string }).id));
    if (!installation || installation.app.id !== github.app.id) throw GithubError.notFound();
    return installation;
  };

  app.get('/app', async (request) => renderIntegration(urls, ctx.app(request), 0));

  app.get('/app/installations', async (request, reply) => {
    ctx.app(request);
    const installations = [...github.access.installations.values()].filter((i) => i.app.id === github.app.id);
    return ctx.page(request, reply, installations).map((i) => renderInstallation(urls, i));
  });

  app.get('/app/installations/:id', async (request) => renderInstallation(urls, installationOf(request)));

  // POST /access_tokens: a fresh installation token (an hour on the sandbox clock).
  app.post('/app/installations/:id/access_tokens', async (request, reply) => {
    const installation = installationOf(request);
    const token = github.access.issueInstallationToken(installation.id);
    const repositories = [...installation.repositoryIds]
      .map((id) => github.repositoryById(id))
      .filter((r) => r !== undefined);
    return reply.code(201).send({
      token: token.token,
      expires_at: isoTime(token.expiresAt),
      permissions: installationPermissions,
      repository_selection: 'selected',
      repositories: repositories.map((r) => renderRepository(urls, r)),
    });
  });

  // GET /repos/{o}/{r}/installation: how an app finds the installation of a repository.
  app.get('/repos/:owner/:repo/installation', async (request) => {
    ctx.app(request);
    const { owner, repo: name } = request.params as { owner: string; repo: string };
    const repo = github.repository(owner, name);
    const installation = repo && github.access.installationOf(repo, github.app.id);
    if (!installation) throw GithubError.notFound();
    return renderInstallation(urls, installation);
  });
}
