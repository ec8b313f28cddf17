import type nock from 'nock';
import { type PullRequestFixture, pullRequestJson } from './fixtures.ts';
import { type ErrorReply, errorBody, type GithubNock, nockPages, OWNER, REPO_PATH } from './github-nock.ts';

/** GET /pulls/{n}. */
export function nockGetPull(
  github: GithubNock,
  pr: PullRequestFixture | (ErrorReply & { number: number }),
): nock.Scope {
  const scope = github.scope();
  const interceptor = scope.get(`${REPO_PATH}/pulls/${pr.number}`);
  if ('status' in pr) interceptor.reply(pr.status, errorBody(pr));
  else interceptor.reply(200, pullRequestJson(pr));
  return scope;
}

/** GET /pulls?head=acme:{branch}&state=open: the open pull requests from that branch. */
export function nockFindPullsByHead(
  github: GithubNock,
  params: { branch: string; open: number[] },
): nock.Scope {
  const scope = github.scope();
  scope
    .get(`${REPO_PATH}/pulls`)
    .query({ head: `${OWNER}:${params.branch}`, state: 'open', per_page: '100' })
    .reply(
      200,
      params.open.map((number) => pullRequestJson({ number, headSha: 'test-head', head: params.branch })),
    );
  return scope;
}

/** POST /pulls: the new pull request's number, or GitHub's refusal. */
export function nockCreatePull(
  github: GithubNock,
  params: { reply: { number: number; branch: string } | ErrorReply },
): nock.Scope {
  const scope = github.scope();
  const interceptor = scope.post(`${REPO_PATH}/pulls`);
  const { reply } = params;
  if ('number' in reply)
    interceptor.reply(
      201,
      pullRequestJson({ number: reply.number, headSha: 'test-head', head: reply.branch, draft: true }),
    );
  else interceptor.reply(reply.status, errorBody(reply), reply.headers);
  return scope;
}

/** PATCH /pulls/{n} (closing). */
export function nockUpdatePull(
  github: GithubNock,
  params: { number: number; reply?: ErrorReply },
): nock.Scope {
  const scope = github.scope();
  const interceptor = scope.patch(`${REPO_PATH}/pulls/${params.number}`);
  if (params.reply === undefined)
    interceptor.reply(200, pullRequestJson({ number: params.number, headSha: 'test-head', state: 'closed' }));
  else interceptor.reply(params.reply.status, errorBody(params.reply));
  return scope;
}

/** PUT /pulls/{n}/merge: the merge commit's sha, or GitHub's refusal (405, 409, 422, 403). */
export function nockMergePull(
  github: GithubNock,
  params: { number: number; reply: { sha: string } | ErrorReply; times?: number },
): nock.Scope {
  const scope = github.scope();
  const interceptor = scope.put(`${REPO_PATH}/pulls/${params.number}/merge`).times(params.times ?? 1);
  const { reply } = params;
  if ('sha' in reply)
    interceptor.reply(200, { sha: reply.sha, merged: true, message: 'Pull Request successfully merged' });
  else interceptor.reply(reply.status, errorBody(reply), reply.headers);
  return scope;
}

/** PUT /pulls/{n}/update-branch: 202 (GitHub will merge the base in), or a 422. */
export function nockUpdatePullBranch(
  github: GithubNock,
  params: { number: number; reply?: ErrorReply },
): nock.Scope {
  const scope = github.scope();
  const interceptor = scope.put(`${REPO_PATH}/pulls/${params.number}/update-branch`);
  if (params.reply === undefined)
    interceptor.reply(202, {
      message: 'Updating pull request branch.',
      url: `https://github.test/acme/widgets/pull/${params.number}`,
    });
  else interceptor.reply(params.reply.status, errorBody(params.reply));
  return scope;
}

/** GET /pulls/{n}/files, page by page. */
export function nockListPullFiles(
  github: GithubNock,
  params: { number: number; pages: { filename: string; previous_filename?: string }[][] },
): nock.Scope {
  return nockPages(github, { path: `${REPO_PATH}/pulls/${params.number}/files`, pages: params.pages });
}

/** GET /pulls/{n}/reviews, page by page, oldest first. */
export function nockListReviews(
  github: GithubNock,
  params: { number: number; pages: unknown[][] },
): nock.Scope {
  return nockPages(github, { path: `${REPO_PATH}/pulls/${params.number}/reviews`, pages: params.pages });
}

/** GET /commits/{sha}/pulls: every pull request containing the commit. */
export function nockPullsForCommit(
  github: GithubNock,
  params: { sha: string; pulls: PullRequestFixture[] },
): nock.Scope {
  return nockPages(github, {
    path: `${REPO_PATH}/commits/${params.sha}/pulls`,
    pages: [params.pulls.map(pullRequestJson)],
  });
}
