import nock from 'nock';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import type { RepositoryClient } from '../../../app/github/client/client.ts';
import {
  createTokenOctokit,
  type RequestPolicy,
  testRequestPolicy,
} from '../../../app/github/client/octokit.ts';
import { createRepositoryClient } from '../../../app/github/client/repository-client.ts';

/** A GitHub Enterprise-style REST root, so the base URL is exercised too. */
export const GITHUB_ORIGIN = 'https://github.test';
export const GITHUB_API = `${GITHUB_ORIGIN}/api/v3`;
export const OWNER = 'acme';
export const REPO = 'widgets';
/** `/repos/acme/widgets` under the REST root, as nock matches it. */
export const REPO_PATH = `/api/v3/repos/${OWNER}/${REPO}`;

export interface RecordedRequest {
  /** `PUT /repos/acme/widgets/pulls/3/merge`: the REST root left out, the path as sent (`heads%2Fmain`). */
  request: string;
  body?: unknown;
}

/** GitHub's error body: a message, a 422's errors, the documentation link octokit strips. */
export interface ErrorReply {
  status: number;
  message: string;
  errors?: object[];
  headers?: Record<string, string>;
}

/**
 * The GitHub of one test, answered by nock: every interceptor hangs on a scope made here, so one
 * `isDone()` covers them all, and every request that reached GitHub is recorded with its body
 * for a snapshot.
 */
export class GithubNock {
  readonly requests: RecordedRequest[] = [];
  /** Requests that a test said must not happen ("must not merge"). */
  readonly violations: string[] = [];
  private scopes: nock.Scope[] = [];

  scope(): nock.Scope {
    const scope = nock(GITHUB_ORIGIN);
    scope.on('request', (req: { method: string; path: string }, _interceptor: unknown, body: string) => {
      const recorded: RecordedRequest = {
        request: `${req.method} ${req.path.replace(/^\/api\/v3/, '')}`,
      };
      if (body !== '') recorded.body = JSON.parse(body);
      this.requests.push(recorded);
    });
    this.scopes.push(scope);
    return scope;
  }

  /**
   * A request that must not be made ("must not merge"). A reply function that throws is an
   * uncaught exception under nock 14 and leaves the request hanging, so the function records the
   * violation (isDone() fails) and answers 500, which the code under test cannot mistake for
   * success.
   */
  mustNot(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string | RegExp, why: string): void {
    this.scope()
      .intercept(path, method)
      .query(true)
      .optionally()
      .times(Number.MAX_SAFE_INTEGER)
      .reply(() => {
        this.violations.push(why);
        return [500, { message: `the test forbids this request: ${why}` }];
      });
  }

  /** Every scripted answer was asked for, and nothing forbidden was. */
  isDone(): boolean {
    return this.violations.length === 0 && this.scopes.every((scope) => scope.isDone());
  }

  pending(): string[] {
    return this.scopes.flatMap((scope) => scope.pendingMocks());
  }

  client(policy: RequestPolicy = testRequestPolicy, options: { appId?: number } = {}): RepositoryClient {
    const octokit = createTokenOctokit({ token: 'ghs_test', baseUrl: GITHUB_API, policy });
    return createRepositoryClient(octokit, { owner: OWNER, repo: REPO, ...options });
  }

  reset(): void {
    this.requests.length = 0;
    this.violations.length = 0;
    this.scopes = [];
  }
}

/** Real network off for the file (loopback stays open for other servers), a fresh GitHub per test. */
export function useGithubNock(): GithubNock {
  const github = new GithubNock();
  beforeAll(() => {
    nock.disableNetConnect();
    nock.enableNetConnect('127.0.0.1');
  });
  beforeEach(() => github.reset());
  afterEach(() => nock.cleanAll());
  afterAll(() => nock.enableNetConnect());
  return github;
}

export function errorBody(reply: ErrorReply): object {
  return {
    message: reply.message,
    ...(reply.errors === undefined ? {} : { errors: reply.errors }),
    documentation_url: 'https://docs.github.com/rest',
  };
}

/**
 * Answers a list endpoint page by page with GitHub's Link header. `wrap` puts a page in its
 * envelope for endpoints that answer an object (`{ total_count, check_runs }`).
 */
export function nockPages(
  github: GithubNock,
  params: {
    path: string;
    query?: Record<string, string>;
    pages: unknown[][];
    wrap?: (items: unknown[], total: number) => object;
  },
): nock.Scope {
  const scope = github.scope();
  const total = params.pages.reduce((sum, page) => sum + page.length, 0);
  params.pages.forEach((items, index) => {
    const page = index + 1;
    const query = { ...params.query, per_page: '100', ...(page > 1 ? { page: String(page) } : {}) };
    const link = (n: number) =>
      `${GITHUB_ORIGIN}${params.path}?${new URLSearchParams({ ...params.query, per_page: '100', page: String(n) })}`;
    const links = [
      ...(page < params.pages.length
        ? [`<${link(page + 1)}>; rel="next"`, `<${link(params.pages.length)}>; rel="last"`]
        : []),
      ...(page > 1 ? [`<${link(1)}>; rel="first"`, `<${link(page - 1)}>; rel="prev"`] : []),
    ];
    scope
      .get(params.path)
      .query(query)
      .reply(
        200,
        params.wrap === undefined ? items : params.wrap(items, total),
        links.length > 0 ? { link: links.join(', ') } : {},
      );
  });
  return scope;
}
