import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiHarness } from '../support/api-harness.ts';

let api: ApiHarness;
let admin: string;
let reader: string;
const REPO = '/v1/repos/acme/widgets';

/** The documented error bodies (docs/api.md, "Errors"), written here independently of the server. */
const messageError = z.strictObject({ detail: z.string().min(1) });
const validationError = z.strictObject({
  detail: z
    .array(
      z.strictObject({ loc: z.array(z.union([z.string(), z.number()])), msg: z.string(), type: z.string() }),
    )
    .min(1),
});
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const leaks = [/\bat .*\.[cm]?[jt]s:\d+/, /Error:/, /node_modules/];

interface RawAnswer {
  status: number;
  headers: Headers;
  text: string;
}

/** A request that bypasses the harness's OpenAPI check, for answers outside the document (unknown routes). */
async function raw(
  path: string,
  init: RequestInit & { token?: string | undefined } = {},
): Promise<RawAnswer> {
  const headers = new Headers(init.headers);
  if (init.token) headers.set('authorization', `Bearer ${init.token}`);
  const res = await fetch(`${api.baseUrl}${path}`, { ...init, headers });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** What every answer must satisfy: no 5xx, a request id, and a contract-shaped JSON body. */
function expectContractAnswer(res: RawAnswer, method = 'GET') {
  expect(res.status, res.text).toBeLessThan(500);
  expect(res.headers.get('x-request-id')).toBeTruthy();
  for (const leak of leaks) expect(res.text).not.toMatch(leak);
  if (method === 'HEAD' || res.status === 204) return expect(res.text).toBe('');
  const body = JSON.parse(res.text);
  if (res.status >= 400) {
    const shaped = messageError.safeParse(body).success || validationError.safeParse(body).success;
    expect(shaped, `${res.status} ${res.text}`).toBe(true);
    if (res.status === 403) expect(res.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
  } else {
    expect(typeof body).toBe('object');
  }
}

beforeAll(async () => {
  api = await ApiHarness.start();
  await api.repository('acme/widgets');
  admin = await api.key({ owner: 'acme', role: 'admin' });
  reader = await api.key({ owner: 'acme', role: 'read' });
});

afterAll(async () => {
  await api?.stop();
});

describe('X-Request-Id', () => {
  it.each([
    ['a 200', `${REPO}/merge-queue/status`, 200, true],
    ['a 403', `${REPO}/merge-queue/status`, 403, false],
    ['a 404 for an unknown repository', '/v1/repos/acme/nothing/merge-queue/status', 404, true],
    ['a 422', `${REPO}/logs?per_page=0`, 422, true],
    ['an unknown route', '/v1/nothing-here', 404, true],
    ['the OpenAPI document', '/v1/openapi.json', 200, false],
  ])('is on %s', async (_name, path, status, withToken) => {
    const res = await raw(path, { token: withToken ? reader : undefined });
    expect(res.status).toBe(status);
    expect(res.headers.get('x-request-id')).toMatch(uuid);
  });

  it.each(['abc-123', 'trace.42:span_7', 'A'.repeat(128)])('echoes a safe caller id %s', async (id) => {
    const res = await raw(`${REPO}/merge-queue/status`, { token: reader, headers: { 'x-request-id': id } });
    expect(res.headers.get('x-request-id')).toBe(id);
  });

  it.each([
    ['with spaces', 'has some spaces'],
    ['of 500 characters', 'b'.repeat(500)],
    ['with markup', '<script>alert(1)</script>'],
    ['with a CRLF-like escape', 'a%0d%0aSet-Cookie:x'],
  ])('replaces an unsafe caller id (%s) with one of its own', async (_name, id) => {
    const res = await raw(`${REPO}/merge-queue/status`, { token: reader, headers: { 'x-request-id': id } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toMatch(uuid);
  });
});

describe('unknown routes and invalid paths', () => {
  it.each([
    '/v1/nothing-here',
    '/nothing',
    `${REPO}/merge-queue`,
    `${REPO}/logs/extra`,
    '/v2/repos/acme/widgets/logs',
  ])('answers 404 with a detail for %s', async (path) => {
    const res = await raw(path, { token: admin });
    expect(res.status).toBe(404);
    expect(messageError.parse(JSON.parse(res.text)).detail).toBeTruthy();
    expectContractAnswer(res);
  });

  it('answers 404 for a method a route does not have', async () => {
    const res = await raw(`${REPO}/merge-queue/pause`, { method: 'POST', token: admin });
    expect(res.status).toBe(404);
    expectContractAnswer(res);
  });

  it.each([
    ['an owner of 41 characters', 'o'.repeat(41), 'widgets', 'owner'],
    ['an owner with an underscore', 'a_b', 'widgets', 'owner'],
    ['a repository with a space', 'acme', 'a b', 'repository'],
    ['a repository of 101 characters', 'acme', 'r'.repeat(101), 'repository'],
  ])(
    'answers 422 located in the path for %s, to a caller authorized for that owner',
    async (_name, owner, repository, field) => {
      const token = await api.key({ owner, role: 'read' });
      const res = await api.request(
        `/v1/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repository)}/merge-queue/status`,
        { token },
      );
      expect(res.status).toBe(422);
      expect(res.body.detail.map((d: { loc: unknown }) => d.loc)).toContainEqual(['path', field]);
    },
  );

  it.each([
    ['a broken percent-escape', `${REPO}%zz/logs`],
    ['a truncated UTF-8 escape', '/v1/repos/acme/widgets%E0%A4%A/logs'],
    ['a segment longer than the router accepts', `/v1/repos/acme/${'w'.repeat(600)}/logs`],
  ])('answers a contract 422, with a request id, for %s in the path', async (_name, path) => {
    const res = await raw(path, { token: reader });
    expect(res.status).toBe(422);
    expect(validationError.safeParse(JSON.parse(res.text)).success).toBe(true);
    expectContractAnswer(res);
  });

  it('refuses an oversized body with a status the OpenAPI document lists', async () => {
    const res = await api.request(`${REPO}/merge-queue/pause`, {
      method: 'PUT',
      token: admin,
      body: { reason: 'x'.repeat(80 * 1024) },
    });
    // The harness throws when the status is not in the document; 422 or a documented 413 both do.
    expect([413, 422]).toContain(res.status);
    expect(res.body.detail[0].loc).toEqual(['body']);
  });
});

describe('no faults on bad input', () => {
  const runs = (n: number) => ({ numRuns: Math.round((n * Number(process.env.FUZZ_RUNS ?? 150)) / 150) });
  /** Values that have broken servers before: NUL, lone surrogates, huge numbers, prototype keys. */
  const nasty = fc.constantFrom(
    ...' |a\u0000b|\u0000|\ud800|x\udfffy|__proto__|😀|'.split('|'),
    '9'.repeat(30),
  );
  const text = fc.oneof(
    { weight: 2, arbitrary: nasty },
    { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  );
  const segment = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom('acme', 'widgets', 'Acme', 'WIDGETS') },
    { weight: 2, arbitrary: fc.constantFrom('a_b', 'a b', 'x.y', '-', '%', 'o'.repeat(41), 'r'.repeat(101)) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 12 }) },
  );
  const route = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom('logs', 'merge-queue/pause', 'merge-queue/status') },
    { weight: 1, arbitrary: fc.constantFrom('', 'merge-queue', 'stats/queue_size', 'logs/1') },
    { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 10 }) },
  );
  const queryKey = fc.oneof(
    fc.constantFrom('per_page', 'pull_request', 'base_ref', 'event_type', 'received_from', 'received_to'),
    fc.constantFrom('cursor', 'branch', '__proto__', 'constructor', 'per_page[]', 'event_type[0]'),
    fc.string({ maxLength: 8 }),
  );
  const queryValue = fc.oneof(
    fc.constantFrom(...'0 1 -1 100 101 2147483647 1e3 NaN null eyJ2IjoxfQ'.split(' '), 'a'.repeat(1001)),
    fc.constantFrom(
      ...'2026-11-01 2026-11-01T10:00:00Z 2026-02-30 0000-01-01T00:00:00Z 2026-11-01T10:00'.split(' '),
    ),
    fc.constantFrom('queue.pause.create', 'action.queue.enter', 'action.vcs_actions', 'nope'),
    fc.integer().map(String),
    text,
  );
  /** Mostly valid values, so that requests get past validation to the database. */
  const mostly = (valid: fc.Arbitrary<string>) => fc.oneof({ weight: 3, arbitrary: valid }, queryValue);
  const knownQuery = fc.record(
    {
      per_page: mostly(fc.integer({ min: 1, max: 100 }).map(String)),
      pull_request: mostly(fc.integer({ min: 1, max: 50 }).map(String)),
      event_type: mostly(fc.constantFrom('queue.pause.create', 'action.queue.enter')),
      base_ref: fc.oneof(fc.constantFrom('main', 'a\u0000b'), text),
      branch: text,
    },
    { requiredKeys: [] },
  );
  const query = fc.array(fc.tuple(queryKey, queryValue), { maxLength: 6 });
  const jsonBody = fc.oneof(
    fc.record(
      { reason: fc.oneof(text, fc.string({ maxLength: 300 }), fc.jsonValue()) },
      { requiredKeys: [] },
    ),
    fc.record({ reason: text, extra: fc.jsonValue() }),
    fc.jsonValue(),
  );
  const body = fc.oneof(
    jsonBody.map((v) => ({ type: 'application/json', text: JSON.stringify(v) ?? 'null' })),
    fc.string({ maxLength: 60 }).map((t) => ({ type: 'application/json', text: t })),
    fc.tuple(
      fc.constantFrom('text/plain', 'application/xml', 'application/x-www-form-urlencoded'),
      fc.string(),
    ),
  );
  const encodePath = (p: string) => p.split('/').map(encodeURIComponent).join('/');
  const withQuery = (path: string, q: [string, string][]) => {
    const qs = new URLSearchParams(q).toString();
    return qs ? `${path}?${qs}` : path;
  };

  it('never answers 5xx, and always a contract error or a success, to random requests on any route', async () => {
    const tokens: Record<string, string | undefined> = { admin, reader, forged: 'ty_forged' };
    const request = fc.record({
      method: fc.constantFrom('GET', 'GET', 'HEAD', 'PUT', 'PUT', 'DELETE', 'POST', 'PATCH', 'OPTIONS'),
      owner: segment,
      repository: segment,
      route,
      query,
      body: fc.option(body),
      token: fc.constantFrom('admin', 'admin', 'admin', 'reader', 'none', 'forged'),
    });
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        // Encoded as a client would: broken escapes in the path have their own tests above.
        const path = withQuery(`/v1/repos/${encodePath(`${r.owner}/${r.repository}/${r.route}`)}`, r.query);
        const b = Array.isArray(r.body) ? { type: r.body[0], text: r.body[1] } : r.body;
        const sendsBody = b !== null && r.method !== 'GET' && r.method !== 'HEAD';
        const res = await raw(path, {
          method: r.method,
          token: tokens[r.token],
          ...(sendsBody ? { body: b.text, headers: { 'content-type': b.type } } : {}),
        });
        expectContractAnswer(res, r.method);
      }),
      runs(60),
    );
  });

  it('answers 200 or 422, never 5xx, to random PUT pause bodies from an admin', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof({ weight: 3, arbitrary: fc.record({ reason: text }) }, jsonBody),
        async (value) => {
          const res = await raw(`${REPO}/merge-queue/pause`, {
            method: 'PUT',
            token: admin,
            body: JSON.stringify(value) ?? 'null',
            headers: { 'content-type': 'application/json' },
          });
          expect([200, 422], res.text).toContain(res.status);
          expectContractAnswer(res, 'PUT');
        },
      ),
      runs(50),
    );
  });

  it('answers 200 or 422, never 5xx, to random log and status queries from a reader', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('logs', 'merge-queue/status'),
        knownQuery,
        fc.array(fc.tuple(fc.string({ maxLength: 8 }), queryValue), { maxLength: 2 }),
        async (path, known, unknown) => {
          const res = await raw(withQuery(`${REPO}/${path}`, [...Object.entries(known), ...unknown]), {
            token: reader,
          });
          expect([200, 422], res.text).toContain(res.status);
          expectContractAnswer(res);
        },
      ),
      runs(50),
    );
  });

  it.each([
    ['a NUL in base_ref', 'logs?base_ref=a%00b'],
    ['a NUL in branch', 'merge-queue/status?branch=a%00b'],
  ])('answers 200 or 422, never 5xx, to %s', async (_name, path) => {
    const res = await raw(`${REPO}/${path}`, { token: reader });
    expect([200, 422], res.text).toContain(res.status);
  });

  it('answers 422, not 500, to a tampered cursor whose id is out of the id range', async () => {
    await api.repository('acme/cursors');
    const base = '/v1/repos/acme/cursors';
    for (const reason of ['one', 'two']) {
      await api.request(`${base}/merge-queue/pause`, { method: 'PUT', token: admin, body: { reason } });
    }
    const first = await raw(`${base}/logs?per_page=1`, { token: reader });
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')?.[1];
    expect(next).toBeDefined();
    const cursor = new URL(next!).searchParams.get('cursor')!;
    const payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    for (const id of ['9999999999999999999', '9223372036854775808']) {
      const forged = Buffer.from(JSON.stringify({ ...payload, id })).toString('base64url');
      const res = await raw(`${base}/logs?per_page=1&cursor=${forged}`, { token: reader });
      expect(res.status, res.text).toBe(422);
      expect(validationError.parse(JSON.parse(res.text)).detail[0]!.loc).toEqual(['query', 'cursor']);
    }
  });

  it('shows no stack trace or internal error text in error answers', async () => {
    const put = (body: string, type: string) =>
      raw(`${REPO}/merge-queue/pause`, {
        method: 'PUT',
        token: admin,
        body,
        headers: { 'content-type': type },
      });
    const answers = await Promise.all([
      raw(`${REPO}/logs?cursor=${'A'.repeat(900)}`, { token: reader }),
      raw(`${REPO}/logs?received_from=2026-13-45`, { token: reader }),
      put('{"reason":', 'application/json'),
      put('x', 'x/y'),
      raw(`${REPO}/merge-queue/status?branch=`, { token: reader }),
      raw(`${REPO}/merge-queue/status`, { headers: { authorization: 'Bearer ghx_unknown' } }),
    ]);
    for (const res of answers) {
      expect(res.status).toBeGreaterThanOrEqual(400);
      expectContractAnswer(res);
    }
  });
});
