import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GithubPermissions } from '../../app/api/auth/github-permissions.ts';
import { isValidHost } from '../../app/api/request-origin.ts';
import { buildServer } from '../../app/api/server.ts';
import { ApiHarness, FAKE_GITHUB_API } from '../support/api-harness.ts';
import { parseLinkHeader } from '../support/link-header.ts';
import { makeEvents, seedEvents } from '../support/seed-events.ts';

/*
 * What reaches the server as raw bytes: requests that fetch cannot make (no Host, a Host that
 * does not parse, oversized headers, a broken request line). Every answer is a contract error
 * body with an X-Request-Id, or the success the request asked for; never a 500.
 */

let api: ApiHarness;
let token: string;
const LOGS = '/v1/repos/acme/widgets/logs?per_page=1';

beforeAll(async () => {
  api = await ApiHarness.start();
  const repo = await api.repository('acme/widgets');
  await seedEvents(api.store, repo, makeEvents(3, 1));
  token = await api.key({ owner: 'acme', role: 'admin' });
}, 60_000);
afterAll(async () => {
  await api?.stop();
});

interface RawResponse {
  status: number;
  headers: Map<string, string>;
  body: string;
}

/** Sends `request` as is on a new connection and reads the answer until the server closes it. */
function send(request: string, port = Number(new URL(api.baseUrl).port)): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer in 10 s')));
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = new Map<string, string>();
      for (const line of lines) {
        const at = line.indexOf(':');
        headers.set(line.slice(0, at).toLowerCase(), line.slice(at + 1).trim());
      }
      let body = rest.join('\r\n\r\n');
      if (headers.get('transfer-encoding') === 'chunked') body = unchunk(body);
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
    });
    socket.write(request);
  });
}

function unchunk(text: string): string {
  let out = '';
  let rest = text;
  for (;;) {
    const eol = rest.indexOf('\r\n');
    const size = Number.parseInt(rest.slice(0, eol), 16);
    if (!(size > 0)) return out;
    out += rest.slice(eol + 2, eol + 2 + size);
    rest = rest.slice(eol + 2 + size + 2);
  }
}

const get = (path: string, headers: string[], version = '1.1') =>
  [
    `GET ${path} HTTP/${version}`,
    ...headers,
    `Authorization: Bearer ${token}`,
    'Connection: close',
    '',
    '',
  ].join('\r\n');

function expectContractError(res: RawResponse, status: number) {
  expect(res.status).toBe(status);
  expect(res.headers.get('x-request-id')).toMatch(/^[\w\-.:]{1,128}$/);
  expect(JSON.parse(res.body)).toHaveProperty('detail');
}

describe('the Host header', () => {
  it.each([
    ['empty', ['Host:']],
    ['with a space', ['Host: a b']],
    ['an unclosed IPv6 literal', ['Host: [::1']],
    ['a port past 65535', ['Host: 127.0.0.1:99999']],
    ['a path in it', ['Host: a/b']],
  ])('%s: /logs answers 200 with links on the address it was reached at', async (_name, headers) => {
    const res = await send(get(LOGS, headers));
    expect(res.status, res.body).toBe(200);
    const links = parseLinkHeader(res.headers.get('link') ?? null);
    expect(links.next).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1\/repos\/acme\/widgets\/logs\?/);
  });
  it('absent on HTTP/1.0: /logs answers 200', async () => {
    const res = await send(get(LOGS, [], '1.0'));
    expect(res.status, res.body).toBe(200);
    expect(parseLinkHeader(res.headers.get('link') ?? null).next).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
  });
  it('a valid Host is used for the links; a request target starting with // does not change it', async () => {
    const res = await send(
      get('//evil.example/v1/repos/acme/widgets/logs?per_page=1', ['Host: api.example.com:8443']),
    );
    if (res.status === 200) {
      for (const href of Object.values(parseLinkHeader(res.headers.get('link') ?? null))) {
        expect(new URL(href).host).toBe('api.example.com:8443');
      }
    } else expectContractError(res, 404);
    const plain = await send(get(LOGS, ['Host: api.example.com:8443']));
    expect(parseLinkHeader(plain.headers.get('link') ?? null).next).toMatch(
      /^http:\/\/api\.example\.com:8443\/v1\/repos\/acme\/widgets\/logs\?/,
    );
  });
  it('isValidHost accepts names, addresses and ports, and nothing else', () => {
    for (const ok of [
      'a',
      'api.example.com',
      'api.example.com.',
      'x:1',
      '127.0.0.1:3000',
      '[::1]',
      '[::1]:80',
    ]) {
      expect(isValidHost(ok), ok).toBe(true);
    }
    for (const bad of [
      '',
      ' ',
      'a b',
      '[::1',
      '[zz]',
      'a:99999',
      'a:',
      'a/b',
      '-a',
      'a..b',
      'a@b',
      `${'a'.repeat(64)}.b`,
    ]) {
      expect(isValidHost(bad), bad).toBe(false);
    }
  });
});

