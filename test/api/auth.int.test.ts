import { randomBytes } from 'node:crypto';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GithubPermissions } from '../../app/api/auth/github-permissions.ts';
import { buildServer } from '../../app/api/server.ts';
import { createApiKey, revokeApiKey } from '../../app/store/api-keys.ts';
import { ApiHarness, type ApiResponse, FAKE_GITHUB_API } from '../support/api-harness.ts';

let api: ApiHarness;
const keys: Record<string, string> = {};
const STATUS = '/v1/repos/acme/widgets/merge-queue/status';
const PAUSE = '/v1/repos/acme/widgets/merge-queue/pause';

/** Every GitHub token a test made, to prove none comes back in an answer. */
const tokensUsed: string[] = [];
const answers: ApiResponse[] = [];
function githubToken(prefix: 'ghp_' | 'github_pat_' = 'ghp_'): string {
  const token = `${prefix}${randomBytes(18).toString('hex')}`;
  tokensUsed.push(token);
  return token;
}

async function call(path: string, options: Parameters<ApiHarness['request']>[1] = {}) {
  const res = await api.request(path, options);
  answers.push(res);
  return res;
}

function expectForbidden(res: ApiResponse) {
  expect(res.status).toBe(403);
  expect(res.body).toEqual({ detail: expect.any(String) });
  expect((res.body as { detail: string }).detail.length).toBeGreaterThan(0);
  expect(res.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
}

const githubRepo = (token: string, repo = 'widgets') =>
  nock(FAKE_GITHUB_API).matchHeader('authorization', `Bearer ${token}`).get(`/repos/acme/${repo}`).once();

const permissions = (p: Partial<Record<'admin' | 'maintain' | 'push' | 'triage' | 'pull', boolean>>) => ({
  permissions: { admin: false, maintain: false, push: false, triage: false, pull: false, ...p },
});

beforeAll(async () => {
  // Each test scripts GitHub's answers: no fast-503 window after the unreachable one
  // (github-token-checks.int.test.ts tests that window).
  api = await ApiHarness.start({ github: { unreachableForMs: 0 } });
  await api.repository('acme/widgets');
  await api.repository('acme/gadgets');
  await api.repository('globex/widgets');
  keys['ownerAdmin'] = await api.key({ owner: 'acme', role: 'admin' });
  keys['ownerRead'] = await api.key({ owner: 'acme', role: 'read' });
  keys['otherOwner'] = await api.key({ owner: 'globex', role: 'admin' });
  keys['gadgetsOnly'] = await api.key({ owner: 'acme', repository: 'gadgets', role: 'admin' });
  keys['widgetsOnly'] = await api.key({ owner: 'acme', repository: 'widgets', role: 'admin' });
  keys['upperOwner'] = await api.key({ owner: 'ACME', role: 'read' });
  const revoked = await createApiKey(api.store.db, {
    name: 'old',
    owner: 'acme',
    repository: null,
    role: 'admin',
    now: new Date(),
  });
  await revokeApiKey(api.store.db, revoked.key.id, new Date());
  keys['revoked'] = revoked.secret;
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
});

afterEach(() => {
  nock.cleanAll();
});

afterAll(async () => {
  nock.enableNetConnect();
  await api?.stop();
});

describe('refusals: 403 with a detail and WWW-Authenticate: Bearer', () => {
  it.each([
    ['no Authorization header', {}],
    ['an empty Authorization header', { authorization: '' }],
    ['a Basic credential', { authorization: 'Basic eHl6' }],
    ['Bearer without a token', { authorization: 'Bearer' }],
    ['Bearer with two tokens', { authorization: 'Bearer ty_a ty_b' }],
    ['a token of an unknown kind', { authorization: 'Bearer abcdef0123456789' }],
    ['an unknown ty_ key', { authorization: `Bearer ty_${randomBytes(32).toString('base64url')}` }],
  ])('refuses %s', async (_name, headers) => {
    expectForbidden(await call(STATUS, { headers }));
  });

  it('refuses a revoked key', async () => {
    expectForbidden(await call(STATUS, { token: keys['revoked']! }));
  });

  it('refuses a key of another owner', async () => {
    expectForbidden(await call(STATUS, { token: keys['otherOwner']! }));
  });

  it('refuses a key limited to another repository of the same owner', async () => {
    expectForbidden(await call(STATUS, { token: keys['gadgetsOnly']! }));
  });

  it('refuses a read key on PUT and DELETE pause, and leaves the queue unpaused', async () => {
    const token = keys['ownerRead']!;
    expectForbidden(await call(PAUSE, { method: 'PUT', token, body: { reason: 'nope' } }));
    expectForbidden(await call(PAUSE, { method: 'DELETE', token }));
    expect((await call(PAUSE, { token })).status).toBe(404);
  });

  it('refuses before revealing whether a repository exists: 403 for another owner, 404 only once authorized', async () => {
    expectForbidden(
      await call('/v1/repos/acme/no-such-repo/merge-queue/status', { token: keys['otherOwner']! }),
    );
    expectForbidden(
      await call('/v1/repos/acme/no-such-repo/merge-queue/status', { token: keys['gadgetsOnly']! }),
    );
    expectForbidden(await call('/v1/repos/acme/no-such-repo/merge-queue/status', {}));
    const known = await call('/v1/repos/acme/no-such-repo/merge-queue/status', {
      token: keys['ownerAdmin']!,
    });
    expect(known.status).toBe(404);
    expect(known.body).toEqual({ detail: expect.any(String) });
  });
});

describe('application keys that may act', () => {
  it('lets an admin key scoped to one repository read and pause there', async () => {
    const token = keys['widgetsOnly']!;
    expect((await call(STATUS, { token })).status).toBe(200);
    expect((await call(PAUSE, { method: 'PUT', token, body: { reason: 'scoped' } })).status).toBe(200);
    expect((await call(PAUSE, { method: 'DELETE', token })).status).toBe(204);
  });

  it('matches owner and repository case-insensitively', async () => {
    expect((await call(STATUS, { token: keys['upperOwner']! })).status).toBe(200);
    expect(
      (await call('/v1/repos/Acme/Widgets/merge-queue/status', { token: keys['ownerRead']! })).status,
    ).toBe(200);
    expect(
      (await call('/v1/repos/ACME/WIDGETS/merge-queue/status', { token: keys['widgetsOnly']! })).status,
    ).toBe(200);
  });

  it('accepts the scheme name in any case', async () => {
    const res = await call(STATUS, { headers: { authorization: `bearer ${keys['ownerRead']}` } });
    expect(res.status).toBe(200);
  });
});

describe('GitHub tokens', () => {
  it('gives read with pull permission: GET works, PUT pause is refused, and GitHub is asked once', async () => {
    const token = githubToken();
    const github = githubRepo(token).reply(200, permissions({ pull: true, triage: true }));
    expect((await call(STATUS, { token })).status).toBe(200);
    const put = await call(PAUSE, { method: 'PUT', token, body: { reason: 'x' } });
    expectForbidden(put);
    expect(put.body.detail).toMatch(/push/);
    expect(github.isDone()).toBe(true);
  });

  it.each([
    ['push', { push: true, pull: true }],
    ['maintain', { maintain: true, pull: true }],
    ['admin', { admin: true, push: true, pull: true }],
  ] as const)('gives write with %s permission: a github_pat_ token can pause and unpause', async (_n, p) => {
    const token = githubToken('github_pat_');
    const github = githubRepo(token)
      .reply(200, permissions(p))
      .get('/user')
      .once()
      .reply(200, { id: 9, login: 'maintainer' });
    expect((await call(PAUSE, { method: 'PUT', token, body: { reason: 'gh' } })).status).toBe(200);
    expect((await call(PAUSE, { method: 'DELETE', token })).status).toBe(204);
    expect(github.isDone()).toBe(true);
  });

  it('gives nothing when GitHub lists no permission', async () => {
    const token = githubToken();
    const github = githubRepo(token).reply(200, permissions({}));
    expectForbidden(await call(STATUS, { token }));
    expect(github.isDone()).toBe(true);
  });

  it.each([401, 403, 404])('refuses with 403 when GitHub answers %i', async (status) => {
    const token = githubToken();
    const github = githubRepo(token).reply(status, { message: 'Bad credentials' });
    expectForbidden(await call(STATUS, { token }));
    expect(github.isDone()).toBe(true);
  });

  it.each([500, 502])(
    'answers 503 with a detail when GitHub answers %i, and keeps serving',
    async (status) => {
      const token = githubToken();
      const github = githubRepo(token).reply(status, 'upstream trouble');
      const res = await call(STATUS, { token });
      expect(res.status).toBe(503);
      expect(typeof res.body.detail).toBe('string');
      expect(res.headers.get('x-request-id')).toBeTruthy();
      expect(res.headers.get('retry-after')).toBe('5');
      expect(github.isDone()).toBe(true);
      expect((await call(STATUS, { token: keys['ownerRead']! })).status).toBe(200);
    },
  );

  it('answers 503 when GitHub cannot be reached at all', async () => {
    const token = githubToken();
    const github = githubRepo(token).replyWithError('connection reset');
    expect((await call(STATUS, { token })).status).toBe(503);
    expect(github.isDone()).toBe(true);
  });

  it.each([
    ['an HTML page', '<html><body>Unicorn!</body></html>'],
    ['JSON null', 'null'],
  ])('answers 503, not 500, when GitHub answers 200 with %s', async (_name, body) => {
    const token = githubToken();
    const github = githubRepo(token).reply(200, body, { 'content-type': 'text/html' });
    const res = await call(STATUS, { token });
    expect(res.status).toBe(503);
    expect(github.isDone()).toBe(true);
  });

  it('puts the request id in the body of a 503, as every 5xx must', async () => {
    const token = githubToken();
    githubRepo(token).reply(502);
    const res = await call(STATUS, { token });
    expect(res.status).toBe(503);
    expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
  });

  it('does not remember a failure: after a 503 the next request asks GitHub again', async () => {
    const token = githubToken();
    const github = githubRepo(token)
      .reply(500)
      .get('/repos/acme/widgets')
      .once()
      .reply(200, permissions({ pull: true }));
    expect((await call(STATUS, { token })).status).toBe(503);
    expect((await call(STATUS, { token })).status).toBe(200);
    expect(github.isDone()).toBe(true);
  });

  it('caches the answer: a second request within the TTL does not call GitHub again', async () => {
    const token = githubToken();
    const github = githubRepo(token).reply(200, permissions({ pull: true }));
    expect((await call(STATUS, { token })).status).toBe(200);
    expect(github.isDone()).toBe(true);
    expect((await call(STATUS, { token })).status).toBe(200);
    expect((await call(`${PAUSE}`, { token })).status).toBe(404);
  });

  it('asks again for another repository: the cache is per repository', async () => {
    const token = githubToken();
    const github = githubRepo(token)
      .reply(200, permissions({ pull: true }))
      .get('/repos/acme/gadgets')
      .once()
      .reply(404, { message: 'Not Found' });
    expect((await call(STATUS, { token })).status).toBe(200);
    expectForbidden(await call('/v1/repos/acme/gadgets/merge-queue/status', { token }));
    expect(github.isDone()).toBe(true);
  });

  it('never puts a token in a response body or header', () => {
    expect(answers.length).toBeGreaterThan(20);
    const secrets = [...tokensUsed, ...Object.values(keys)];
    for (const res of answers) {
      const text = `${JSON.stringify(res.body) ?? ''}\n${[...res.headers].map(([k, v]) => `${k}: ${v}`).join('\n')}`;
      for (const secret of secrets) expect(text).not.toContain(secret);
    }
  });

  it('never writes a token to the server log, even at trace level and on failures', async () => {
    const lines: string[] = [];
    const app = await buildServer({
      store: api.store,
      github: new GithubPermissions({ apiBaseUrl: FAKE_GITHUB_API }),
      logger: { level: 'trace', stream: { write: (line: string) => lines.push(line) } },
    });
    const [pull, broken, down] = [githubToken(), githubToken(), githubToken()];
    githubRepo(pull).reply(200, permissions({ pull: true }));
    githubRepo(broken).reply(200, '<html>', { 'content-type': 'text/html' });
    githubRepo(down).reply(502);
    try {
      const inject = (token: string, method: 'GET' | 'PUT' = 'GET') =>
        app.inject({
          method,
          url: method === 'GET' ? STATUS : PAUSE,
          headers: { authorization: `Bearer ${token}` },
        });
      for (const token of [pull, broken, down, keys['ownerRead']!, keys['revoked']!]) await inject(token);
      await inject(pull, 'PUT');
    } finally {
      await app.close();
    }
    expect(lines.length).toBeGreaterThan(5);
    const log = lines.join('');
    for (const secret of [pull, broken, down, keys['ownerRead']!, keys['revoked']!])
      expect(log).not.toContain(secret);
  });
});
