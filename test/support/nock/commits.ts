import type nock from 'nock';
import { commitJson } from './fixtures.ts';
import { type GithubNock, REPO_PATH } from './github-nock.ts';

/** GET /repos/{o}/{r}/commits/{ref}: the commit `sha` (tree `tree-of-<sha>`) with its parents. */
export function nockGetCommit(
  github: GithubNock,
  params: { ref: string; sha: string; parents?: string[] },
): nock.Scope {
  const scope = github.scope();
  scope
    .get(`${REPO_PATH}/commits/${encodeURIComponent(params.ref)}`)
    .query(true)
    .reply(200, commitJson(params.sha, params.parents ?? []));
  return scope;
}