describe('links behind a proxy', () => {
  it('TRAINYARD_PUBLIC_URL wins over the Host; X-Forwarded-* are believed only from a trusted proxy', async () => {
    const servers = await Promise.all(
      [{ publicUrl: 'https://queue.example.org/base' }, { trustProxy: ['127.0.0.1'] }, {}].map(
        async (options) => {
          const app = await buildServer({
            store: api.store,
            github: new GithubPermissions({ apiBaseUrl: FAKE_GITHUB_API }),
            ...options,
          });
          await app.listen({ port: 0, host: '127.0.0.1' });
          return app;
        },
      ),
    );
    try {
      const next = async (index: number, headers: string[]) => {
        const port = ((servers[index] as (typeof servers)[number]).server.address() as { port: number }).port;
        const res = await send(get(LOGS, headers), port);
        expect(res.status, res.body).toBe(200);
        return parseLinkHeader(res.headers.get('link') ?? null).next ?? '';
      };
      const forwarded = [
        'Host: inside:3000',
        'X-Forwarded-Host: queue.example.net',
        'X-Forwarded-Proto: https',
      ];
      expect(await next(0, forwarded)).toMatch(/^https:\/\/queue\.example\.org\/v1\/repos\//);
      expect(await next(1, forwarded)).toMatch(/^https:\/\/queue\.example\.net\/v1\/repos\//);
      expect(await next(2, forwarded)).toMatch(/^http:\/\/inside:3000\/v1\/repos\//);
    } finally {
      await Promise.all(servers.map((s) => s.close()));
    }
  });
});

describe("answers of Node's HTTP parser", () => {
  it('headers too large: 431 with detail and X-Request-Id', async () => {
    expectContractError(await send(get(LOGS, ['Host: x', `X-Big: ${'b'.repeat(17 * 1024)}`])), 431);
  });
  it('a broken request line: 400 with detail and X-Request-Id', async () => {
    expectContractError(await send('GARBAGE\r\n\r\n'), 400);
    expectContractError(await send(`GET /v1/x HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n`), 400);
  });
  it('an Expect header other than 100-continue: 417 with detail and X-Request-Id', async () => {
    expectContractError(await send(get(LOGS, ['Host: x', 'Expect: something'])), 417);
  });
  it('the server answers normally afterwards', async () => {
    expect((await send(get(LOGS, ['Host: x']))).status).toBe(200);
  });
});

describe('bodies', () => {
  it('DELETE /merge-queue/pause with Content-Type: application/json and no body is a plain DELETE', async () => {
    const base = '/v1/repos/acme/widgets/merge-queue/pause';
    const res = await api.request(base, {
      method: 'DELETE',
      token,
      rawBody: '',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(404); // not paused: the DELETE itself was understood
    expect(res.body.detail).toMatch(/not paused/i);
  });
});

describe('slow senders', () => {
  it('a client that does not finish its headers in time gets a 408 with detail and X-Request-Id, and is disconnected', async () => {
    const app = await buildServer({
      store: api.store,
      github: new GithubPermissions({ apiBaseUrl: FAKE_GITHUB_API }),
      timeouts: { requestMs: 600, headersMs: 300, checkEveryMs: 100 },
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const port = (app.server.address() as { port: number }).port;
      const started = performance.now();
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1');
        const chunks: Buffer[] = [];
        socket.on('data', (c) => chunks.push(c));
        socket.on('error', reject);
        socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
        socket.write('GET /v1/repos/acme/widgets/logs HTTP/1.1\r\nHost: x\r\nX-Slow: '); // never ends
      });
      expect(performance.now() - started).toBeLessThan(3_000);
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(answer).toMatch(/\r\nX-Request-Id: [\w-]+\r\n/i);
      expect(JSON.parse(answer.split('\r\n\r\n')[1] ?? '')).toEqual({ detail: expect.any(String) });
    } finally {
      await app.close();
    }
  });
});

describe('requests Node would refuse without a body', () => {
  it('HTTP/1.1 without a Host header: 400 with detail and X-Request-Id', async () => {
    expectContractError(await send(get(LOGS, [])), 400);
  });
  it('CONNECT: 405 with detail and X-Request-Id', async () => {
    expectContractError(await send('CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n'), 405);
  });
});
