import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { PullRequest, ReviewState } from '../entities.ts';
import { GithubError } from '../github-error.ts';
import { Body } from '../http/body.ts';
import type { RouteContext } from '../http/route-context.ts';
import { renderCommit, renderDiffEntry } from '../rest/git.ts';
import { renderPullRequest, renderPullRequestSimple, renderReview } from '../rest/pull-request.ts';

const pullPath = '/repos/:owner/:repo/pulls/:number';

/** Review events of POST /reviews and the state each one leaves. */
const reviewEvents: Record<string, ReviewState> = {
  APPROVE: 'APPROVED',
  REQUEST_CHANGES: 'CHANGES_REQUESTED',
  COMMENT: 'COMMENTED',
};

/** Pull requests: list, open, read, edit, merge, update the branch, files, reviews, commits. */
export function registerPullRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const { github, urls } = ctx;
  const numberOf = (request: FastifyRequest) => ctx.number((request.params as { number: string }).number);

  // GET /pulls?state=&head=owner:branch&base=&sort=&direction=
  app.get('/repos/:owner/:repo/pulls', async (request, reply) => {
    const repo = ctx.repo(request, 'read');
    const query = request.query as Record<string, string | undefined>;
    const state = query['state'] ?? 'open';
    if (!['open', 'closed', 'all'].includes(state)) {
      throw GithubError.validation({ resource: 'PullRequest', field: 'state', code: 'invalid' });
    }
    const head = query['head'];
    const headBranch = head?.includes(':') ? head.slice(head.indexOf(':') + 1) : head;
    const headOwner = head?.includes(':') ? head.slice(0, head.indexOf(':')) : undefined;
    const sort = query['sort'] ?? 'created';
    const direction = query['direction'] ?? (sort === 'created' ? 'desc' : 'asc');
    const time = (p: PullRequest) => (sort === 'updated' ? p.updatedAt : p.createdAt);
    const ascending = (a: PullRequest, b: PullRequest) => time(a) - time(b) || a.number - b.number;
    // Forks are not modelled: a head owned by anyone else matches nothing.
    const ownHead = headOwner === undefined || headOwner.toLowerCase() === repo.owner.login.toLowerCase();
    const pulls = [...repo.pulls.values()]
      .filter(() => ownHead)
      .filter((p) => state === 'all' || p.state === state)
      .filter((p) => headBranch === undefined || p.head === headBranch)
      .filter((p) => query['base'] === undefined || p.base === query['base'])
      .sort((a, b) => (direction === 'asc' ? ascending(a, b) : ascending(b, a)));
    return ctx.page(request, reply, pulls).map((p) => renderPullRequestSimple(urls, repo, p));
  });

  app.post('/repos/:owner/:repo/pulls', async (request, reply) => {
    const repo = ctx.repo(request, 'write');
    const body = new Body(request, 'PullRequest');
    const head = body.string('head');
    const pull = github.pulls.open(repo, {
      head: head.includes(':') ? head.slice(head.indexOf(':') + 1) : head,
      base: body.string('base'),
      title: body.string('title'),
      body: body.optionalString('body'),
      draft: body.optionalBoolean('draft'),
      user: ctx.actor(request),
    });
    reply.header('location', `${urls.api}/repos/${repo.owner.login}/${repo.name}/pulls/${pull.number}`);
    return reply.code(201).send(renderPullRequest(github, urls, repo, pull));
  });

  app.get(pullPath, async (request) => {
    const repo = ctx.repo(request, 'read');
    return renderPullRequest(github, urls, repo, github.pulls.get(repo, numberOf(request)));
  });

  app.patch(pullPath, async (request) => {
    const repo = ctx.repo(request, 'write');
    const body = new Body(request, 'PullRequest');
    const pull = github.pulls.edit(repo, numberOf(request), {
      title: body.optionalString('title'),
      body: body.optionalString('body'),
      base: body.optionalString('base'),
      state: body.oneOf('state', ['open', 'closed'] as const),
      sender: ctx.actor(request),
    });
    return renderPullRequest(github, urls, repo, pull);
  });

  // GET /merge: 204 when merged, 404 when not.
  app.get(`${pullPath}/merge`, async (request, reply) => {
    const repo = ctx.repo(request, 'read');
    if (!github.pulls.get(repo, numberOf(request)).merged) throw GithubError.notFound();
    return reply.code(204).send();
  });

  // PUT /merge: 200 merged, 405 not mergeable, 409 head moved, 422 bad method.
  app.put(`${pullPath}/merge`, async (request) => {
    const repo = ctx.repo(request, 'write');
    const body = new Body(request, 'PullRequest');
    const commit = github.pulls.merge(repo, numberOf(request), {
      method: body.oneOf('merge_method', ['merge', 'squash', 'rebase'] as const) ?? 'merge',
      sha: body.optionalString('sha'),
      title: body.optionalString('commit_title'),
      message: body.optionalString('commit_message'),
      sender: ctx.actor(request),
    });
    return { sha: commit.sha, merged: true, message: 'Pull Request successfully merged' };
  });

  // PUT /update-branch: 202 once the base is merged into the head; 422 otherwise.
  app.put(`${pullPath}/update-branch`, async (request, reply) => {
    const repo = ctx.repo(request, 'write');
    const body = new Body(request, 'PullRequest');
    const number = numberOf(request);
    github.pulls.updateBranch(repo, number, {
      expectedHeadSha: body.optionalString('expected_head_sha'),
      sender: ctx.actor(request),
    });
    return reply.code(202).send({
      message: 'Updating pull request branch.',
      url: `${urls.web}/${repo.owner.login}/${repo.name}/pull/${number}`,
    });
  });

  app.get(`${pullPath}/files`, async (request, reply) => {
    const repo = ctx.repo(request, 'read');
    const number = numberOf(request);
    const pull = github.pulls.get(repo, number);
    const files = github.pulls.files(repo, number).map((f) => renderDiffEntry(urls, repo, f, pull.headSha));
    return ctx.page(request, reply, files);
  });

  app.get(`${pullPath}/commits`, async (request, reply) => {
    const repo = ctx.repo(request, 'read');
    const pull = github.pulls.get(repo, numberOf(request));
    const baseSha = pull.closedBaseSha ?? repo.branches.get(pull.base) ?? null;
    const commits = repo.graph.commitsBetween(
      baseSha && repo.graph.mergeBase(baseSha, pull.headSha),
      pull.headSha,
    );
    return ctx
      .page(request, reply, commits)
      .map((c) => renderCommit(urls, repo, c, { author: null, committer: null }));
  });

  app.get(`${pullPath}/reviews`, async (request, reply) => {
    const repo = ctx.repo(request, 'read');
    const pull = github.pulls.get(repo, numberOf(request));
    return ctx.page(request, reply, pull.reviews).map((r) => renderReview(urls, repo, pull, r));
  });

  // POST /reviews: people review with user tokens.
  app.post(`${pullPath}/reviews`, async (request) => {
    const repo = ctx.repo(request, 'read');
    const body = new Body(request, 'PullRequestReview');
    const event = body.oneOf('event', Object.keys(reviewEvents));
    if (event === undefined)
      throw new GithubError(422, 'Unprocessable Entity: pending reviews are not modelled');
    const number = numberOf(request);
    const pull = github.pulls.get(repo, number);
    if (pull.user.id === ctx.actor(request).id && event !== 'COMMENT') {
      throw new GithubError(422, 'Unprocessable Entity: Can not approve your own pull request');
    }
    github.pulls.review(repo, number, {
      user: ctx.actor(request),
      state: reviewEvents[event]!,
      body: body.optionalString('body'),
    });
    return renderReview(urls, repo, pull, pull.reviews.at(-1)!);
  });

  // GET /commits/{sha}/pulls: the PRs a commit belongs to (merged ones once it is on the default branch).
  app.get('/repos/:owner/:repo/commits/:sha/pulls', async (request, reply) => {
    const repo = ctx.repo(request, 'read');
    const sha = github.git.resolve(repo, (request.params as { sha: string }).sha)?.sha;
    if (sha === undefined) throw new GithubError(422, 'No commit found for SHA');
    const onDefault = repo.graph.isAncestor(sha, repo.branches.get(repo.defaultBranch) ?? '');
    const pulls = [...repo.pulls.values()]
      .filter((p) =>
        onDefault
          ? p.merged && (p.mergeCommitSha === sha || p.headSha === sha)
          : p.state === 'open' && (p.headSha === sha || repo.graph.isAncestor(sha, p.headSha)),
      )
      .sort((a, b) => b.number - a.number);
    return ctx.page(request, reply, pulls).map((p) => renderPullRequestSimple(urls, repo, p));
  });
}
