import type nock from 'nock';
import { commitJson } from './fixtures.ts';
import { type GithubNock, REPO_PATH } from './github-nock.ts';

/**
 * GET /repos/{o}/{r}/commits/{ref}: the commit `sha` (tree `tree-of-<sha>`, or `tree`) with its
 * parents.
 */
export function nockGetCommit(
  github: GithubNock,
  params: { ref: string; sha: string; parents?: string[]; tree?: string },
): nock.Scope {
  const scope = github.scope();
  const commit = commitJson(params.sha, params.parents ?? []);
  if (params.tree !== undefined) commit.commit = { tree: { sha: params.tree } };
  scope
    .get(`${REPO_PATH}/commits/${encodeURIComponent(params.ref)}`)
    .query(true)
    .reply(200, commit);
  return scope;
}
