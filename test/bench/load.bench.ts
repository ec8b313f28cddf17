/*
 * bench:load — the API under a mixed load on PostgreSQL: statistics (every endpoint, periods
 * of 1, 30 and 90 days), pages of the event log (deep ones included), the merge-queue status,
 * one queued pull request (`merge-queue/pull/{n}`, every queued one in turn) and signed webhook
 * deliveries, all at once, over a seeded 90-day history.
 *
 *   npm run bench:load
 *   LOAD_BENCH_SECONDS=5 LOAD_BENCH_EVENTS=10000 npm run bench:load      # a quick run
 *
 * The server runs in a process of its own (test/bench/load-server.ts) and measures its event
 * loop's delay (monitorEventLoopDelay, and how much of the longest block its own CPU time can
 * account for: test/support/event-loop-watch.ts) and RSS; autocannon drives it from this one, one
 * instance per route so each route gets its own latency figures. Phases: a warm-up (not
 * reported), one pull request's read alone (`merge-queue/pull/{n}`), the reads, then the reads
 * with the webhooks. The webhooks are comments that change no queue, so the engine state stays
 * at one version: the merge-queue reads are those of a quiet queue (the state kept in memory,
 * app/api/queue-state-read.ts). The history is bench:logs'
 * generated one (test/bench/support/generate-events.ts, cached in .bench-data/), imported into
 * a schema of its own (dropped at the end unless LOAD_BENCH_KEEP is set).
 *
 * Environment: DATABASE_URL (postgres://postgres@127.0.0.1:5432/test), LOAD_BENCH_SCHEMA
 * (load_bench), LOAD_BENCH_EVENTS (50,000), LOAD_BENCH_QUEUED (pull requests in the engine
 * state, 200), LOAD_BENCH_SECONDS (per phase, 20), LOAD_BENCH_WARMUP_SECONDS (3),
 * LOAD_BENCH_CONNECTIONS (per route, 2), LOAD_BENCH_POOL (server's PostgreSQL connections, 10).
 */
import { fork } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import autocannon, { type AutocannonRequest, type AutocannonResult } from 'autocannon';
import pg from 'pg';
import { webhookPath } from '../../app/github/inbox/webhook-endpoint.ts';
import { openStore } from '../../app/store/database.ts';
import { statsEndpoints } from '../../shared/schemas/stats-query.schema.ts';
import { describeBlocks } from '../support/event-loop-watch.ts';
import { parseLinkHeader } from '../support/link-header.ts';
import { issueCommentEvent } from '../support/payloads.ts';
import { type LoadHistory, seedLoadHistory } from './load-history.ts';
import type { LoadServerMessage, LoadServerOptions } from './load-server.ts';
import { freshBenchSchema } from './support/bench-database.ts';
import { envInt } from './support/env-int.ts';
import { table } from './support/stats.ts';

const config = {
  databaseUrl: process.env['DATABASE_URL'] || 'postgres://postgres@127.0.0.1:5432/test',
  schema: process.env['LOAD_BENCH_SCHEMA'] ?? 'load_bench',
  events: envInt('LOAD_BENCH_EVENTS', 50_000),
  queued: envInt('LOAD_BENCH_QUEUED', 200),
  seconds: Math.max(1, envInt('LOAD_BENCH_SECONDS', 20)),
  warmupSeconds: envInt('LOAD_BENCH_WARMUP_SECONDS', 3),
  connections: Math.max(1, envInt('LOAD_BENCH_CONNECTIONS', 2)),
  pool: Math.max(1, envInt('LOAD_BENCH_POOL', 10)),
  keep: (process.env['LOAD_BENCH_KEEP'] ?? '') !== '',
};

const WEBHOOK_SECRET = 'load-bench-webhook-secret';
const DAY = 86_400_000;
const log = (message: string) => console.log(message);
const load = () =>
  `load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`;
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;

/** One route of the load: its own autocannon instance. */
interface Route {
  name: string;
  requests: AutocannonRequest[];
  idReplacement?: boolean;
}

