/*
 * Benchmark of the 15 statistics endpoints (`GET /stats/*`) on PGlite and PostgreSQL.
 *
 *   npm run bench:stats                                   # 5M events: busiest 1M + 4M over 99 others
 *   STATS_BENCH_BUSIEST=100000 STATS_BENCH_OTHERS=100000 npm run bench:stats   # a quick run
 *
 * Ingest goes through the real append path (appendEvents + projections, one transaction per
 * 5,000 events). Then, on the busiest repository, each endpoint with windows of 1, 7, 30 and 90
 * days ending at the last event: p50/p95 over STATS_BENCH_REQUESTS (20) loopback HTTP requests.
 * Last, the time to append 10,000 more events (100 transactions of 100) with projections on,
 * three times (later and later events). Load averages are printed with each figure: the
 * machines are shared.
 *
 * Environment: STATS_BENCH_BUSIEST (1,000,000), STATS_BENCH_OTHERS (4,000,000 over 99
 * repositories), STATS_BENCH_BACKENDS (pglite,postgres), STATS_BENCH_DATABASE_URL
 * (postgresql://postgres@127.0.0.1:5432/trainyard_bench), STATS_BENCH_REQUESTS (20),
 * STATS_BENCH_KEEP (unset: drop the PostgreSQL schema and the PGlite directory at the end; set:
 * keep them, e.g. to EXPLAIN ANALYZE the endpoints' queries on the benchmark's data).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { GithubPermissions } from '../../app/api/auth/github-permissions.ts';
import { buildServer } from '../../app/api/server.ts';
import { createApiKey } from '../../app/store/api-keys.ts';
import { openStore, type Store } from '../../app/store/database.ts';
import { appendEvents, type EventToAppend } from '../../app/store/events.ts';
import { ensureRepository, type Repository } from '../../app/store/repositories.ts';
import { inRepositoryTransaction } from '../../app/store/repository-transaction.ts';
import { statsEndpoints } from '../../shared/schemas/stats-query.schema.ts';
import { freshBenchSchema } from './support/bench-database.ts';

const envInt = (name: string, fallback: number) => {
  const raw = process.env[name];
  return raw === undefined || raw === '' ? fallback : Number(raw.replace(/_/g, ''));
};

const config = {
  busiest: envInt('STATS_BENCH_BUSIEST', 1_000_000),
  others: envInt('STATS_BENCH_OTHERS', 4_000_000),
  requests: envInt('STATS_BENCH_REQUESTS', 20),
  backends: (process.env['STATS_BENCH_BACKENDS'] ?? 'pglite,postgres').split(','),
  databaseUrl:
    process.env['STATS_BENCH_DATABASE_URL'] ?? 'postgresql://postgres@127.0.0.1:5432/trainyard_bench',
  keep: (process.env['STATS_BENCH_KEEP'] ?? '') !== '',
};

const DAY = 86_400_000;
const END = Date.parse('2026-11-01T00:00:00Z');
const START = END - 90 * DAY;

function lcg(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const uuid = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const codes = ['CHECKS_FAILED', 'PR_MANUALLY_DEQUEUED', 'CHECKS_TIMEOUT', 'CONFLICT_WITH_BASE_BRANCH'];

/**
 * About `count` consistent queue events of one repository over 90 days: sessions (enter,
 * gauges, checks start/end with retries, merged or a failure leave), bisections, comments.
 */
