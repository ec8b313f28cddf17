import type { FastifyInstance } from 'fastify';
import { GithubError } from '../github-error.ts';
import type { RouteContext } from '../http/route-context.ts';
import { renderCollaborator, renderPrivateUser } from '../rest/accounts.ts';
import { renderFullRepository, renderRepository } from '../rest/repository.ts';

/** The legacy `permission` field folds maintain into write and triage into read. */
const legacyPermission = {
  admin: 'admin',
  maintain: 'write',
  write: 'write',
  triage: 'read',
  read: 'read',
} as const;

/** Repositories, people's permissions, and the account behind a token. */
export function registerRepositoryRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const { github, urls } = ctx;

  // GET /repos/{o}/{r}: `permissions` only for a person's token (the API's token check reads them).
  app.get('/repos/:owner/:repo', async (request) => {
    const repo = ctx.repo(request, 'read');
    const token = ctx.token(request);
    const viewer =
      token.kind === 'user'
        ? { role: github.access.roleOf(repo, token.user) ?? (repo.private ? null : ('read' as const)) }
        : null;
    return renderFullRepository(urls, repo, viewer);
  });

  app.get('/repos/:owner/:repo/collaborators/:user/permission', async (request) => {
    const repo = ctx.repo(request, 'read');
    const login = decodeURIComponent((request.params as { user: string }).user);
    const user = github.findAccount(login);
    if (!user) throw new GithubError(404, `${login} is not a user`);
    const role = github.access.roleOf(repo, user) ?? (repo.private ? null : 'read');
    return {
      permission: role === null ? 'none' : legacyPermission[role],
      role_name: role ?? 'none',
      user: role === null ? null : renderCollaborator(urls, user, role),
    };
  });

  // GET /user: only a person's token has a user; an installation token is refused as on GitHub.
  app.get('/user', async (request) => {
    const token = ctx.token(request);
    if (token.kind !== 'user') throw new GithubError(403, 'Resource not accessible by integration');
    return renderPrivateUser(urls, token.user, github.clock.now());
  });

  // GET /installation/repositories: what an installation token may reach.
  app.get('/installation/repositories', async (request, reply) => {
    const token = ctx.token(request);
    if (token.kind !== 'installation') throw new GithubError(403, 'You must authenticate via a GitHub App.');
    const repos = [...token.installation.repositoryIds]
      .map((id) => github.repositoryById(id))
      .filter((r) => r !== undefined)
      .sort((a, b) => a.id - b.id);
    return {
      total_count: repos.length,
      repository_selection: 'selected',
      repositories: ctx.page(request, reply, repos).map((r) => renderRepository(urls, r)),
    };
  });
}
