import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readSettings } from '../../app/settings.ts';
import { startSystem, type TrainyardSystem } from '../../app/start-system.ts';
import { openStore, type Store } from '../../app/store/database.ts';
import { listMigrations } from '../../app/store/migrate.ts';
import { GITHUB_API, useGithubNock } from '../support/nock/github-nock.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';
import { backend, openTestStore } from '../support/test-store.ts';
import { appPrivateKey, WEBHOOK_SECRET } from '../support/trainyard-tester.ts';

/*
 * Issue #19 item 2: /healthz, /readyz and /metrics on the real server (startSystem, as `npm
 * start` runs it with App credentials and GitHub answered by nock), over loopback HTTP.
 */

const github = useGithubNock();
const TOKEN = 'metrics-token-0123456789abcdef';
let dir: string;
let store: Store;
let storeClosed = false;
let system: TrainyardSystem | undefined;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'trainyard-ops-'));
  store = await openTestStore();
  storeClosed = false;
});
afterEach(async () => {
  await system?.stop();
  system = undefined;
  if (!storeClosed) await store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function start(env: Record<string, string> = {}, on: Store = store): Promise<TrainyardSystem> {
  github.scope().get('/api/v3/app').reply(200, { id: 4242, slug: 'shipit', name: 'Ship it' });
  const settings = readSettings({
    PORT: '0',
    HOST: '127.0.0.1',
    TRAINYARD_DATA_DIR: join(dir, 'db'),
    GITHUB_API_URL: GITHUB_API,
    APP_ID: '4242',
    PRIVATE_KEY: appPrivateKey(),
    WEBHOOK_SECRET,
    ...env,
  });
  system = await startSystem({ settings, store: on, logger: pino({ level: 'silent' }) });
  return system;
}

async function get(url: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { headers });
  const text = await response.text();
  const json = response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : null;
  return { status: response.status, headers: response.headers, text, json };
}

/** /readyz until it answers `status` (readiness reuses a database answer for a second). */
async function readyzUntil(address: string, status: number, notReady?: string) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const answer = await get(`${address}/readyz`);
    const named = notReady === undefined || (answer.json?.not_ready ?? []).includes(notReady);
    if ((answer.status === status && named) || Date.now() > deadline) return answer;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('/healthz and /readyz', () => {
  it('/healthz answers while the process runs; /readyz names the loops until they run, then is ready', async () => {
    const { address, app } = await start();
    const health = await get(`${address}/healthz`);
    expect(health.status).toBe(200);
    expect(health.json).toEqual({ status: 'ok' });

    const before = await get(`${address}/readyz`);
    expect(before.status).toBe(503);
    expect(before.json.status).toBe('not_ready');
    expect(before.json.not_ready).toEqual(['delivery_processor', 'outbox_worker', 'scheduler']);
    expect(before.json.checks.database).toEqual({ ok: true });
    expect(before.json.checks.migrations).toEqual({ ok: true });
    expect(before.json.checks.outbox_worker).toEqual({ ok: false, detail: 'not running' });

    app.start();
    const after = await get(`${address}/readyz`);
    expect(after.status).toBe(200);
    expect(after.json).toEqual({
      status: 'ready',
      checks: {
        database: { ok: true },
        migrations: { ok: true },
        delivery_processor: { ok: true },
        outbox_worker: { ok: true },
        scheduler: { ok: true },
      },
    });
    // Outside the v1 API: not in its OpenAPI document.
    const openapi = await get(`${address}/v1/openapi.json`);
    expect(Object.keys(openapi.json.paths).some((p) => /healthz|readyz|metrics/.test(p))).toBe(false);
  });

  it('a stopped outbox worker or delivery processor makes /readyz 503, naming it', async () => {
    const { address, app } = await start();
    app.start();
    expect((await get(`${address}/readyz`)).status).toBe(200);
    await app.worker.stop();
    const workerDown = await get(`${address}/readyz`);
    expect(workerDown.status).toBe(503);
    expect(workerDown.json.not_ready).toEqual(['outbox_worker']);
    await app.processor.stop();
    const both = await get(`${address}/readyz`);
    expect(both.json.not_ready).toEqual(['delivery_processor', 'outbox_worker']);
    // /healthz only says the process answers.
    expect((await get(`${address}/healthz`)).status).toBe(200);
  });

  it('a migration this code ships but the database lacks makes /readyz 503, naming the file', async () => {
    const { address, app } = await start();
    app.start();
    expect((await get(`${address}/readyz`)).status).toBe(200);
    const last = listMigrations().at(-1)!.name;
    await store.pool.query('DELETE FROM schema_migrations WHERE name = $1', [last]);
    const missing = await readyzUntil(address, 503);
    expect(missing.status).toBe(503);
    expect(missing.json.not_ready).toEqual(['migrations']);
    expect(missing.json.checks.migrations.detail).toBe(`not applied: ${last}`);
    await store.pool.query('INSERT INTO schema_migrations (name) VALUES ($1)', [last]);
    expect((await readyzUntil(address, 200)).status).toBe(200);
  });

  it('the database gone makes /readyz 503 naming it, and ready again once it is back', async () => {
    if (backend === 'postgres') {
      // PostgreSQL behind a TCP proxy on loopback: cutting it is the database going away.
      const proxied = await openProxiedStore();
      try {
        const { address, app } = await start({}, proxied.store);
        app.start();
        expect((await get(`${address}/readyz`)).status).toBe(200);
        await proxied.proxy.cut();
        const gone = await readyzUntil(address, 503);
        expect(gone.status).toBe(503);
        expect(gone.json.not_ready).toEqual(['database', 'migrations']);
        expect(gone.json.checks.database.detail).toMatch(/^unreachable: /);
        // The process still answers.
        expect((await get(`${address}/healthz`)).status).toBe(200);
        await proxied.proxy.resume();
        expect((await readyzUntil(address, 200)).status).toBe(200);
        await system?.stop();
        system = undefined;
      } finally {
        await proxied.close();
      }
    } else {
      // PGlite lives in the process: gone means closed under the running server.
      const { address, app } = await start();
      app.start();
      expect((await get(`${address}/readyz`)).status).toBe(200);
      await app.stop();
      await store.close();
      storeClosed = true;
      const gone = await readyzUntil(address, 503, 'database');
      expect(gone.status).toBe(503);
      expect(gone.json.not_ready).toContain('database');
      expect(gone.json.checks.database.detail).toMatch(/^unreachable: /);
      expect((await get(`${address}/healthz`)).status).toBe(200);
    }
  });
});

describe('who may read /metrics', () => {
  it('by default: on the API port, to this machine only (a forwarded client elsewhere is refused)', async () => {
    // A proxy on loopback is trusted, so X-Forwarded-For says who the client is.
    const { address } = await start({ TRAINYARD_TRUST_PROXY: '127.0.0.1' });
    const local = await get(`${address}/metrics`);
    expect(local.status).toBe(200);
    expect(local.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(local.text).toContain('trainyard_info{mode="production"} 1');

    const remote = await get(`${address}/metrics`, { 'x-forwarded-for': '203.0.113.9' });
    expect(remote.status).toBe(403);
    expect(remote.json.detail).toMatch(/TRAINYARD_METRICS_TOKEN.*TRAINYARD_METRICS_PORT/);
    expect(remote.text).not.toContain('trainyard_');
    // Probes are for everyone: a load balancer elsewhere must reach them.
    expect((await get(`${address}/healthz`, { 'x-forwarded-for': '203.0.113.9' })).status).toBe(200);
  });

  it('with TRAINYARD_METRICS_TOKEN: refused without the token or with another one', async () => {
    const { address } = await start({ TRAINYARD_METRICS_TOKEN: TOKEN });
    const none = await get(`${address}/metrics`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(none.json.detail).toMatch(/TRAINYARD_METRICS_TOKEN/);
    expect(none.text).not.toContain('trainyard_info');
    expect((await get(`${address}/metrics`, { authorization: `Bearer ${TOKEN}x` })).status).toBe(401);
    expect((await get(`${address}/metrics`, { authorization: TOKEN })).status).toBe(401);
    const ok = await get(`${address}/metrics`, { authorization: `Bearer ${TOKEN}` });
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('trainyard_info{mode="production"} 1');
  });

  it('with TRAINYARD_METRICS_PORT: not on the API port; on its own port, with the probes', async () => {
    const { address, metricsAddress } = await start({ TRAINYARD_METRICS_PORT: '0' });
    expect(metricsAddress).not.toBeNull();
    expect(metricsAddress).not.toBe(address);
    const onApi = await get(`${address}/metrics`);
    expect(onApi.status).toBe(404);
    expect(onApi.text).not.toContain('trainyard_');
    const onOwn = await get(`${metricsAddress}/metrics`);
    expect(onOwn.status).toBe(200);
    expect(onOwn.text).toContain('trainyard_info{mode="production"} 1');
    expect((await get(`${metricsAddress}/healthz`)).status).toBe(200);
    expect((await get(`${metricsAddress}/readyz`)).status).toBe(503); // loops not started
    // The API is not served there.
    expect((await get(`${metricsAddress}/v1/openapi.json`)).status).toBe(404);
  });

  it('a metrics port with a token asks for the token there too', async () => {
    const { metricsAddress } = await start({ TRAINYARD_METRICS_PORT: '0', TRAINYARD_METRICS_TOKEN: TOKEN });
    expect((await get(`${metricsAddress}/metrics`)).status).toBe(401);
    expect((await get(`${metricsAddress}/metrics`, { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
  });

  it('refuses a short token at start-up', () => {
    expect(() => readSettings({ TRAINYARD_METRICS_TOKEN: 'short' })).toThrow(
      /TRAINYARD_METRICS_TOKEN: at least 16/,
    );
  });
});

describe('API latency per route', () => {
  it('labels requests by their route template, never by the URL, and unmatched ones as such', async () => {
    const { address } = await start();
    // Without an API key: refused, the same way for each.
    const statuses = new Set<number>();
    for (const name of ['widgets', 'gadgets', 'x-123']) {
      statuses.add((await get(`${address}/v1/repos/acme/${name}/merge-queue/status`)).status);
    }
    expect(statuses.size).toBe(1);
    const [refused] = [...statuses];
    expect((await get(`${address}/no/such/path/42`)).status).toBe(404);
    const scrape = (await get(`${address}/metrics`)).text;
    expect(scrape).toContain(
      `trainyard_http_request_duration_seconds_count{method="GET",route="/v1/repos/:owner/:repository/merge-queue/status",status="${refused}"} 3`,
    );
    expect(scrape).toContain(
      'trainyard_http_request_duration_seconds_count{method="GET",route="unmatched",status="404"} 1',
    );
    expect(scrape).not.toMatch(/route="[^"]*(gadgets|x-123|no\/such)/);
  });
});

/** A store on PostgreSQL reached through a TCP proxy, in a schema of its own. */
async function openProxiedStore(): Promise<{ store: Store; proxy: TcpProxy; close(): Promise<void> }> {
  const url = new URL(process.env.DATABASE_URL!);
  const proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
  const schema = `test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url.toString() });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const proxied = new URL(url);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(proxy.port);
  const opened = await openStore({ databaseUrl: proxied.toString(), schema, maxConnections: 5 });
  return {
    store: opened,
    proxy,
    async close() {
      await opened.close();
      await proxy.close();
      const dropper = new pg.Client({ connectionString: url.toString() });
      await dropper.connect();
      await dropper.query(`DROP SCHEMA ${schema} CASCADE`);
      await dropper.end();
    },
  };
}
