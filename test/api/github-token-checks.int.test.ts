import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { GithubPermissions } from '../../app/api/auth/github-permissions.ts';
import { HttpError } from '../../app/api/errors.ts';

/*
 * Token checks against a stand-in for GitHub on loopback: made-up tokens each cost a request
 * to GitHub, so those requests are bounded in number, shared, remembered and cut short.
 */

interface FakeGithub {
  url: string;
  calls: number;
  maxConcurrent: number;
  /** Answers are held until release() when set. */
  hold: boolean;
  release(): void;
  close(): Promise<void>;
}

async function startFakeGithub(
  answer: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<FakeGithub> {
  let concurrent = 0;
  let held: (() => void)[] = [];
  const fake: FakeGithub = {
    url: '',
    calls: 0,
    maxConcurrent: 0,
    hold: false,
    release() {
      const waiting = held;
      held = [];
      for (const go of waiting) go();
    },
    close: () =>
      new Promise((resolve) => {
        fake.release();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer((req, res) => {
    fake.calls++;
    concurrent++;
    fake.maxConcurrent = Math.max(fake.maxConcurrent, concurrent);
    const go = () => {
      concurrent--;
      answer(req, res);
    };
    if (fake.hold) held.push(go);
    else go();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}

const token = () => `ghp_${randomBytes(18).toString('hex')}`;
const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

let fake: FakeGithub | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

describe('GitHub token checks', () => {
  it('at most `concurrency` requests to GitHub at once, however many checks arrive', async () => {
    fake = await startFakeGithub((_req, res) => json(res, 401, { message: 'Bad credentials' }));
    fake.hold = true;
    const github = new GithubPermissions({ apiBaseUrl: fake.url, concurrency: 4 });
    const checks = Array.from({ length: 40 }, () => github.accessTo(token(), 'acme', 'widgets'));
    await new Promise((r) => setTimeout(r, 200));
    expect(fake.calls).toBe(4);
    fake.hold = false;
    while (fake.calls < 40) {
      fake.release();
      await new Promise((r) => setTimeout(r, 10));
    }
    fake.release();
    expect(await Promise.all(checks)).toEqual(Array(40).fill('none'));
    expect(fake.maxConcurrent).toBeLessThanOrEqual(4);
  });

  it('past `maxWaiting` checks waiting, a 503 at once instead of a longer queue', async () => {
    fake = await startFakeGithub((_req, res) => json(res, 401, {}));
    fake.hold = true;
    const github = new GithubPermissions({ apiBaseUrl: fake.url, concurrency: 2, maxWaiting: 5 });
    const checks = Array.from({ length: 12 }, () =>
      github.accessTo(token(), 'acme', 'widgets').then(
        (a) => a,
        (e: unknown) => e,
      ),
    );
    const started = performance.now();
    const refused = (await Promise.race([
      Promise.all(checks.slice(7)),
      new Promise((r) => setTimeout(r, 1_000)),
    ])) as unknown[];
    expect(performance.now() - started).toBeLessThan(500);
    for (const e of refused)
      expect(e).toMatchObject({ statusCode: 503, detail: expect.stringMatching(/too many token checks/) });
    fake.hold = false;
    fake.release();
    for (const a of await Promise.all(checks.slice(0, 7))) expect(a).toBe('none');
  });

  it('many checks of one token are one request; a refusal is remembered', async () => {
    fake = await startFakeGithub((_req, res) => json(res, 404, { message: 'Not Found' }));
    const github = new GithubPermissions({ apiBaseUrl: fake.url });
    const t = token();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => github.accessTo(t, 'acme', 'widgets')),
    );
    expect(answers).toEqual(Array(20).fill('none'));
    expect(await github.accessTo(t, 'ACME', 'Widgets')).toBe('none');
    expect(fake.calls).toBe(1);
  });

  it('a refusal is remembered for refusalTtlMs only; a grant for ttlMs', async () => {
    let granted = false;
    fake = await startFakeGithub((_req, res) =>
      granted ? json(res, 200, { permissions: { pull: true } }) : json(res, 404, {}),
    );
    let now = 1e6;
    const github = new GithubPermissions({
      apiBaseUrl: fake.url,
      refusalTtlMs: 1_000,
      ttlMs: 60_000,
      now: () => now,
    });
    const t = token();
    expect(await github.accessTo(t, 'acme', 'widgets')).toBe('none');
    granted = true;
    now = 1e6 + 999;
    expect(await github.accessTo(t, 'acme', 'widgets')).toBe('none');
    now = 1e6 + 1_001;
    expect(await github.accessTo(t, 'acme', 'widgets')).toBe('read');
    now = 1e6 + 50_000;
    expect(await github.accessTo(t, 'acme', 'widgets')).toBe('read');
    expect(fake.calls).toBe(2);
  });

  it('once GitHub could not be reached, checks answer 503 at once for unreachableForMs, then ask again', async () => {
    fake = await startFakeGithub(() => {}); // never answers
    let now = 0;
    const github = new GithubPermissions({
      apiBaseUrl: fake.url,
      timeoutMs: 200,
      unreachableForMs: 5_000,
      now: () => now,
    });
    const first = performance.now();
    await expect(github.accessTo(token(), 'acme', 'widgets')).rejects.toBeInstanceOf(HttpError);
    expect(performance.now() - first).toBeGreaterThanOrEqual(150);
    const calls = fake.calls;
    const fast = performance.now();
    const refusals = await Promise.all(
      Array.from({ length: 50 }, () => github.accessTo(token(), 'acme', 'widgets').catch((e: unknown) => e)),
    );
    // Without the window, the 50 checks would each wait 200 ms for GitHub, 8 at a time: 1.4 s.
    expect(performance.now() - fast).toBeLessThan(1_000);
    for (const e of refusals) expect(e).toMatchObject({ statusCode: 503 });
    expect(fake.calls).toBe(calls);
    now = 5_001;
    await expect(github.accessTo(token(), 'acme', 'widgets')).rejects.toBeInstanceOf(HttpError);
    expect(fake.calls).toBe(calls + 1);
  });
});
