/*
 * Can a key holder tell, by timing, whether a repository of another owner exists? Requests
 * for existing and for missing repositories of another owner are sent interleaved in random
 * order, one at a time over a kept-alive loopback connection; both are refused with 403. The
 * two latency samples are compared with the Mann–Whitney U test: the target is no significant
 * difference (p ≥ 0.05) on each back end.
 *
 *   npm run bench:existence-timing
 *
 * Environment: BENCH_REQUESTS (per kind, default 2,000), BENCH_BACKENDS (pglite,postgres),
 * BENCH_DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/trainyard_bench).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GithubPermissions } from '../../app/api/auth/github-permissions.ts';
import { buildServer } from '../../app/api/server.ts';
import { createApiKey } from '../../app/store/api-keys.ts';
import { openStore, type Store } from '../../app/store/database.ts';
import { ensureRepository } from '../../app/store/repositories.ts';
import { lcg } from '../support/seed-events.ts';
import { freshBenchSchema } from './support/bench-database.ts';
import { rankSumTest } from './support/rank-sum.ts';
import { summarize, table } from './support/stats.ts';

const requests = Number(process.env.BENCH_REQUESTS ?? 2_000);
const backends = (process.env.BENCH_BACKENDS ?? 'pglite,postgres').split(',').map((b) => b.trim());
const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/trainyard_bench';
const NAMES = 50;

async function open(backend: string): Promise<{ store: Store; dispose(): void }> {
  if (backend === 'postgres') {
    await freshBenchSchema(databaseUrl, 'existence_timing');
    const store = await openStore({ databaseUrl, schema: 'existence_timing' });
    return { store, dispose: () => {} };
  }
  const dir = mkdtempSync(join(tmpdir(), 'trainyard-timing-'));
  const store = await openStore({ dataDir: join(dir, 'db') });
  return { store, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

function get(agent: Agent, port: number, path: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(
      { host: '127.0.0.1', port, path, agent, headers: { authorization: `Bearer ${token}` } },
      (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode !== 403) reject(new Error(`expected 403, got ${res.statusCode} for ${path}`));
          else resolve(performance.now() - started);
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function measure(backend: string) {
  const { store, dispose } = await open(backend);
  const app = await buildServer({
    store,
    github: new GithubPermissions({ apiBaseUrl: 'http://127.0.0.1:9' }),
  });
  try {
    await ensureRepository(store.db, { owner: 'acme', name: 'widgets' });
    for (let i = 0; i < NAMES; i++) await ensureRepository(store.db, { owner: 'globex', name: `repo-${i}` });
    const { secret } = await createApiKey(store.db, {
      name: 'bench',
      owner: 'acme',
      repository: null,
      role: 'read',
      now: new Date(),
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const port = (app.server.address() as { port: number }).port;
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const random = lcg(20_261_127);
    const path = (exists: boolean, i: number) =>
      `/v1/repos/globex/${exists ? 'repo' : 'nope'}-${i % NAMES}/merge-queue/status`;
    for (let i = 0; i < 200; i++) await get(agent, port, path(i % 2 === 0, i), secret); // warm-up
    const existing: number[] = [];
    const missing: number[] = [];
    let e = 0;
    let m = 0;
    while (e < requests || m < requests) {
      const exists = m >= requests || (e < requests && random() < 0.5);
      const ms = await get(agent, port, path(exists, exists ? e : m), secret);
      if (exists) existing[e++] = ms;
      else missing[m++] = ms;
    }
    agent.destroy();
    return {
      existing: summarize(existing),
      missing: summarize(missing),
      test: rankSumTest(existing, missing),
    };
  } finally {
    await app.close();
    await store.close();
    dispose();
  }
}

let failed = false;
const rows: string[][] = [];
for (const backend of backends) {
  const r = await measure(backend);
  const significant = r.test.p < 0.05;
  failed ||= significant;
  const f = (x: number) => x.toFixed(3);
  rows.push([
    backend,
    `${f(r.existing.p50)} / ${f(r.existing.mean)}`,
    `${f(r.missing.p50)} / ${f(r.missing.mean)}`,
    f(r.existing.mean - r.missing.mean),
    r.test.z.toFixed(2),
    r.test.p.toFixed(3),
    significant ? 'DIFFERENT (p < 0.05)' : 'no significant difference',
  ]);
}
console.log(
  `\nRefusing another owner's repository with a valid key: ${requests} requests each, interleaved\n`,
);
console.log(
  table(
    [
      'back end',
      'existing p50 / mean ms',
      'missing p50 / mean ms',
      'mean diff ms',
      'z (Mann–Whitney)',
      'p',
      'verdict',
    ],
    rows,
  ),
);
process.exitCode = failed ? 1 : 0;
