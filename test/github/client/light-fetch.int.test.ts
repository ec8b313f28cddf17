import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { lightFetch } from '../../../app/github/client/light-fetch.ts';
import {
  createTokenOctokit,
  productionRequestPolicy,
  type RequestPolicy,
} from '../../../app/github/client/octokit.ts';
import { createRepositoryClient } from '../../../app/github/client/repository-client.ts';

/**
 * The production transport (undici's request under octokit, app/github/client/light-fetch.ts) against a
 * real HTTP server on loopback, scripted per test: what the nock tests check on the global fetch,
 * plus what only a real server shows (redirects, headers as sent, connections reused).
 */
type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;

let server: Server;
let baseUrl: string;
let script: Handler[] = [];
const seen: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[] = [];
const sockets = new Set<unknown>();

beforeAll(async () => {
  server = createServer((req, res) => {
    sockets.add(req.socket);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const handler = script.shift();
      if (handler === undefined) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ message: `unscripted ${req.method} ${req.url}` }));
        return;
      }
      handler(req, body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  script = [];
  seen.length = 0;
});

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Handler =>
  (_req, _body, res) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
    res.end(JSON.stringify(body));
  };

const repository = { id: 4242, default_branch: 'main', name: 'service', owner: { login: 'acme' } };
const retrying: RequestPolicy = { ...productionRequestPolicy, retryBaseDelayMs: 0, throttle: false };

function client(policy: RequestPolicy = retrying) {
  const octokit = createTokenOctokit({ token: 'ghs_test', baseUrl, policy });
  return { octokit, repo: createRepositoryClient(octokit, { owner: 'acme', repo: 'service' }) };
}

describe('octokit over lightFetch (production transport)', () => {
  it('sends the request octokit builds and reads the JSON answer', async () => {
    script.push(json(200, repository, { 'x-ratelimit-remaining': '4999' }));
    await expect(client().repo.getRepository()).resolves.toEqual({ id: 4242, defaultBranch: 'main' });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'GET', url: '/repos/acme/service' });
    expect(seen[0]!.headers.authorization).toBe('token ghs_test');
    expect(seen[0]!.headers.accept).toBe('application/vnd.github.v3+json');
    expect(seen[0]!.headers['user-agent']).toMatch(/octokit/);
  });

  it('sends a JSON body and gives the response headers as fetch would (lower case, joined)', async () => {
    script.push((_req, _body, res) => {
      res.setHeader('content-type', 'application/json');
      res.setHeader('X-Custom', ['a', 'b']);
      res.writeHead(201);
      res.end(JSON.stringify({ ok: true }));
    });
    const { octokit } = client();
    const answer = await octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
      owner: 'acme',
      repo: 'service',
      issue_number: 7,
      body: 'queued ✓ "quoted"',
    });
    expect(answer.status).toBe(201);
    expect(answer.data).toEqual({ ok: true });
    expect(answer.headers['x-custom']).toBe('a, b');
    expect(seen[0]!.method).toBe('POST');
    expect(JSON.parse(seen[0]!.body)).toEqual({ body: 'queued ✓ "quoted"' });
    expect(seen[0]!.headers['content-type']).toMatch(/^application\/json/);
  });

  it('retries a 502 and answers the 200 after it', async () => {
    script.push(json(502, { message: 'Server Error' }), json(200, repository));
    await expect(client().repo.getRepository()).resolves.toEqual({ id: 4242, defaultBranch: 'main' });
    expect(seen).toHaveLength(2);
  });

  it("turns a 4xx into a permanent error carrying GitHub's message, without retrying", async () => {
    script.push(json(422, { message: 'Validation Failed', errors: [{ code: 'custom', message: 'no' }] }));
    const error = await client()
      .octokit.request('POST /repos/{owner}/{repo}/merges', {
        owner: 'acme',
        repo: 'service',
        base: 'a',
        head: 'b',
      })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 422 });
    expect(String((error as Error).message)).toContain('Validation Failed');
    expect(seen).toHaveLength(1);
  });

  it("reads a secondary rate limit's retry-after, waits it out and retries (throttling)", async () => {
    const throttled: RequestPolicy = { ...productionRequestPolicy, retries: 0, rateLimitDelayMsPerSecond: 1 };
    script.push(
      json(403, { message: 'You have exceeded a secondary rate limit.' }, { 'retry-after': '2' }),
      json(200, repository),
    );
    await expect(client(throttled).repo.getRepository()).resolves.toEqual({
      id: 4242,
      defaultBranch: 'main',
    });
    expect(seen).toHaveLength(2);
  });

  it('follows a redirect (a renamed repository answers 301)', async () => {
    script.push(
      (_req, _body, res) => {
        res.writeHead(301, { location: `${baseUrl}/repositories/4242` });
        res.end();
      },
      json(200, repository),
    );
    await expect(client().repo.getRepository()).resolves.toEqual({ id: 4242, defaultBranch: 'main' });
    expect(seen.map((s) => s.url)).toEqual(['/repos/acme/service', '/repositories/4242']);
  });

  it('answers 204 with an empty body and keeps the connection usable', async () => {
    for (let i = 0; i < 5; i++) {
      script.push((_req, _body, res) => {
        res.writeHead(204);
        res.end();
      });
    }
    const { octokit } = client();
    for (let i = 0; i < 5; i++) {
      const answer = await octokit.request('DELETE /repos/{owner}/{repo}/git/refs/{ref}', {
        owner: 'acme',
        repo: 'service',
        ref: `heads/x${i}`,
      });
      expect(answer).toMatchObject({ status: 204, data: '' });
    }
    expect(seen).toHaveLength(5);
  });

  it('reads a text answer as text and bytes as an ArrayBuffer', async () => {
    script.push((_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('plain ✓');
    });
    script.push((_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(Buffer.from([0, 1, 2, 255]));
    });
    const { octokit } = client();
    // GitHub operations that answer text (a raw README) and bytes (an archive).
    const readme = await octokit.request('GET /repos/{owner}/{repo}/readme', {
      owner: 'acme',
      repo: 'service',
    });
    expect(readme.data).toBe('plain ✓');
    const archive = await octokit.request('GET /repos/{owner}/{repo}/tarball/{ref}', {
      owner: 'acme',
      repo: 'service',
      ref: 'main',
    });
    const bytes = archive.data as ArrayBuffer;
    expect([...new Uint8Array(bytes)]).toEqual([0, 1, 2, 255]);
  });

  it('reuses connections: a hundred requests do not open a hundred sockets', async () => {
    sockets.clear();
    for (let i = 0; i < 100; i++) script.push(json(200, repository));
    const { repo } = client();
    for (let i = 0; i < 10; i++) await Promise.all(Array.from({ length: 10 }, () => repo.getRepository()));
    expect(seen).toHaveLength(100);
    // Without keep-alive, 100. (The global fetch opens about 20 here too: now and then undici
    // takes a fresh socket while the server has not yet marked the previous one reusable.)
    expect(sockets.size).toBeLessThan(40);
  });

  it('fails a request to a closed port as a transient error', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const octokit = createTokenOctokit({
      token: 't',
      baseUrl: `http://127.0.0.1:${port}`,
      policy: { ...retrying, retries: 0 },
    });
    const error = await createRepositoryClient(octokit, { owner: 'acme', repo: 'service' })
      .getRepository()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ transient: true });
  });

  it('stops a request when its signal aborts', async () => {
    script.push(() => {}); // never answers
    const controller = new AbortController();
    const pending = lightFetch(`${baseUrl}/slow`, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });
});
