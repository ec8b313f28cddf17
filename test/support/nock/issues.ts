import type nock from 'nock';
import { type ErrorReply, errorBody, type GithubNock, nockPages, REPO_PATH } from './github-nock.ts';

/** GET /issues/{n}/comments, page by page. */
export function nockListComments(
  github: GithubNock,
  params: { number: number; pages: { id: number; body: string }[][] },
): nock.Scope {
  return nockPages(github, { path: `${REPO_PATH}/issues/${params.number}/comments`, pages: params.pages });
}

/** POST /issues/{n}/comments. */
export function nockCreateComment(github: GithubNock, params: { number: number; id: number }): nock.Scope {
  const scope = github.scope();
  scope.post(`${REPO_PATH}/issues/${params.number}/comments`).reply(201, { id: params.id });
  return scope;
}

/** POST /issues/comments/{id}/reactions: 201 new, 200 when the same reaction exists, or an error. */
export function nockCreateReaction(
  github: GithubNock,
  params: { commentId: number; reply: 201 | 200 | ErrorReply },
): nock.Scope {
  const scope = github.scope();
  const interceptor = scope.post(`${REPO_PATH}/issues/comments/${params.commentId}/reactions`);
  const { reply } = params;
  if (typeof reply === 'number') interceptor.reply(reply, { id: 1, content: 'eyes' });
  else interceptor.reply(reply.status, errorBody(reply));
  return scope;
}
