import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTokenOctokit, testRequestPolicy } from '../../../app/github/client/octokit.ts';
import { createRepositoryClient } from '../../../app/github/client/repository-client.ts';
import { githubDescriptions } from '../../support/github-contract/github-descriptions.ts';

/**
 * Exchanges recorded against the real api.github.com (@octokit/fixtures), replayed through our
 * client where they cover what it calls: the client must send what GitHub was sent (method, path,
 * and a request valid for GitHub's description) and read what GitHub answered. The recorded
 * answers are also checked against the description: real answers that the contract check
 * refused would make the check wrong, not GitHub.
 *
 * The package's own `mock()` is not used: it brings nock 13, which does not see `fetch`.
 */
interface RecordedExchange {
  method: string;
  path: string;
  body: unknown;
  status: number;
  response: unknown;
  headers: Record<string, string>;
}

const require = createRequire(import.meta.url);
const scenarios = join(
  dirname(require.resolve('@octokit/fixtures/package.json')),
  'scenarios',
  'api.github.com',
);

function recorded(scenario: string): RecordedExchange[] {
  return JSON.parse(readFileSync(join(scenarios, scenario, 'normalized-fixture.json'), 'utf8'));
}

/**
 * Fields GitHub's description has made required since these exchanges were recorded, added to
 * the recorded answers (the last test lists them) so that the contract check stays strict.
 */
function upToDate(response: unknown): unknown {
  if (typeof response !== 'object' || response === null || !('full_name' in response)) return response;
  return { has_discussions: false, ...response };
}

/** What the client sent, for each recorded exchange it was answered with. */
const sent: { method: string; path: string; body: unknown }[] = [];

/** Answers each recorded request (method and path; the query is ours) with GitHub's recorded answer, once. */
function replay(exchanges: readonly RecordedExchange[]): nock.Scope {
  const scope = nock('https://api.github.com');
  for (const exchange of exchanges) {
    const [path] = exchange.path.split('?');
    // GitHub routes `refs/heads/test` and octokit's `refs/heads%2Ftest` alike.
    scope
      .intercept((uri) => decodeURIComponent(uri.split('?')[0]!) === path, exchange.method.toUpperCase())
      .query(true)
      .reply(function reply(_uri, body) {
        sent.push({ method: this.req.method, path: this.req.path, body });
        const headers = Object.fromEntries(
          Object.entries(exchange.headers).filter(
            ([name]) => !/^(content-length|transfer-encoding)$/i.test(name),
          ),
        );
        return [exchange.status, exchange.status === 204 ? '' : upToDate(exchange.response), headers];
      });
  }
  return scope;
}

const client = (repo: string) =>
  createRepositoryClient(
    createTokenOctokit({
      token: 'ghs_fixture',
      baseUrl: 'https://api.github.com',
      policy: testRequestPolicy,
    }),
    { owner: 'octokit-fixture-org', repo },
  );

beforeAll(() => {
  nock.disableNetConnect();
});
afterEach(() => {
  sent.length = 0;
  nock.cleanAll();
});
afterAll(() => nock.enableNetConnect());