/** GETs that cycle through `paths`, one after another on each connection. */
function rotating(name: string, paths: string[], token: string): Route {
  let next = 0;
  return {
    name,
    requests: [
      {
        method: 'GET',
        headers: { authorization: `Bearer ${token}` },
        setupRequest: (request) => ({ ...request, path: paths[next++ % paths.length]! }),
      },
    ],
  };
}

/** Every statistic over the period of `days` ending at the history's newest event. */
function statsRoute(history: LoadHistory, days: number): Route {
  const end = Date.parse(history.newest);
  const window = `start_at=${new Date(end - days * DAY).toISOString()}&end_at=${new Date(end).toISOString()}`;
  const paths = statsEndpoints.map(
    (endpoint) =>
      `/v1/repos/${history.owner}/${history.name}/stats/${endpoint}?${endpoint === 'time_to_merge' ? `at=${new Date(end).toISOString()}` : window}`,
  );
  return rotating(`stats ${days} d`, paths, history.readToken);
}

/** Pages of a few log queries, first to deep (following their Link headers), as clients walk them. */
async function logPages(base: string, history: LoadHistory): Promise<string[]> {
  const repo = `/v1/repos/${history.owner}/${history.name}/logs`;
  const queries: [string, number][] = [
    ['per_page=100', 30],
    ['per_page=20&event_type=action.queue.merged&event_type=action.queue.leave', 10],
    ['pull_request=2500&per_page=10', 3],
    ['base_ref=release&per_page=50', 5],
  ];
  const pages: string[] = [];
  for (const [query, depth] of queries) {
    let url: string | undefined = `${base}${repo}?${query}`;
    for (let i = 0; i < depth && url; i++) {
      const res = await fetch(url, { headers: { authorization: `Bearer ${history.readToken}` } });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
      const link = new URL(url);
      pages.push(`${link.pathname}${link.search}`);
      url = parseLinkHeader(res.headers.get('link'))['next'];
    }
  }
  return pages;
}

/** Signed issue_comment deliveries, each with a fresh delivery id (stored, never a duplicate). */
function webhookRoute(): Route {
  const body = JSON.stringify(issueCommentEvent('created', { body: 'Looks good to me' }));
  const signature = `sha256=${createHmac('sha256', WEBHOOK_SECRET).update(body).digest('hex')}`;
  return {
    name: 'webhooks',
    idReplacement: true,
    requests: [
      {
        method: 'POST',
        path: webhookPath,
        headers: {
          'content-type': 'application/json',
          'x-github-event': 'issue_comment',
          'x-github-delivery': 'load-[<id>]',
          'x-hub-signature-256': signature,
        },
        body,
      },
    ],
  };
}

