import type { FastifyInstance, FastifyRequest } from 'fastify';
import { GithubError } from '../github-error.ts';
import { Body } from '../http/body.ts';
import type { RouteContext } from '../http/route-context.ts';
import { renderIssueComment, renderReaction } from '../rest/issues.ts';
import { renderLabel } from '../rest/pull-request.ts';

const issuePath = '/repos/:owner/:repo/issues/:number';

/** Issue comments and their reactions, and labels (of pull requests: issues are not modelled). */
export function registerIssueRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const { github, urls } = ctx;
  const numberOf = (request: FastifyRequest) => ctx.number((request.params as { number: string }).number);
  const commentIdOf = (request: FastifyRequest) => ctx.number((request.params as { id: string }).id);

  app.get(`${issuePath}/comments`, async (request, reply) => {
    const repo = ctx.repo(request, 'read');
    const comments = github.issues.commentsOf(repo, numberOf(request));
    return ctx.page(request, reply, comments).map((c) => renderIssueComment(urls, repo, c));
  });

  // Anyone who can read a public repository may comment on it (that is how commands arrive).
  app.post(`${issuePath}/comments`, async (request, reply) => {
    const repo = ctx.repo(request, 'read');
    const token = ctx.token(request);
    const comment = github.issues.comment(repo, {
      number: numberOf(request),
      body: new Body(request, 'IssueComment').string('body'),
      user: ctx.actor(request),
      app: token.kind === 'installation' ? token.installation.app : null,
    });
    return reply.code(201).send(renderIssueComment(urls, repo, comment));
  });

  app.get('/repos/:owner/:repo/issues/comments/:id', async (request) => {
    const repo = ctx.repo(request, 'read');
    const comment = repo.comments.get(commentIdOf(request));
    if (!comment) throw GithubError.notFound();
    return renderIssueComment(urls, repo, comment);
  });

  app.patch('/repos/:owner/:repo/issues/comments/:id', async (request) => {
    const repo = ctx.repo(request, 'read');
    const comment = github.issues.editComment(repo, {
      id: commentIdOf(request),
      body: new Body(request, 'IssueComment').string('body'),
      sender: ctx.actor(request),
    });
    return renderIssueComment(urls, repo, comment);
  });

  // POST /reactions: 201 for a new reaction, 200 when this user already reacted so.
  app.post('/repos/:owner/:repo/issues/comments/:id/reactions', async (request, reply) => {
    const repo = ctx.repo(request, 'read');
    const { reaction, created } = github.issues.react(repo, {
      commentId: commentIdOf(request),
      content: new Body(request, 'Reaction').string('content'),
      user: ctx.actor(request),
    });
    return reply.code(created ? 201 : 200).send(renderReaction(urls, reaction));
  });

  app.get(`${issuePath}/labels`, async (request, reply) => {
    const repo = ctx.repo(request, 'read');
    return ctx
      .page(request, reply, github.issues.labelsOf(repo, numberOf(request)))
      .map((l) => renderLabel(urls, repo, l));
  });

  // POST /labels: `{labels: [...]}` or a bare array; answers every label the PR now has.
  app.post(`${issuePath}/labels`, async (request) => {
    const repo = ctx.repo(request, 'write');
    const names = Array.isArray(request.body)
      ? (request.body as unknown[]).map(String)
      : new Body(request, 'Label').stringArray('labels');
    const labels = github.issues.addLabels(repo, {
      number: numberOf(request),
      names,
      sender: ctx.actor(request),
    });
    return labels.map((l) => renderLabel(urls, repo, l));
  });

  app.delete(`${issuePath}/labels/:name`, async (request) => {
    const repo = ctx.repo(request, 'write');
    const labels = github.issues.removeLabel(repo, {
      number: numberOf(request),
      name: decodeURIComponent((request.params as { name: string }).name),
      sender: ctx.actor(request),
    });
    return labels.map((l) => renderLabel(urls, repo, l));
  });
}
