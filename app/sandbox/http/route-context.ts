import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Account, GithubAppInfo, Repository, Token } from '../entities.ts';
import { GithubError } from '../github-error.ts';
import type { SandboxGithub } from '../model.ts';
import type { SandboxUrls } from '../rest/urls.ts';
import { checkAppJwt, readAuthorization } from './credentials.ts';
import { paginate } from './pagination.ts';

type RepoParams = { owner: string; repo: string };

/**
 * What every route needs: the model, the URLs it renders, and GitHub's rules for who may see
 * and change what. Routes call these instead of repeating the checks.
 */
export class RouteContext {
  constructor(
    readonly github: SandboxGithub,
    readonly urls: SandboxUrls,
  ) {}

  /** The request's token: 401 "Requires authentication" without one, "Bad credentials" when unknown. */
  token(request: FastifyRequest): Token {
    const credential = readAuthorization(request.headers.authorization);
    if (credential === null) throw new GithubError(401, 'Requires authentication');
    const token = this.github.access.authenticate(credential);
    if (!token) throw new GithubError(401, 'Bad credentials');
    return token;
  }

  /** Routes under /app authenticate as the app itself, with its JWT. */
  app(request: FastifyRequest): GithubAppInfo {
    const credential = readAuthorization(request.headers.authorization);
    if (credential === null) throw new GithubError(401, 'A JSON web token could not be decoded');
    checkAppJwt(credential, this.github.app);
    return this.github.app;
  }

  actor(request: FastifyRequest): Account {
    return this.github.access.actorOf(this.token(request));
  }

  /** The app whose installation token made the request; user tokens may not act as an app. */
  installationApp(request: FastifyRequest): GithubAppInfo {
    const token = this.token(request);
    if (token.kind !== 'installation') throw new GithubError(403, 'You must authenticate via a GitHub App.');
    return token.installation.app;
  }

  /**
   * The repository of `:owner/:repo` if the token may `need` it: 404 when it may not even see
   * it (GitHub does not reveal private repositories), 403 when it may only read. Then the
   * repository's request fault knob has its say.
   */
  repo(request: FastifyRequest, need: 'read' | 'write'): Repository {
    const { owner, repo: name } = request.params as RepoParams;
    const token = this.token(request);
    const repo = this.github.repository(owner, name);
    const access = repo ? this.github.access.accessOf(token, repo) : null;
    if (!repo || access === null) throw GithubError.notFound();
    if (need === 'write' && access !== 'write') {
      throw new GithubError(
        403,
        token.kind === 'user'
          ? 'Must have push access to repository'
          : 'Resource not accessible by integration',
      );
    }
    repo.requestBehaviour.attempt({ method: request.method, path: request.url.split('?')[0]! });
    return repo;
  }

  requestUrl(request: FastifyRequest): URL {
    return new URL(request.url, this.urls.api);
  }

  /** One page of `items`, with GitHub's Link header on the reply. */
  page<T>(request: FastifyRequest, reply: FastifyReply, items: readonly T[]): T[] {
    const page = paginate(items, this.requestUrl(request));
    if (page.link) reply.header('link', page.link);
    return page.items;
  }

  /** A positive integer path or body parameter; 404 otherwise, as GitHub's routing does. */
  number(value: unknown): number {
    const n = typeof value === 'number' ? value : Number(value);
    if (!Number.isInteger(n) || n < 1) throw GithubError.notFound();
    return n;
  }
}