/** The server process and its figures. */
async function startServer(options: LoadServerOptions) {
  const child = fork(fileURLToPath(new URL('./load-server.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx', '--max-semi-space-size=64'],
    env: { ...process.env, LOAD_SERVER_OPTIONS: JSON.stringify(options) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  process.once('exit', () => child.kill('SIGKILL'));
  const next = <T extends LoadServerMessage['type']>(type: T) =>
    new Promise<Extract<LoadServerMessage, { type: T }>>((resolve, reject) => {
      const onMessage = (m: LoadServerMessage) => {
        if (m.type !== type) return;
        child.off('message', onMessage);
        resolve(m as Extract<LoadServerMessage, { type: T }>);
      };
      child.on('message', onMessage);
      child.once('exit', (code) => reject(new Error(`the load server exited (${code})`)));
    });
  const { url } = await next('ready');
  return {
    url,
    reset: () => child.send({ type: 'reset' }),
    figures: () => {
      const answer = next('figures');
      child.send({ type: 'figures' });
      return answer;
    },
    stop: async () => {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.send({ type: 'stop' });
      await exited;
    },
  };
}

type Server = Awaited<ReturnType<typeof startServer>>;

async function runPhase(server: Server, name: string, routes: Route[], seconds: number, report: boolean) {
  server.reset();
  const results: AutocannonResult[] = await Promise.all(
    routes.map((route) =>
      autocannon({
        url: server.url,
        title: route.name,
        connections: config.connections,
        duration: seconds,
        timeout: 10,
        requests: route.requests,
        ...(route.idReplacement ? { idReplacement: true } : {}),
      }),
    ),
  );
  const f = await server.figures();
  if (!report) return;
  const rows = results.map((r, i) => [
    routes[i]!.name,
    (r.requests.total / r.duration).toFixed(1),
    String(r.requests.total),
    r.latency.p50.toFixed(0),
    r.latency.p99.toFixed(0),
    r.latency.max.toFixed(0),
    String(r.non2xx),
    String(r.errors + r.timeouts),
  ]);
  const total = results.reduce((n, r) => n + r.requests.total, 0);
  const seconds_ = Math.max(...results.map((r) => r.duration));
  console.log(
    `\n### ${name}: ${routes.length} routes at once, ${config.connections} connections each, ${seconds_.toFixed(0)} s (${load()})`,
  );
  console.log(table(['route', 'req/s', 'requests', 'p50 ms', 'p99 ms', 'max ms', 'non-2xx', 'errors'], rows));
  console.log(`total: ${(total / seconds_).toFixed(1)} req/s`);
  for (const [i, r] of results.entries()) {
    if (r.non2xx > 0) console.log(`  ${routes[i]!.name}: statuses ${JSON.stringify(r.statusCodeStats)}`);
  }
  console.log(
    `server: event loop max delay ${f.eventLoopMaxMs.toFixed(1)} ms (p99 ${f.eventLoopP99Ms.toFixed(1)} ms), of which its own CPU at most ${f.ownBlockMaxMs.toFixed(1)} ms; RSS ${mb(f.rss)} at the end, peak ${mb(f.rssPeak)}`,
  );
  if (f.blocks.length > 0) console.log(`longest blocks in wall time:\n${describeBlocks(f.blocks)}`);
}

async function main() {
  const where = new URL(config.databaseUrl);
  console.log(`bench:load on PostgreSQL ${where.host}${where.pathname}, schema ${config.schema}`);
  await freshBenchSchema(config.databaseUrl, config.schema);
  const store = await openStore({ databaseUrl: config.databaseUrl, schema: config.schema });
  // ensureDataset also reports the other repositories bench:logs generates; here there are none.
  const quiet = (message: string) => (message.includes('over 0 other') ? undefined : log(message));
  const history = await seedLoadHistory(store, { events: config.events, queued: config.queued, log: quiet });
  await store.pool.query('ANALYZE');
  await store.close();

  const server = await startServer({
    databaseUrl: config.databaseUrl,
    schema: config.schema,
    now: history.newest,
    webhookSecret: WEBHOOK_SECRET,
    maxConnections: config.pool,
  });
  try {
    const pages = await logPages(server.url, history);
    // Every queued pull request in turn (the large state numbers them 1 to `queued`).
    const pullReads =
      config.queued > 0
        ? [
            rotating(
              'merge-queue pull/{n}',
              Array.from(
                { length: config.queued },
                (_, i) => `/v1/repos/${history.owner}/${history.name}/merge-queue/pull/${i + 1}`,
              ),
              history.readToken,
            ),
          ]
        : [];
    const reads = [
      statsRoute(history, 1),
      statsRoute(history, 30),
      statsRoute(history, 90),
      rotating('logs pages', pages, history.readToken),
      rotating(
        'merge-queue status',
        [`/v1/repos/${history.owner}/${history.name}/merge-queue/status`],
        history.readToken,
      ),
      ...pullReads,
    ];
    console.log(
      `history: ${history.events.toLocaleString('en')} events of ${history.owner}/${history.name} up to ${history.newest}, ${config.queued} queued pull requests; ${pages.length} log pages`,
    );
    if (config.warmupSeconds > 0)
      await runPhase(server, 'warm-up', [...reads, webhookRoute()], config.warmupSeconds, false);
    if (pullReads.length > 0) await runPhase(server, 'one pull request', pullReads, config.seconds, true);
    await runPhase(server, 'reads', reads, config.seconds, true);
    await runPhase(server, 'reads and signed webhooks', [...reads, webhookRoute()], config.seconds, true);
  } finally {
    await server.stop();
    if (!config.keep) {
      const client = new pg.Client({ connectionString: config.databaseUrl });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${config.schema} CASCADE`);
      await client.end();
    } else console.log(`kept schema ${config.schema}`);
  }
}

await main();
