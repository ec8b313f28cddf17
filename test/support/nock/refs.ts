import type nock from 'nock';
import { refJson } from './fixtures.ts';
import { type ErrorReply, errorBody, type GithubNock, REPO_PATH } from './github-nock.ts';

/** Octokit sends `heads/a/b` as one path segment, `heads%2Fa%2Fb`; GitHub decodes it. */
export const refPath = (branch: string) => encodeURIComponent(`heads/${branch}`);

/** GET /git/ref/heads/{branch}: the branch's sha, or 404 when `sha` is null. */
export function nockGetRef(github: GithubNock, params: { branch: string; sha: string | null }): nock.Scope {
  const scope = github.scope();
  const interceptor = scope.get(`${REPO_PATH}/git/ref/${refPath(params.branch)}`);
  if (params.sha === null) interceptor.reply(404, errorBody({ status: 404, message: 'Not Found' }));
  else interceptor.reply(200, refJson(params.branch, params.sha));
  return scope;
}

/** PATCH /git/refs/heads/{branch}; a missing ref answers 422 "Reference does not exist". */
export function nockUpdateRef(
  github: GithubNock,
  params: { branch: string; sha: string; reply?: ErrorReply | 'missing' },
): nock.Scope {
  const scope = github.scope();
  const interceptor = scope.patch(`${REPO_PATH}/git/refs/${refPath(params.branch)}`);
  const reply =
    params.reply === 'missing' ? { status: 422, message: 'Reference does not exist' } : params.reply;
  if (reply === undefined) interceptor.reply(200, refJson(params.branch, params.sha));
  else interceptor.reply(reply.status, errorBody(reply), reply.headers);
  return scope;
}

/** POST /git/refs. */
export function nockCreateRef(github: GithubNock, params: { branch: string; sha: string }): nock.Scope {
  const scope = github.scope();
  scope.post(`${REPO_PATH}/git/refs`).reply(201, refJson(params.branch, params.sha));
  return scope;
}

/** DELETE /git/refs/heads/{branch}; a missing ref answers 422 "Reference does not exist". */
export function nockDeleteRef(github: GithubNock, params: { branch: string; missing?: boolean }): nock.Scope {
  const scope = github.scope();
  const interceptor = scope.delete(`${REPO_PATH}/git/refs/${refPath(params.branch)}`);
  if (params.missing === true)
    interceptor.reply(422, errorBody({ status: 422, message: 'Reference does not exist' }));
  else interceptor.reply(204);
  return scope;
}

/** A branch set to a sha: PATCH when it exists, else PATCH (422) then POST. */
export function nockSetBranch(
  github: GithubNock,
  params: { branch: string; sha: string; exists: boolean },
): nock.Scope[] {
  if (params.exists) return [nockUpdateRef(github, params)];
  return [nockUpdateRef(github, { ...params, reply: 'missing' }), nockCreateRef(github, params)];
}
