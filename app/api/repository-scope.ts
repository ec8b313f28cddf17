import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Repository } from '../store/repositories.ts';
import { type AuthorizeContext, authorize, type Need, type Principal } from './auth/authorize.ts';
import { parseCredential } from './auth/credentials.ts';
import { forbidden, notFound } from './errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    repository: Repository;
    principal: Principal;
  }
}

/**
 * Every `/repos/{owner}/{repository}/…` route: a missing or unreadable credential is refused
 * before anything else; then, once the parameters are valid, the credential is checked for
 * this repository (reads need read, other methods write) and only then is an unknown
 * repository a 404, so a 404 never reveals a repository to a caller that may not see it.
 */
export function registerRepositoryScope(app: FastifyInstance, ctx: AuthorizeContext): void {
  app.decorateRequest('repository', null as unknown as Repository);
  app.decorateRequest('principal', null as unknown as Principal);

  app.addHook('onRequest', async (request) => {
    const credential = parseCredential(request.headers.authorization);
    if (credential.kind === 'invalid') throw forbidden(credential.reason);
  });

  app.addHook('preHandler', async (request: FastifyRequest) => {
    const { owner, repository } = request.params as { owner: string; repository: string };
    const need: Need = request.method === 'GET' || request.method === 'HEAD' ? 'read' : 'write';
    const authorization = await authorize(ctx, parseCredential(request.headers.authorization), {
      owner,
      repository,
      need,
    });
    if (!authorization.repository)
      throw notFound(`repository ${owner}/${repository} is not known to this Trainyard installation`);
    request.principal = authorization.principal;
    request.repository = authorization.repository;
  });
}
