import type { FastifyInstance, FastifyRequest } from 'fastify';
import { enforceRefUpdateProtection } from '../branch-protection.ts';
import { GithubError } from '../github-error.ts';
import { Body } from '../http/body.ts';
import type { RouteContext } from '../http/route-context.ts';
import { renderContents } from '../rest/contents.ts';
import { renderCommit, renderGitCommit, renderRef } from '../rest/git.ts';

const repoPath = '/repos/:owner/:repo';

/** `heads/main` from a wildcard (octokit sends `heads%2Fmain` or `heads/main`). */
function wildcard(request: FastifyRequest): string {
  return decodeURIComponent((request.params as { '*': string })['*']);
}

/** The branch a `heads/<branch>` ref names; tags and other namespaces are not modelled. */
function branchOf(ref: string): string | null {
  const match = /^(?:refs\/)?heads\/(.+)$/.exec(ref);
  return match ? match[1]! : null;
}

/** Git refs, merges into branches, commits and file contents. */
export function registerGitRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const { github, urls } = ctx;

  // GET /git/ref/{ref}: exactly one ref, or 404.
  app.get(`${repoPath}/git/ref/*`, async (request) => {
    const repo = ctx.repo(request, 'read');
    const branch = branchOf(wildcard(request));
    const sha = branch === null ? undefined : repo.branches.get(branch);
    if (branch === null || sha === undefined) throw GithubError.notFound();
    return renderRef(urls, repo, branch, sha);
  });

  // GET /git/refs/{ref}: the ref itself, or every ref it is a prefix of (the older form octokit also uses).
  const listRefs = (request: FastifyRequest, prefix: string, exactWins: boolean) => {
    const repo = ctx.repo(request, 'read');
    const exact = branchOf(prefix);
    if (exactWins && exact !== null && repo.branches.has(exact)) {
      return renderRef(urls, repo, exact, repo.branches.get(exact)!);
    }
    const wanted = `refs/${prefix.replace(/^refs\//, '')}`;
    return [...repo.branches]
      .filter(([branch]) => `refs/heads/${branch}`.startsWith(wanted))
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([branch, sha]) => renderRef(urls, repo, branch, sha));
  };
  app.get(`${repoPath}/git/refs`, async (request, reply) =>
    ctx.page(request, reply, listRefs(request, '', false) as unknown[]),
  );
  app.get(`${repoPath}/git/refs/*`, async (request) => {
    const found = listRefs(request, wildcard(request), true);
    if (Array.isArray(found) && found.length === 0) throw GithubError.notFound();
    return found;
  });
  app.get(`${repoPath}/git/matching-refs/*`, async (request) => listRefs(request, wildcard(request), false));

  app.post(`${repoPath}/git/refs`, async (request, reply) => {
    const repo = ctx.repo(request, 'write');
    const body = new Body(request, 'Reference');
    const ref = body.string('ref');
    const sha = body.string('sha');
    const branch = /^refs\/heads\/(.+)$/.exec(ref)?.[1];
    if (!branch) throw new GithubError(422, "Reference name must start with 'refs/heads/' in the sandbox");
    github.git.createBranch(repo, { branch, sha, sender: ctx.actor(request) });
    return reply.code(201).send(renderRef(urls, repo, branch, sha));
  });

  app.patch(`${repoPath}/git/refs/*`, async (request) => {
    const repo = ctx.repo(request, 'write');
    const body = new Body(request, 'Reference');
    const branch = branchOf(wildcard(request));
    if (branch === null) throw new GithubError(422, 'Reference does not exist');
    const sha = body.string('sha');
    const force = body.optionalBoolean('force') ?? false;
    enforceRefUpdateProtection(repo, { branch, sha, force });
    github.git.moveBranch(repo, { branch, sha, force, sender: ctx.actor(request) });
    return renderRef(urls, repo, branch, sha);
  });

  app.delete(`${repoPath}/git/refs/*`, async (request, reply) => {
    const repo = ctx.repo(request, 'write');
    const branch = branchOf(wildcard(request));
    if (branch === null) throw new GithubError(422, 'Reference does not exist');
    github.git.deleteBranch(repo, { branch, sender: ctx.actor(request) });
    return reply.code(204).send();
  });

  // POST /merges: 201 with the merge commit, 204 when there is nothing to merge, 409 on a conflict.
  app.post(`${repoPath}/merges`, async (request, reply) => {
    const repo = ctx.repo(request, 'write');
    const body = new Body(request, 'Merge');
    const actor = ctx.actor(request);
    const result = github.git.mergeIntoBranch(repo, {
      base: body.string('base'),
      head: body.string('head'),
      message: body.optionalString('commit_message'),
      sender: actor,
    });
    if (result.kind === 'nothing') return reply.code(204).send();
    return reply.code(201).send(renderCommit(urls, repo, result.commit, { author: actor, committer: actor }));
  });

  app.get(`${repoPath}/git/commits/:sha`, async (request) => {
    const repo = ctx.repo(request, 'read');
    const commit = repo.graph.get((request.params as { sha: string }).sha);
    if (!commit) throw GithubError.notFound();
    return renderGitCommit(urls, repo, commit);
  });

  app.get(`${repoPath}/commits/:ref`, async (request) => {
    const repo = ctx.repo(request, 'read');
    const ref = (request.params as { ref: string }).ref;
    const commit = github.git.resolve(repo, ref);
    if (!commit) throw new GithubError(422, `No commit found for SHA: ${ref}`);
    return renderCommit(urls, repo, commit, { author: null, committer: null });
  });

  // GET /contents/{path}?ref=: a file (base64) or a directory listing, at a branch or a sha.
  app.get(`${repoPath}/contents/*`, async (request) => {
    const repo = ctx.repo(request, 'read');
    const ref = (request.query as { ref?: string }).ref ?? repo.defaultBranch;
    const commit = github.git.resolve(repo, ref);
    if (!commit) throw new GithubError(404, `No commit found for the ref ${ref}`);
    const contents = renderContents(urls, repo, commit, wildcard(request));
    if (contents === null) throw GithubError.notFound();
    return contents;
  });
}
