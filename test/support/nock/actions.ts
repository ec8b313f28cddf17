import type nock from 'nock';
import { type ErrorReply, errorBody, type GithubNock, nockPages, REPO_PATH } from './github-nock.ts';

/** GET /actions/runs?head_sha=, page by page. */
export function nockListWorkflowRuns(
  github: GithubNock,
  params: { sha: string; pages: unknown[][] } | ({ sha: string } & ErrorReply),
): nock.Scope {
  if ('status' in params) {
    const scope = github.scope();
    scope.get(`${REPO_PATH}/actions/runs`).query(true).reply(params.status, errorBody(params));
    return scope;
  }
  return nockPages(github, {
    path: `${REPO_PATH}/actions/runs`,
    query: { head_sha: params.sha },
    pages: params.pages,
    wrap: (items, total) => ({ total_count: total, workflow_runs: items }),
  });
}

/** POST /actions/runs/{id}/cancel: 202, or 409 when the run completed meanwhile. */
export function nockCancelWorkflowRun(
  github: GithubNock,
  params: { id: number; reply?: ErrorReply },
): nock.Scope {
  const scope = github.scope();
  const interceptor = scope.post(`${REPO_PATH}/actions/runs/${params.id}/cancel`);
  if (params.reply === undefined) interceptor.reply(202, {});
  else interceptor.reply(params.reply.status, errorBody(params.reply));
  return scope;
}