function* generate(count: number, seed: number): Generator<EventToAppend[]> {
  const random = lcg(seed);
  // Events per session on average: 9, + 1 merged (85 %), + 1 bisection start (1 in 40).
  const perSession = 9.875;
  const sessions = Math.max(1, Math.round(count / perSession));
  let left = count;
  const step = (END - START) / sessions;
  const bases = ['main', 'main', 'main', 'release'];
  const partitions = ['__default__', '__default__', 'web', 'api'];
  const queues = ['default', 'default', 'hotfix'];
  let size = 0;
  let running = 0;
  let batch: EventToAppend[] = [];
  for (let i = 0; i < sessions; i++) {
    const t0 = START + i * step;
    const base = bases[i % 4] as string;
    const partition = partitions[(i >> 2) % 4] as string;
    const queue = queues[i % 3] as string;
    const priority = i % 5 === 0 ? 'urgent' : null;
    const session = uuid(seed * 10_000_000 + i);
    const keys = { queue_name: queue, partition_name: partition, priority_rule_name: priority };
    const queuedAt = new Date(t0).toISOString();
    const at = (ms: number) => new Date(t0 + ms);
    const ev = (type: string, ms: number, metadata: Record<string, unknown>, pr: number | null = i) => {
      batch.push({
        type,
        receivedAt: at(ms),
        trigger: 'Rule: default',
        pullRequest: pr,
        baseRef: base,
        metadata,
      });
    };
    const run = {
      speculative_check_pull_request: { number: i, in_place: true },
      checks_timed_out: false,
      unsuccessful_checks: [],
      pull_request_numbers: [i],
      train_car_id: session,
      session_id: session,
      branch: base,
      queued_at: queuedAt,
      ...keys,
    };
    const wait = Math.floor(random() * 600_000);
    const ci = 300_000 + Math.floor(random() * 900_000);
    const retried = random() < 0.1;
    const fail = random() < 0.15;
    ev('action.queue.enter', 0, { ...keys, branch: base, queued_at: queuedAt, session_id: session });
    ev('action.queue.change', 0, { ...keys, size: ++size % 20 }, null);
    ev('action.queue.checks_start', wait, {
      ...run,
      start_reason: 'First time checks',
      checks_conclusion: 'pending',
      checks_started_at: at(wait).toISOString(),
      checks_ended_at: null,
    });
    ev(
      'action.queue.checks.change',
      wait,
      { queue_name: queue, partition_name: partition, running_checks: ++running % 5 },
      null,
    );
    const end = wait + ci;
    ev('action.queue.checks_end', end, {
      ...run,
      aborted: retried,
      abort_code: retried ? 'CHECKS_RETRIED' : fail ? 'CHECKS_FAILED' : null,
      abort_reason: retried || fail ? 'failed' : null,
      abort_status: retried ? 'REEMBARKED' : fail ? 'DEFINITIVE' : null,
      retry_attempt: retried ? 1 : null,
      max_retries: 1,
      checks_conclusion: fail || retried ? 'failure' : 'success',
      checks_started_at: at(wait).toISOString(),
      checks_ended_at: at(end).toISOString(),
    });
    ev(
      'action.queue.checks.change',
      end,
      {
        queue_name: queue,
        partition_name: partition,
        running_checks: Math.max(0, running - 1) % 5,
      },
      null,
    );
    if (i % 40 === 0) {
      ev(
        'action.queue.batch_bisection_start',
        end,
        {
          ...keys,
          partition_name: partition,
          original_batch_pr_numbers: [i],
          batch_size_before_split: 4,
          number_of_sub_batches: 2,
          bisection_depth: 1,
          is_top_level: true,
          session_id: session,
        },
        null,
      );
    }
    if (!fail) {
      ev('action.queue.merged', end + 1000, {
        branch: base,
        partition_names: [partition],
        queue_name: queue,
        queued_at: queuedAt,
        priority_rule_name: priority,
        session_id: session,
      });
    }
    ev('action.queue.leave', end + 1000, {
      reason: fail ? `${codes[i % 4]}: failed` : 'PR_MERGED',
      merged: !fail,
      queue_name: queue,
      branch: base,
      partition_name: partition,
      queued_at: queuedAt,
      seconds_waiting_for_schedule: 0,
      seconds_waiting_for_freeze: i % 7 === 0 ? 30 : 0,
      priority_rule_name: priority,
      conditions_evaluation: null,
      checks: [],
      pull_request_head_sha: 'abc',
      session_id: session,
    });
    size = Math.max(0, size - 1);
    ev('action.queue.change', end + 1000, { ...keys, size: size % 20 }, null);
    ev('action.comment', end + 2000, { message: 'merged' });
    if (batch.length >= 5_000) {
      batch.sort((a, b) => a.receivedAt.getTime() - b.receivedAt.getTime());
      batch = batch.slice(0, left);
      left -= batch.length;
      yield batch;
      batch = [];
      if (left === 0) return;
    }
  }
  batch = batch.slice(0, left);
  if (batch.length > 0) yield batch;
}

async function ingest(store: Store, repo: Repository, count: number, seed: number): Promise<number> {
  let n = 0;
  for (const chunk of generate(count, seed)) {
    await inRepositoryTransaction(store.db, repo.id, (tx) => appendEvents(tx, repo.id, chunk), {
      lockTimeoutMs: 60_000,
    });
    n += chunk.length;
  }
  return n;
}

const load = () =>
  `load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`;

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;

