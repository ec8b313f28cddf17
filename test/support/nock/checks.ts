import type nock from 'nock';
import { type GithubNock, nockPages, REPO_PATH } from './github-nock.ts';

/** GET /commits/{sha}/check-runs, page by page (`query` for check_name and app_id lookups). */
export function nockListCheckRuns(
  github: GithubNock,
  params: { sha: string; pages: unknown[][]; query?: Record<string, string> },
): nock.Scope {
  return nockPages(github, {
    path: `${REPO_PATH}/commits/${params.sha}/check-runs`,
    ...(params.query === undefined ? {} : { query: params.query }),
    pages: params.pages,
    wrap: (items, total) => ({ total_count: total, check_runs: items }),
  });
}

/** GET /commits/{sha}/status: the latest status per context, page by page. */
export function nockCombinedStatus(
  github: GithubNock,
  params: { sha: string; pages: unknown[][] },
): nock.Scope {
  return nockPages(github, {
    path: `${REPO_PATH}/commits/${params.sha}/status`,
    pages: params.pages,
    wrap: (items, total) => ({
      state: 'pending',
      sha: params.sha,
      total_count: total,
      statuses: items,
      commit_url: `https://github.test/api/v3/repos/acme/widgets/commits/${params.sha}`,
      url: `https://github.test/api/v3/repos/acme/widgets/commits/${params.sha}/status`,
    }),
  });
}

/** POST /check-runs. */
export function nockCreateCheckRun(github: GithubNock, params: { id: number }): nock.Scope {
  const scope = github.scope();
  scope.post(`${REPO_PATH}/check-runs`).reply(201, { id: params.id });
  return scope;
}

/** PATCH /check-runs/{id}. */
export function nockUpdateCheckRun(github: GithubNock, params: { id: number }): nock.Scope {
  const scope = github.scope();
  scope.patch(`${REPO_PATH}/check-runs/${params.id}`).reply(200, { id: params.id });
  return scope;
}