describe('recorded GitHub exchanges (@octokit/fixtures) replayed through RepositoryClient', () => {
  it('get-repository: getRepository() reads the id and default branch', async () => {
    const scope = replay(recorded('get-repository'));
    await expect(client('hello-world').getRepository()).resolves.toEqual({
      id: 1000,
      defaultBranch: 'master',
    });
    expect(scope.isDone()).toBe(true);
    expect(sent.map((s) => `${s.method} ${s.path}`)).toEqual(['GET /repos/octokit-fixture-org/hello-world']);
  });

  it('rename-repository: getRepository() of a renamed repository follows GitHub 301 to /repositories/{id}', async () => {
    const [, moved, target] = recorded('rename-repository');
    const scope = replay([moved!, target!]);
    await expect(client('rename-repository').getRepository()).resolves.toEqual({
      id: 1000,
      defaultBranch: 'main',
    });
    expect(scope.isDone()).toBe(true);
  });

  it('git-refs: setBranch() of an existing branch is the recorded PATCH, deleteBranch() the recorded DELETE', async () => {
    const exchanges = recorded('git-refs');
    const patch = exchanges.find((e) => e.method === 'patch')!;
    const remove = exchanges.find((e) => e.method === 'delete')!;
    const scope = replay([patch, remove]);
    const widgets = client('git-refs');
    await widgets.setBranch('test', '0000000000000000000000000000000000000001');
    await widgets.deleteBranch('test');
    expect(scope.isDone()).toBe(true);
    expect(sent).toEqual([
      {
        method: 'PATCH',
        path: '/repos/octokit-fixture-org/git-refs/git/refs/heads%2Ftest',
        body: { sha: '0000000000000000000000000000000000000001', force: true },
      },
      { method: 'DELETE', path: '/repos/octokit-fixture-org/git-refs/git/refs/heads%2Ftest', body: '' },
    ]);
  });

  it('create-status: listChecks() reads the recorded combined status (check runs were not recorded: none)', async () => {
    const sha = '0000000000000000000000000000000000000001';
    const combined = recorded('create-status').find((e) => e.path.endsWith('/status'))!;
    const scope = replay([combined]);
    // Not in the recording: the check runs on the commit, answered as GitHub answers "none".
    nock('https://api.github.com')
      .get(`/repos/octokit-fixture-org/create-status/commits/${sha}/check-runs`)
      .query(true)
      .reply(200, { total_count: 0, check_runs: [] });
    const checks = await client('create-status').listChecks(sha);
    expect(checks.map((c) => [c.name, c.state])).toEqual([
      ['example/1', 'failure'],
      ['example/2', 'success'],
    ]);
    expect(scope.isDone()).toBe(true);
  });

  it("every recorded exchange of these scenarios validates against GitHub's description (requests and answers)", () => {
    const { rest } = githubDescriptions();
    const problems: string[] = [];
    let checked = 0;
    for (const scenario of [
      'get-repository',
      'rename-repository',
      'git-refs',
      'create-status',
      'get-content',
    ]) {
      for (const exchange of recorded(scenario)) {
        // Redirects, and their target `/repositories/{id}`, are GitHub's routing, not operations.
        if (exchange.status >= 300 && exchange.status < 400) continue;
        if (exchange.path.startsWith('/repositories/')) continue;
        const method = exchange.method.toUpperCase();
        const request = rest.checkRequest(
          method,
          exchange.path,
          exchange.body === '' ? undefined : exchange.body,
        );
        const found = [...request.problems];
        // A raw media type (`application/vnd.github.v3.raw`) answers the file itself.
        if (exchange.headers['content-type']?.includes('json') || exchange.status === 204) {
          const body = exchange.status === 204 ? '' : exchange.response;
          found.push(...rest.checkResponse(method, exchange.path, exchange.status, body).problems);
        }
        checked++;
        for (const p of found) problems.push(`${scenario} ${method} ${exchange.path}: ${p}`);
      }
    }
    expect(checked).toBeGreaterThan(10);
    // Recorded before GitHub added `has_discussions` to every repository, and while `GET
    // /git/refs/` still listed every ref (today's description has `matching-refs` instead).
    const listAllRefs =
      'git-refs GET /repos/octokit-fixture-org/git-refs/git/refs/: GET /repos/{owner}/{repo}/git/refs/{ref} is not in the description';
    expect(problems).toEqual([
      "get-repository GET /repos/octokit-fixture-org/hello-world: body must have required property 'has_discussions'",
      "rename-repository PATCH /repos/octokit-fixture-org/rename-repository: body must have required property 'has_discussions'",
      listAllRefs,
      listAllRefs,
      listAllRefs,
      listAllRefs,
    ]);
  });
});