async function benchBackend(backend: string) {
  let store: Store;
  let cleanup = async () => {};
  let where: string;
  if (backend === 'postgres') {
    const schema = `stats_bench_${Date.now()}`;
    where = `schema ${schema}`;
    await freshBenchSchema(config.databaseUrl, schema);
    store = await openStore({ databaseUrl: config.databaseUrl, schema, maxConnections: 8 });
    cleanup = async () => {
      const c = new pg.Client({ connectionString: config.databaseUrl });
      await c.connect();
      await c.query(`DROP SCHEMA ${schema} CASCADE`);
      await c.end();
    };
  } else {
    const dir = mkdtempSync(join(tmpdir(), 'trainyard-stats-bench-'));
    where = dir;
    store = await openStore({ dataDir: join(dir, 'db') });
    cleanup = async () => rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\n## ${backend}: ${store.location} (${where})`);
  const busiest = await ensureRepository(store.db, { owner: 'bench', name: 'busiest' });
  let t = performance.now();
  let total = await ingest(store, busiest, config.busiest, 1);
  for (let r = 1; r < 100 && config.others > 0; r++) {
    const repo = await ensureRepository(store.db, { owner: 'bench', name: `repo${r}` });
    total += await ingest(store, repo, Math.floor(config.others / 99), r + 1);
  }
  const ingestSeconds = (performance.now() - t) / 1000;
  console.log(
    `ingested ${total} events in ${ingestSeconds.toFixed(1)} s (${Math.round(total / ingestSeconds)} events/s, projections on; ${load()})`,
  );
  await store.pool.query('ANALYZE');

  const { secret } = await createApiKey(store.db, {
    name: 'bench',
    owner: 'bench',
    repository: null,
    role: 'read',
    now: new Date(),
  });
  const app = await buildServer({
    store,
    github: new GithubPermissions({ apiBaseUrl: 'https://github.test' }),
    now: () => new Date(END),
  });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const rows: string[] = [
    '| endpoint | 1 d p50/p95 | 7 d p50/p95 | 30 d p50/p95 | 90 d p50/p95 |',
    '|---|---|---|---|---|',
  ];
  let worst30 = 0;
  let worst90 = 0;
  for (const endpoint of statsEndpoints) {
    const cells: string[] = [];
    for (const days of [1, 7, 30, 90]) {
      const query =
        endpoint === 'time_to_merge'
          ? `at=${new Date(END).toISOString()}`
          : `start_at=${new Date(END - days * DAY).toISOString()}&end_at=${new Date(END).toISOString()}`;
      const url = `${base}/v1/repos/bench/busiest/stats/${endpoint}?${query}`;
      const times: number[] = [];
      for (let i = 0; i < config.requests + 2; i++) {
        const s = performance.now();
        const res = await fetch(url, { headers: { authorization: `Bearer ${secret}` } });
        await res.text();
        if (res.status !== 200) throw new Error(`${endpoint}: ${res.status}`);
        if (i >= 2) times.push(performance.now() - s);
      }
      times.sort((a, b) => a - b);
      const p95 = pct(times, 95);
      if (days === 30) worst30 = Math.max(worst30, p95);
      if (days === 90) worst90 = Math.max(worst90, p95);
      cells.push(`${pct(times, 50).toFixed(1)} / ${p95.toFixed(1)}`);
    }
    rows.push(`| ${endpoint} | ${cells.join(' | ')} |`);
  }
  await app.close();
  console.log(rows.join('\n'));
  console.log(`worst p95: 30 days ${worst30.toFixed(1)} ms, 90 days ${worst90.toFixed(1)} ms (${load()})`);

  // Appending 10,000 more events, 100 per transaction, projections on; three rounds.
  for (let round = 1; round <= 3; round++) {
    const more = [...generate(10_000, 998 + round)].flat();
    const later = more.map((e) => ({
      ...e,
      receivedAt: new Date(e.receivedAt.getTime() + round * 90 * DAY),
    }));
    t = performance.now();
    for (let i = 0; i < later.length; i += 100) {
      const part = later.slice(i, i + 100);
      await inRepositoryTransaction(store.db, busiest.id, (tx) => appendEvents(tx, busiest.id, part));
    }
    const appendSeconds = (performance.now() - t) / 1000;
    console.log(
      `append ${later.length} events (100 per transaction), round ${round}: ${appendSeconds.toFixed(2)} s = ${Math.round(later.length / appendSeconds)} events/s (${load()})`,
    );
  }
  await store.close();
  if (config.keep) console.log(`kept ${where}`);
  else await cleanup();
}

for (const backend of config.backends) await benchBackend(backend);
