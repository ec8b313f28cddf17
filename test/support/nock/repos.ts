import type nock from 'nock';
import { type ErrorReply, errorBody, type GithubNock, REPO_PATH } from './github-nock.ts';

/** GET /repos/{o}/{r}, or an error; `authorization` requires that header (token tests). */
export function nockGetRepository(
  github: GithubNock,
  params: { reply?: ErrorReply; times?: number; authorization?: string } = {},
): nock.Scope {
  const scope = github.scope();
  const interceptor = scope.get(REPO_PATH).times(params.times ?? 1);
  if (params.authorization !== undefined) interceptor.matchHeader('authorization', params.authorization);
  if (params.reply === undefined)
    interceptor.reply(200, { id: 4242, name: 'widgets', default_branch: 'main' });
  else interceptor.reply(params.reply.status, errorBody(params.reply), params.reply.headers);
  return scope;
}

/** GET /collaborators/{login}/permission. */
export function nockGetPermission(
  github: GithubNock,
  params: { login: string; reply: { permission: string; role_name: string } | ErrorReply },
): nock.Scope {
  const scope = github.scope();
  const interceptor = scope.get(`${REPO_PATH}/collaborators/${encodeURIComponent(params.login)}/permission`);
  const { reply } = params;
  if ('status' in reply) interceptor.reply(reply.status, errorBody(reply));
  else interceptor.reply(200, { ...reply, user: { login: params.login } });
  return scope;
}

/** GET /contents/{path}?ref=: a file's base64 content, or 404. */
export function nockGetContent(
  github: GithubNock,
  params: { path: string; ref: string; text: string | null },
): nock.Scope {
  const scope = github.scope();
  const interceptor = scope
    .get(`${REPO_PATH}/contents/${encodeURIComponent(params.path)}`)
    .query({ ref: params.ref });
  if (params.text === null) interceptor.reply(404, errorBody({ status: 404, message: 'Not Found' }));
  else
    interceptor.reply(200, {
      type: 'file',
      encoding: 'base64',
      path: params.path,
      content: Buffer.from(params.text)
        .toString('base64')
        .replace(/(.{60})/g, '$1\n'),
    });
  return scope;
}
