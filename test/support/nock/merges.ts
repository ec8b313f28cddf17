import type nock from 'nock';
import { commitJson } from './fixtures.ts';
import { type ErrorReply, errorBody, type GithubNock, REPO_PATH } from './github-nock.ts';

/**
 * POST /merges: 201 with the merge commit, 204 when the head is already in the branch, or an
 * error (409 "Merge conflict").
 */
export function nockMergeBranches(
  github: GithubNock,
  params: { reply: { sha: string } | 'nothing_to_merge' | ErrorReply },
): nock.Scope {
  const scope = github.scope();
  const interceptor = scope.post(`${REPO_PATH}/merges`);
  const { reply } = params;
  if (reply === 'nothing_to_merge') interceptor.reply(204);
  else if ('sha' in reply) interceptor.reply(201, commitJson(reply.sha));
  else interceptor.reply(reply.status, errorBody(reply), reply.headers);
  return scope;
}

export const mergeConflict: ErrorReply = { status: 409, message: 'Merge conflict' };
