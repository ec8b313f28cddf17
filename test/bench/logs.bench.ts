/*
 * Benchmark of the event log (`GET /logs`) on PGlite and PostgreSQL: ingest through the real
 * import path, then latency of the first page and of the page 10,000 events deep, over
 * loopback HTTP and as the bare SQL the route runs.
 *
 *   npm run bench:logs                                            # 1M + 1M events
 *   BENCH_EVENTS=100000 BENCH_OTHER_EVENTS=100000 npm run bench:logs   # a quick run
 *
 * Environment: BENCH_EVENTS (busiest repository, default 1,000,000), BENCH_OTHER_EVENTS
 * (spread over 99 other repositories, default 1,000,000), BENCH_BACKENDS (pglite,postgres),
 * BENCH_DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/trainyard_bench), BENCH_SCHEMA (bench),
 * BENCH_REQUESTS (200), BENCH_WARMUP (20), BENCH_VACUUM=1 (VACUUM (ANALYZE) instead of
 * ANALYZE), BENCH_KEEP_PGLITE=1 (keep the PGlite data directory), BENCH_REUSE_POSTGRES=1
 * (measure latency again on the events an earlier run left in the schema, without importing),
 * BENCH_CANDIDATES=0 / BENCH_CANDIDATE_SCHEMA=0 (skip the candidate query shapes / schema).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, get as httpGet } from 'node:http';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import pg from 'pg';
import { z } from 'zod';
import { GithubPermissions } from '../../app/api/auth/github-permissions.ts';
import { DEFAULT_KEY_CACHE_TTL_MS } from '../../app/api/auth/key-cache.ts';
import { eventJson } from '../../app/api/event-response.ts';
import { buildServer } from '../../app/api/server.ts';
import { importEvents } from '../../app/cli/import-events.ts';
import { createApiKey, findKeyAndRepository } from '../../app/store/api-keys.ts';
import { openStore, type Store } from '../../app/store/database.ts';
import { listEventTexts } from '../../app/store/events.ts';
import { findRepository } from '../../app/store/repositories.ts';
import { logsPageSchema } from '../../shared/schemas/logs.schema.ts';
import { parseLinkHeader } from '../support/link-header.ts';
import { normalizeSql, type Statement, StatementRecorder } from '../support/statement-recorder.ts';
import { freshBenchSchema } from './support/bench-database.ts';
import { envInt } from './support/env-int.ts';
import {
  BUSIEST,
  type Dataset,
  ensureDataset,
  type HistoryFile,
  OWNER,
  typeShare,
} from './support/generate-events.ts';
import { int, ms, ratio, type Summary, summarize, table, timeRuns } from './support/stats.ts';

const config = {
  busiest: envInt('BENCH_EVENTS', 1_000_000),
  others: envInt('BENCH_OTHER_EVENTS', 1_000_000),
  otherRepositories: 99,
  seed: 20_261_101,
  backends: (process.env.BENCH_BACKENDS ?? 'pglite,postgres').split(',').map((b) => b.trim()) as (
    | 'pglite'
    | 'postgres'
  )[],
  databaseUrl: process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/trainyard_bench',
  schema: process.env.BENCH_SCHEMA ?? 'bench',
  requests: envInt('BENCH_REQUESTS', 200),
  warmup: envInt('BENCH_WARMUP', 20),
  perPage: 100,
  depth: 10_000,
  filterType: 'action.queue.checks_end',
  vacuum: process.env.BENCH_VACUUM === '1',
  keepPglite: process.env.BENCH_KEEP_PGLITE === '1',
  candidateSchema: process.env.BENCH_CANDIDATE_SCHEMA !== '0',
  candidateQueries: process.env.BENCH_CANDIDATES !== '0',
  /** BENCH_CANDIDATES=0 skips timing the alternative statements (the old slow shapes take minutes). */
  statementCandidates: process.env.BENCH_CANDIDATES !== '0',
  dataRoot: resolve('.bench-data'),
};

const targets = { postgresP99Ms: 15, httpOverSql: 1.5 };

const t0 = performance.now();
function log(message: string) {
  const s = ((performance.now() - t0) / 1000).toFixed(1).padStart(7);
  console.log(`[${s}s] ${message}`);
}
const seconds = (since: number) => (performance.now() - since) / 1000;

// ---------------------------------------------------------------------------------------
// Stores

async function preparePostgres(): Promise<void> {
  if (await freshBenchSchema(config.databaseUrl, config.schema)) log('created the benchmark database');
}

interface OpenedStore {
  store: Store;
  label: string;
  /** The data of an earlier run is already there (BENCH_REUSE_POSTGRES=1). */
  reused: boolean;
  cleanup(): Promise<void>;
}

/** Whether the PostgreSQL schema holds exactly this dataset, imported by an earlier run. */
async function holdsDataset(dataset: Dataset): Promise<boolean> {
  const client = new pg.Client({ connectionString: config.databaseUrl });
  try {
    await client.connect();
    const { rows } = await client.query<{ name: string; n: string }>(
      `SELECT r.name, count(e.id) AS n FROM ${config.schema}.repositories r
         LEFT JOIN ${config.schema}.events e ON e.repository_id = r.id GROUP BY r.name`,
    );
    const counts = new Map(rows.map((r) => [r.name, Number(r.n)]));
    return [dataset.busiest, ...dataset.others].every((f) => counts.get(f.name) === f.events);
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

async function openBackend(backend: 'pglite' | 'postgres', dataset: Dataset): Promise<OpenedStore> {
  if (backend === 'postgres') {
    const reused = process.env.BENCH_REUSE_POSTGRES === '1' && (await holdsDataset(dataset));
    if (!reused) await preparePostgres();
    const store = await openStore({
      databaseUrl: config.databaseUrl,
      schema: config.schema,
      maxConnections: 10,
    });
    const { rows } = await store.pool.query<{ server_version: string }>('SHOW server_version');
    // Autovacuum would start on its own after the import and run during the measurements;
    // the table is analyzed (or vacuumed) explicitly instead, the same way on both back ends.
    await store.pool.query(
      'ALTER TABLE events SET (autovacuum_enabled = false, toast.autovacuum_enabled = false)',
    );
    return {
      store,
      label: `PostgreSQL ${rows[0]?.server_version} (schema ${config.schema})`,
      reused,
      cleanup: () => store.close(),
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'trainyard-bench-'));
  const store = await openStore({ dataDir: join(dir, 'db') });
  const { rows } = await store.pool.query<{ server_version: string }>('SHOW server_version');
  return {
    store,
    label: `PGlite (PostgreSQL ${rows[0]?.server_version}, data dir ${dir})`,
    reused: false,
    async cleanup() {
      await store.close();
      if (!config.keepPglite) rmSync(dir, { recursive: true, force: true });
    },
  };
}

// ---------------------------------------------------------------------------------------
// Ingest

interface IngestResult {
  events: number;
  seconds: number;
  eventsPerSecond: number;
}

async function importFile(store: Store, file: HistoryFile): Promise<void> {
  const report = await importEvents(store, {
    file: file.file,
    owner: file.owner,
    name: file.name,
    now: new Date(),
  });
  if (report.badLines > 0) {
    throw new Error(
      `${file.file}: ${report.badLines} bad lines, e.g. ${JSON.stringify(report.problems.slice(0, 3))}`,
    );
  }
  if (report.imported !== file.events) {
    throw new Error(`${file.file}: imported ${report.imported} events, expected ${file.events}`);
  }
}

async function ingest(store: Store, dataset: Dataset) {
  const started = performance.now();
  const ticker = setInterval(
    () => log(`  … importing ${OWNER}/${BUSIEST} (${seconds(started).toFixed(0)} s)`),
    30_000,
  );
  try {
    await importFile(store, dataset.busiest);
  } finally {
    clearInterval(ticker);
  }
  const busiestSeconds = seconds(started);
  const busiest: IngestResult = {
    events: dataset.busiest.events,
    seconds: busiestSeconds,
    eventsPerSecond: dataset.busiest.events / busiestSeconds,
  };
  log(
    `imported ${int(busiest.events)} events of ${OWNER}/${BUSIEST} in ${busiestSeconds.toFixed(1)} s = ${int(busiest.eventsPerSecond)} events/s`,
  );

  const othersStarted = performance.now();
  let done = 0;
  let lastReport = performance.now();
  for (const [k, file] of dataset.others.entries()) {
    await importFile(store, file);
    done += file.events;
    if (performance.now() - lastReport > 15_000 || k === dataset.others.length - 1) {
      lastReport = performance.now();
      log(`  … ${k + 1}/${dataset.others.length} other repositories, ${int(done)} events`);
    }
  }
  const othersSeconds = seconds(othersStarted);
  const others: IngestResult = {
    events: done,
    seconds: othersSeconds,
    eventsPerSecond: done / othersSeconds,
  };
  const overall: IngestResult = {
    events: busiest.events + done,
    seconds: busiestSeconds + othersSeconds,
    eventsPerSecond: (busiest.events + done) / (busiestSeconds + othersSeconds),
  };
  log(
    `imported ${int(done)} events of ${dataset.others.length} other repositories in ${othersSeconds.toFixed(1)} s = ${int(others.eventsPerSecond)} events/s; overall ${int(overall.eventsPerSecond)} events/s`,
  );
  return { busiest, others, overall };
}

// ---------------------------------------------------------------------------------------
// Queries

/** How a statement names the repository: its SQL with `$1`, `$2`… for its parameters. */
interface RepositoryForm {
  sql: string;
  /** How many times the repository id is passed. */
  parameters: number;
}

/** app/store/events.ts today: the repository as a one-element array (see repositoryAsArray). */
const appRepositoryForm: RepositoryForm = {
  sql: 'repository_id = ANY(ARRAY[$1]::bigint[])',
  parameters: 1,
};

/** The columns `listEventTexts` (app/store/events.ts) selects: the event as text for the JSON answer. */
const routeColumns = `id, to_char(received_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS received_at, trigger, pull_request, base_ref, type, metadata::text AS metadata`;

/**
 * The statements `listEventTexts` (app/store/events.ts) sends for a newest-first page: the page,
 * then (after the first page) an ordered LIMIT 1 probe for a row newer than the page's newest.
 * The candidates change how the repository is named and the orders.
 */
function routeStatements(
  repositoryId: string,
  filterType: string | null,
  before: string | null,
  limit: number,
  repository: RepositoryForm = appRepositoryForm,
  probeOrder = 'repository_id DESC, id ASC',
  mainOrder = 'repository_id, id DESC',
): { main: Statement; probe: ((newest: string) => Statement) | null } {
  const values: unknown[] = Array.from({ length: repository.parameters }, () => repositoryId);
  let where = repository.sql;
  if (filterType !== null) {
    values.push(filterType);
    where += ` AND type = $${values.length}`;
  }
  const mainValues = [...values];
  let keyset = '';
  if (before !== null) {
    mainValues.push(before);
    keyset = ` AND id < $${mainValues.length}::bigint`;
  }
  mainValues.push(limit + 1);
  const main: Statement = {
    text: `SELECT ${routeColumns} FROM events WHERE ${where}${keyset} ORDER BY ${mainOrder} LIMIT $${mainValues.length}`,
    values: mainValues,
  };
  const probe =
    before === null
      ? null
      : (newest: string): Statement => ({
          text: `SELECT 1 AS one FROM events WHERE ${where} AND id > $${values.length + 1}::bigint ORDER BY ${probeOrder} LIMIT 1`,
          values: [...values, newest],
        });
  return { main, probe };
}

const sameStatement = (a: Statement, b: Statement) =>
  normalizeSql(a.text) === normalizeSql(b.text) && JSON.stringify(a.values) === JSON.stringify(b.values);

interface CaseResult {
  name: string;
  filter: string | null;
  depth: number;
  url: string;
  http: Timed;
  server: Summary;
  sql: Timed;
  /** 1-minute load average of the machine at the end of the timed runs (2 CPUs). */
  loadAverage: number;
  routeSqlWithAuth: Timed;
  /** The same requests to a server that looks the application key up on every request. */
  httpNoKeyCache: Timed;
  /** The same requests with fetch as the client. */
  httpFetch: Timed;
  /** A request the server answers without work (404), same client: what any route costs over HTTP. */
  httpFloor: Timed;
  /** Writing the page's JSON from its rows (eventJson), as the route does. */
  serialize: Summary;
  /** JSON.stringify of the parsed page: what the route did before it spliced stored JSON text. */
  stringify: Summary;
  /** zod encode + JSON.stringify, what the default zod serializer would add (the route skips it). */
  zodEncode: Summary;
  candidates: { name: string; sql: Summary; plans: string[] }[];
  statements: string[];
  /** EXPLAIN ANALYZE of each statement of `statements`, summarized. */
  plans: string[];
  ratioP50: number;
  ratioP99: number;
}

/*
 * The client shares this process (and its 2 CPUs) with the server, so its own cost lands in
 * the HTTP figures: the timed requests use node:http on one kept-alive connection, a lean
 * client like curl or a service's HTTP library; fetch (undici's WHATWG layer, ~0.3-0.5 ms more
 * per request here) is timed beside it for reference.
 */
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

function getPage(url: string, token: string): Promise<{ link: string | undefined; text: string }> {
  return new Promise((resolve, reject) => {
    httpGet(url, { agent, headers: { authorization: `Bearer ${token}` } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if (response.statusCode !== 200) {
          reject(new Error(`GET ${url}: ${response.statusCode} ${text.slice(0, 300)}`));
        } else {
          const link = response.headers.link;
          resolve({ link: Array.isArray(link) ? link.join(', ') : link, text });
        }
      });
    }).on('error', reject);
  });
}

/** A request the same server answers without work (an unknown path's 404): HTTP's own floor. */
function getFloor(url: string, token: string): Promise<void> {
  return new Promise((resolve, reject) => {
    httpGet(url, { agent, headers: { authorization: `Bearer ${token}` } }, (response) => {
      response.resume();
      response.on('error', reject);
      response.on('end', () =>
        response.statusCode === 404 ? resolve() : reject(new Error(`GET ${url}: ${response.statusCode}`)),
      );
    }).on('error', reject);
  });
}

async function fetchPage(url: string, token: string) {
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET ${url}: ${response.status} ${text.slice(0, 300)}`);
  return text;
}

/** Follows `next` links until `depth` events lie before the page, or the log ends. */
async function walkTo(firstUrl: string, token: string, depth: number) {
  let url = firstUrl;
  let skipped = 0;
  const started = performance.now();
  let pages = 0;
  while (skipped < depth) {
    const { link, text } = await getPage(url, token);
    pages++;
    const next = parseLinkHeader(link ?? null)['next'];
    if (!next) break;
    skipped += (JSON.parse(text) as { size: number }).size;
    url = next;
  }
  return { url, skipped, pages, seconds: seconds(started) };
}

async function runStatements(store: Store, statements: readonly Statement[]) {
  for (const s of statements) await store.pool.query(s.text, s.values);
}

async function measureBackend(backend: 'pglite' | 'postgres', dataset: Dataset) {
  log(`=== ${backend}: opening`);
  const opened = await openBackend(backend, dataset);
  const { store } = opened;
  log(`opened ${opened.label}`);
  try {
    let ingestResult: Awaited<ReturnType<typeof ingest>> | null = null;
    if (opened.reused)
      log('reusing the events imported by an earlier run (BENCH_REUSE_POSTGRES=1): ingest not measured');
    else ingestResult = await ingest(store, dataset);

    const maintenance = config.vacuum ? 'VACUUM (ANALYZE) events' : 'ANALYZE events';
    const analyzeStarted = performance.now();
    await store.pool.query(maintenance);
    const analyzeSeconds = seconds(analyzeStarted);
    log(`${maintenance}: ${analyzeSeconds.toFixed(1)} s`);
    const sizes = (
      await store.pool.query<{ heap: string; indexes: string; total: string }>(
        `SELECT pg_size_pretty(pg_table_size('events')) AS heap,
                pg_size_pretty(pg_indexes_size('events')) AS indexes,
                pg_size_pretty(pg_total_relation_size('events')) AS total`,
      )
    ).rows[0]!;
    log(`events table: ${sizes.heap} heap+toast, ${sizes.indexes} indexes`);

    const repository = await findRepository(store.db, OWNER, BUSIEST);
    if (!repository) throw new Error('the busiest repository was not imported');
    const typeCount = Number(
      (
        await store.pool.query<{ n: string }>(
          'SELECT count(*) AS n FROM events WHERE repository_id = $1::bigint AND type = $2',
          [repository.id, config.filterType],
        )
      ).rows[0]!.n,
    );
    log(
      `${config.filterType}: ${int(typeCount)} of ${int(dataset.busiest.events)} events of the busiest repository (${((100 * typeCount) / dataset.busiest.events).toFixed(1)} %, expected ${(100 * typeShare(config.filterType as never)).toFixed(1)} %)`,
    );

    const app = await buildServer({
      store,
      github: new GithubPermissions({ apiBaseUrl: 'https://github.invalid/api/v3' }),
    });
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    // The same app looking the application key up on every request, for comparison.
    const appNoKeyCache = await buildServer({
      store,
      github: new GithubPermissions({ apiBaseUrl: 'https://github.invalid/api/v3' }),
      keyCacheTtlMs: 0,
    });
    noKeyCacheBase = await appNoKeyCache.listen({ port: 0, host: '127.0.0.1' });
    app.server.on('request', (_request, response) => {
      const start = performance.now();
      response.on('finish', () => serverTimes.push(performance.now() - start));
    });
    const recorder = new StatementRecorder(store.pool);
    const cases: CaseResult[] = [];
    const candidateCases: CaseResult[] = [];
    let walks: { filter: string | null; pages: number; skipped: number; seconds: number }[] = [];
    try {
      const { secret: token } = await createApiKey(store.db, {
        name: 'bench',
        owner: OWNER,
        repository: BUSIEST,
        role: 'read',
        now: new Date(),
      });
      walks = [];
      const targetsToMeasure: { url: string; depth: number; filter: string | null }[] = [];
      for (const filter of [null, config.filterType]) {
        const firstUrl = `${base}/v1/repos/${OWNER}/${BUSIEST}/logs?per_page=${config.perPage}${filter ? `&event_type=${encodeURIComponent(filter)}` : ''}`;
        const walk = await walkTo(firstUrl, token, config.depth);
        walks.push({ filter, pages: walk.pages, skipped: walk.skipped, seconds: walk.seconds });
        log(
          `walked ${walk.pages} pages of ${config.perPage} (${filter ?? 'no filter'}) to depth ${int(walk.skipped)} in ${walk.seconds.toFixed(2)} s`,
        );
        targetsToMeasure.push(
          { url: firstUrl, depth: 0, filter },
          { url: walk.url, depth: walk.skipped, filter },
        );
      }
      for (const target of targetsToMeasure) {
        cases.push(
          await measureCase(
            store,
            recorder,
            repository.id,
            token,
            target,
            config.candidateQueries ? queryCandidates : [],
          ),
        );
      }
      if (config.candidateSchema) {
        // The same requests (same ids, so the cursors stay valid) on a changed schema.
        log(`candidate schema: ${candidateSchema.description}`);
        const started = performance.now();
        for (const statement of candidateSchema.apply) await store.pool.query(statement);
        await store.pool.query('ANALYZE events');
        log(`  applied and analyzed in ${seconds(started).toFixed(1)} s`);
        for (const target of targetsToMeasure) {
          candidateCases.push(
            await measureCase(
              store,
              recorder,
              repository.id,
              token,
              target,
              config.candidateQueries ? [routeFromBlockZero, plainEquality] : [],
              ' [candidate schema]',
            ),
          );
        }
        if (backend === 'postgres') {
          // Leave the schema as the app makes it, so that BENCH_REUSE_POSTGRES=1 measures the app.
          const restoring = performance.now();
          for (const statement of candidateSchema.revert) await store.pool.query(statement);
          await store.pool.query('ANALYZE events');
          log(`  reverted to the app's schema in ${seconds(restoring).toFixed(1)} s`);
        }
      }
    } finally {
      await app.close();
      await appNoKeyCache.close();
      agent.destroy();
    }

    return {
      backend,
      label: opened.label,
      ingest: ingestResult,
      maintenance,
      maintenanceSeconds: analyzeSeconds,
      sizes,
      filterTypeCount: typeCount,
      walks,
      cases,
      candidateCases,
    };
  } finally {
    await opened.cleanup();
  }
}

/** Extra query shapes to time next to the route's (bare SQL), as possible fixes. */
interface Candidate {
  name: string;
  /** Session settings for the dedicated connection the candidate runs on. */
  session?: string[];
  build(input: {
    repositoryId: string;
    filter: string | null;
    before: string | null;
    /** The newest id of the page, which the route's probe for newer rows starts from. */
    newest: string | null;
    limit: number;
    /** The statements the route runs for this page. */
    route: Statement[];
  }): Statement[] | null;
}

/*
 * A sequential scan starts where the last large one of any session left off
 * (synchronize_seqscans); turning that off makes it start at block 0, a position any other
 * scan could have left behind. A plan that is fast only thanks to the start position shows
 * here (an EXISTS planned as a Seq Scan is one: decision 0001).
 */
const fromBlockZero = ['SET synchronize_seqscans = off'];

/** The route's statements, with sequential scans starting at block 0. */
const routeFromBlockZero: Candidate = {
  name: 'route SQL, seq scans from block 0 (synchronize_seqscans off)',
  session: fromBlockZero,
  build: ({ before, route }) => (before === null ? null : route),
};

/**
 * The repository as a one-element array. With `repository_id = $1` the column is a constant,
 * so PostgreSQL drops it from ORDER BY repository_id, id and the primary key (id) still
 * serves the order; `= ANY(ARRAY[$1])` is not a constant to the planner, so only the
 * (repository_id, …, id) indexes give that order, and btree still positions on it exactly.
 * The order must then match the index's direction: (repository_id, id DESC) scanned forward
 * gives newest first; scanned backward, (repository_id DESC, id ASC) for the ascending probe
 * (ORDER BY repository_id, id ASC would need an incremental sort of all newer rows).
 */
const repositoryAsArray: Candidate = {
  name: 'repository_id = ANY(ARRAY[$1]); probe ORDER BY repository_id DESC, id ASC',
  build({ repositoryId, filter, before, newest, limit }) {
    const built = routeStatements(
      repositoryId,
      filter,
      before,
      limit,
      { sql: 'repository_id = ANY(ARRAY[$1::bigint])', parameters: 1 },
      'repository_id DESC, id ASC',
    );
    return [built.main, ...(built.probe && newest ? [built.probe(newest)] : [])];
  },
};

/**
 * The plain form: `repository_id = $1`, ORDER BY id. Safe only where no index in plain id
 * order exists (the candidate schema), and then the simplest.
 */
const plainEquality: Candidate = {
  name: 'repository_id = $1; ORDER BY id DESC, probe ORDER BY id ASC',
  build({ repositoryId, filter, before, newest, limit }) {
    const built = routeStatements(
      repositoryId,
      filter,
      before,
      limit,
      { sql: 'repository_id = $1::bigint', parameters: 1 },
      'id ASC',
      'id DESC',
    );
    return [built.main, ...(built.probe && newest ? [built.probe(newest)] : [])];
  },
};

const queryCandidates: Candidate[] = [routeFromBlockZero, repositoryAsArray];

/**
 * The schema change to try: the log's keyset index becomes the primary key, so no index
 * in plain id order remains for the planner to prefer over it.
 */
const candidateSchema = {
  description: 'PRIMARY KEY (repository_id, id) instead of (id); events_log (now redundant) dropped',
  apply: [
    'ALTER TABLE events DROP CONSTRAINT events_pkey',
    'ALTER TABLE events ADD CONSTRAINT events_pkey PRIMARY KEY (repository_id, id)',
    'DROP INDEX events_log',
  ],
  revert: [
    'ALTER TABLE events DROP CONSTRAINT events_pkey',
    'ALTER TABLE events ADD CONSTRAINT events_pkey PRIMARY KEY (id)',
    'CREATE INDEX events_log ON events (repository_id, id DESC)',
  ],
};

/** One line per plan: the nodes, the index used and the rows a filter threw away. */
async function planSummaryOn(db: pg.Pool | pg.PoolClient, statement: Statement): Promise<string> {
  type PlanNode = {
    'Node Type': string;
    'Index Name'?: string;
    'Scan Direction'?: string;
    'Rows Removed by Filter'?: number;
    'Actual Total Time'?: number;
    'Parent Relationship'?: string;
    Plans?: PlanNode[];
  };
  const { rows } = await db.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(
    `EXPLAIN (ANALYZE, FORMAT JSON) ${statement.text}`,
    statement.values,
  );
  const root = rows[0]!['QUERY PLAN'][0]!.Plan;
  const parts: string[] = [];
  const walk = (node: PlanNode) => {
    let part = node['Node Type'];
    if (node['Parent Relationship'] === 'InitPlan') part = `InitPlan: ${part}`;
    if (node['Scan Direction'] === 'Backward') part += ' Backward';
    if (node['Index Name']) part += ` using ${node['Index Name']}`;
    if (node['Rows Removed by Filter'])
      part += ` (filter removed ${int(node['Rows Removed by Filter'])} rows)`;
    parts.push(part);
    for (const child of node.Plans ?? []) walk(child);
  };
  walk(root);
  return `${parts.join(' > ')}: ${ms(root['Actual Total Time'] ?? Number.NaN)} ms`;
}

/** Base URL of the server without key cache (see measureBackend). */
let noKeyCacheBase = '';

/** Time from the server's `request` event to the response's `finish`, per request. */
const serverTimes: number[] = [];

/** Garbage-collection pauses of this process (client and server share it). */
const gcPauses: { start: number; duration: number }[] = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcPauses.push({ start: entry.startTime, duration: entry.duration });
}).observe({ entryTypes: ['gc'] });

interface GcSummary {
  count: number;
  totalMs: number;
  maxMs: number;
}

type Timed = Summary & { gc: GcSummary };

/**
 * Times several series interleaved — one run of each per iteration, `warmup` untimed
 * iterations first — so that they all see the same background load (this machine is shared),
 * and attributes each GC pause of this process to the series whose run it fell into.
 */
async function timeInterleaved<K extends string>(
  series: Record<K, () => Promise<unknown>>,
  onTimedStart?: () => void,
): Promise<Record<K, Timed>> {
  const keys = Object.keys(series) as K[];
  for (let i = 0; i < config.warmup; i++) for (const k of keys) await series[k]();
  onTimedStart?.();
  await new Promise((r) => setTimeout(r, 20)); // let GC entries of the warm-up arrive
  gcPauses.length = 0;
  const samples = new Map<K, number[]>(keys.map((k) => [k, []]));
  const windows: { key: K; from: number; to: number }[] = [];
  for (let i = 0; i < config.requests; i++) {
    for (const k of keys) {
      const from = performance.now();
      await series[k]();
      const to = performance.now();
      samples.get(k)!.push(to - from);
      windows.push({ key: k, from, to });
    }
  }
  await new Promise((r) => setTimeout(r, 20)); // GC entries are delivered asynchronously
  const gcOf = new Map<K, number[]>(keys.map((k) => [k, []]));
  for (const g of gcPauses) {
    const w = windows.find((x) => g.start >= x.from && g.start <= x.to);
    if (w) gcOf.get(w.key)!.push(g.duration);
  }
  gcPauses.length = 0;
  const round = (x: number) => Math.round(x * 100) / 100;
  const result = {} as Record<K, Timed>;
  for (const k of keys) {
    const pauses = gcOf.get(k)!;
    result[k] = {
      ...summarize(samples.get(k)!),
      gc: {
        count: pauses.length,
        totalMs: round(pauses.reduce((a, b) => a + b, 0)),
        maxMs: round(Math.max(0, ...pauses)),
      },
    };
  }
  return result;
}

async function measureCase(
  store: Store,
  recorder: StatementRecorder,
  repositoryId: string,
  token: string,
  c: { url: string; depth: number; filter: string | null },
  candidates: Candidate[],
  suffix = '',
): Promise<CaseResult> {
  const noKeyCacheUrl = c.url.replace(/^https?:\/\/[^/]+/, noKeyCacheBase);
  const name = `${c.depth === 0 ? 'first page' : `depth ${int(c.depth)}`}${c.filter ? `, type=${c.filter.replace('action.queue.', '…')}` : ''}${suffix}`;
  const cursor = new URL(c.url).searchParams.get('cursor');
  const before = cursor
    ? (JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { id: string }).id
    : null;

  // What the route sends for this request (auth, repository, then the log's statements).
  let body = '';
  const captured = await recorder.capture(async () => {
    body = (await getPage(c.url, token)).text;
  });
  const page = JSON.parse(body) as { size: number; events: { id: number }[] };
  if (page.size !== config.perPage) log(`  note: ${name} has ${page.size} events, not ${config.perPage}`);

  // The same statements, built by hand from app/store/events.ts, checked against the capture.
  const built = routeStatements(repositoryId, c.filter, before, config.perPage);
  const mainRows = (await store.pool.query<{ id: string }>(built.main.text, built.main.values)).rows;
  const newest = mainRows[0]?.id ?? null;
  const ours = [built.main, ...(built.probe && newest ? [built.probe(newest)] : [])];
  const theirs = captured.filter((s) => /\bFROM events\b/.test(s.text));
  let logStatements = ours;
  if (theirs.length !== ours.length || !theirs.every((s, i) => sameStatement(s, ours[i]!))) {
    log(`  WARNING: the route's statements differ from the bench's; timing the route's.`);
    for (const s of theirs) log(`    route: ${normalizeSql(s.text)} ${JSON.stringify(s.values)}`);
    for (const s of ours) log(`    bench: ${normalizeSql(s.text)} ${JSON.stringify(s.values)}`);
    logStatements = theirs;
  }
  if (c.depth > 0 && newest !== null) {
    // The page reached by cursors starts right after `depth` events.
    const expected = await store.pool.query<{ id: string }>(
      `SELECT id FROM events WHERE repository_id = $1::bigint${c.filter ? ' AND type = $3' : ''} ORDER BY id DESC OFFSET $2 LIMIT 1`,
      c.filter ? [repositoryId, c.depth, c.filter] : [repositoryId, c.depth],
    );
    if (expected.rows[0]?.id !== newest) {
      throw new Error(`${name}: the page starts at id ${newest}, expected ${expected.rows[0]?.id}`);
    }
  }
  // The key lookup the route sends when its key cache misses (once per key and repository every
  // DEFAULT_KEY_CACHE_TTL_MS): timed on every run of +auth SQL, as if nothing were cached.
  const authLookup = await recorder.capture(() => findKeyAndRepository(store.db, token, OWNER, BUSIEST));
  const routeAuth = captured.filter((s) => /^\s*select/i.test(s.text) && !/\bFROM events\b/.test(s.text));
  if (routeAuth.length > 0 && (routeAuth.length !== 1 || !sameStatement(routeAuth[0]!, authLookup[0]!))) {
    log(`  WARNING: the route's key lookup differs from findKeyAndRepository's`);
  }
  const withAuth = [...authLookup, ...logStatements];

  const timed = await timeInterleaved(
    {
      http: () => getPage(c.url, token),
      // As listEvents does: the page, then (after the first page) whether newer rows exist.
      sql: () => runStatements(store, logStatements),
      routeSqlWithAuth: () => runStatements(store, withAuth),
      httpNoKeyCache: () => getPage(noKeyCacheUrl, token),
      httpFetch: () => fetchPage(c.url, token),
      httpFloor: () => getFloor(new URL('/v1/no-such-endpoint', c.url).toString(), token),
    },
    () => {
      serverTimes.length = 0;
    },
  );
  const { http, sql, routeSqlWithAuth, httpNoKeyCache, httpFetch, httpFloor } = timed;
  const server = summarize(serverTimes);
  const loadAverage = loadavg()[0]!;
  // The route writes each event's JSON around its stored metadata text (eventJson); before, it
  // JSON.stringify'd the parsed page, and the zod serializer the other routes use would
  // validate (encode) first — both timed for reference.
  const texts = await listEventTexts(
    store.db,
    repositoryId,
    c.filter ? { types: [c.filter] } : {},
    before === null ? { kind: 'newest' } : { kind: 'before', id: before },
    config.perPage,
  );
  if (texts.events[0]?.id !== (newest ?? undefined))
    throw new Error(`${name}: listEventTexts answers another page`);
  const repositoryJson = JSON.stringify(`${OWNER}/${BUSIEST}`);
  const serialize = await timeRuns(config.requests, config.warmup, async () => {
    const events = texts.events.map((e) => eventJson(e, repositoryJson)).join(',');
    return `{"size":${texts.events.length},"per_page":${config.perPage},"events":[${events}]}`;
  });
  const parsedBody = JSON.parse(body) as unknown;
  const stringify = await timeRuns(config.requests, config.warmup, async () => {
    JSON.stringify(parsedBody);
  });
  const zodEncode = await timeRuns(config.requests, config.warmup, async () => {
    const result = z.safeEncode(logsPageSchema, parsedBody as never);
    if (!result.success) throw result.error;
    JSON.stringify(result.data);
  });
  const candidateResults: { name: string; sql: Summary; plans: string[] }[] = [];
  for (const candidate of config.statementCandidates ? candidates : []) {
    const statements = candidate.build({
      repositoryId,
      filter: c.filter,
      before,
      newest,
      limit: config.perPage,
      route: logStatements,
    });
    if (!statements) continue;
    // A candidate must answer the same page.
    const first = statements[0]!;
    const rows = (await store.pool.query<{ id: string }>(first.text, first.values)).rows;
    if (rows.map((r) => r.id).join() !== mainRows.map((r) => r.id).join()) {
      log(`  WARNING: candidate "${candidate.name}" answers other rows than the route for ${name}`);
    }
    const client = await store.pool.connect();
    try {
      for (const setting of candidate.session ?? []) await client.query(setting);
      const plans: string[] = [];
      for (const statement of statements) plans.push(await planSummaryOn(client, statement));
      const sql = await timeRuns(config.requests, config.warmup, async () => {
        for (const statement of statements) await client.query(statement.text, statement.values);
      });
      candidateResults.push({ name: candidate.name, sql, plans });
      log(`    candidate ${candidate.name}: p50 ${ms(sql.p50)} p99 ${ms(sql.p99)} ms; ${plans.join('; ')}`);
    } finally {
      for (const setting of candidate.session ?? []) {
        await client.query(setting.replace(/^SET (\w+).*$/, 'RESET $1'));
      }
      client.release();
    }
  }
  const plans: string[] = [];
  for (const statement of logStatements) plans.push(await planSummaryOn(store.pool, statement));
  log(`    plans: ${plans.join('; ')}`);

  const result: CaseResult = {
    name,
    filter: c.filter,
    depth: c.depth,
    url: c.url.replace(/^https?:\/\/[^/]+/, ''),
    http,
    server,
    sql,
    loadAverage,
    routeSqlWithAuth,
    httpNoKeyCache,
    httpFetch,
    httpFloor,
    serialize,
    stringify,
    zodEncode,
    candidates: candidateResults,
    statements: logStatements.map((s) => `${normalizeSql(s.text)}  -- ${JSON.stringify(s.values)}`),
    plans,
    ratioP50: http.p50 / sql.p50,
    ratioP99: http.p99 / sql.p99,
  };
  log(
    `  ${name}: HTTP p50 ${ms(http.p50)} p99 ${ms(http.p99)} ms (server ${ms(server.p50)}; HTTP floor p50 ${ms(httpFloor.p50)} p99 ${ms(httpFloor.p99)}); SQL p50 ${ms(sql.p50)} p99 ${ms(sql.p99)} ms; with the key lookup p50 ${ms(routeSqlWithAuth.p50)} ms; HTTP without key cache p50 ${ms(httpNoKeyCache.p50)} p99 ${ms(httpNoKeyCache.p99)} ms; with fetch p50 ${ms(httpFetch.p50)} p99 ${ms(httpFetch.p99)} ms; serialize p50 ${ms(serialize.p50)} ms (JSON.stringify of the parsed page ${ms(stringify.p50)}, zod encode + stringify ${ms(zodEncode.p50)}); GC during HTTP ${http.gc.count} pauses, ${ms(http.gc.totalMs)} ms (max ${ms(http.gc.maxMs)}), during SQL ${sql.gc.count}, ${ms(sql.gc.totalMs)} ms (max ${ms(sql.gc.maxMs)}); load average ${loadAverage.toFixed(2)}`,
  );
  return result;
}

// ---------------------------------------------------------------------------------------
// Report

type BackendResult = Awaited<ReturnType<typeof measureBackend>>;

function casesTable(cases: readonly CaseResult[]): string {
  return table(
    [
      'case',
      'HTTP p50',
      'HTTP p99',
      'server p50',
      'floor p50',
      'SQL p50',
      'SQL p99',
      'HTTP/SQL p50',
      'HTTP/SQL p99',
      '+auth SQL p50',
      '+auth SQL p99',
      'HTTP/+auth p50',
      'HTTP/+auth p99',
      'fetch p50',
      'fetch p99',
      'no key cache p50',
      'no key cache p99',
      'serialize p50',
    ],
    cases.map((c) => [
      c.name,
      ms(c.http.p50),
      ms(c.http.p99),
      ms(c.server.p50),
      ms(c.httpFloor.p50),
      ms(c.sql.p50),
      ms(c.sql.p99),
      ratio(c.ratioP50),
      ratio(c.ratioP99),
      ms(c.routeSqlWithAuth.p50),
      ms(c.routeSqlWithAuth.p99),
      ratio(c.http.p50 / c.routeSqlWithAuth.p50),
      ratio(c.http.p99 / c.routeSqlWithAuth.p99),
      ms(c.httpFetch.p50),
      ms(c.httpFetch.p99),
      ms(c.httpNoKeyCache.p50),
      ms(c.httpNoKeyCache.p99),
      ms(c.serialize.p50),
    ]),
  );
}

function planLines(cases: readonly CaseResult[]): string[] {
  return cases.map((c) => `  ${c.name}: ${c.plans.join(' ‖ ')}`);
}

function backendTable(r: BackendResult): string {
  const lines = [
    `${r.label}`,
    r.ingest
      ? `ingest (importEvents, one transaction per repository file): busiest ${int(r.ingest.busiest.events)} events in ${r.ingest.busiest.seconds.toFixed(1)} s = ${int(r.ingest.busiest.eventsPerSecond)} events/s; ` +
        `others ${int(r.ingest.others.events)} in ${r.ingest.others.seconds.toFixed(1)} s = ${int(r.ingest.others.eventsPerSecond)} events/s; ` +
        `overall ${int(r.ingest.overall.events)} in ${r.ingest.overall.seconds.toFixed(1)} s = ${int(r.ingest.overall.eventsPerSecond)} events/s`
      : 'ingest: not measured (reused the data of an earlier run)',
    `after import: ${r.maintenance} (${r.maintenanceSeconds.toFixed(1)} s); events: ${r.sizes.heap} heap+toast, ${r.sizes.indexes} indexes`,
    `latency in ms over ${config.requests} sequential requests each after ${config.warmup} warm-up (HTTP on node:http with keep-alive, SQL, +auth SQL, HTTP without key cache and HTTP with fetch runs interleaved), per_page=${config.perPage}; depth pages reached by following rel="next"; load average during the cases ${r.cases.map((c) => c.loadAverage.toFixed(1)).join(', ')}`,
    casesTable(r.cases),
    "plans of the route's statements (EXPLAIN ANALYZE, once):",
    ...planLines(r.cases),
  ];
  if (r.candidateCases.length > 0) {
    lines.push(
      `candidate schema — ${candidateSchema.description} — same requests, the app's code unchanged:`,
      casesTable(r.candidateCases),
      'plans:',
      ...planLines(r.candidateCases),
    );
  }
  const withCandidates = [...r.cases, ...r.candidateCases].filter((c) => c.candidates.length > 0);
  if (withCandidates.length > 0) {
    lines.push(
      'candidate query shapes (bare SQL on one connection, ms):',
      table(
        ['case', 'candidate', 'p50', 'p99', 'route SQL p50', 'route SQL p99', 'plans'],
        withCandidates.flatMap((c) =>
          c.candidates.map((k) => [
            c.name,
            k.name,
            ms(k.sql.p50),
            ms(k.sql.p99),
            ms(c.sql.p50),
            ms(c.sql.p99),
            k.plans.join(' ‖ '),
          ]),
        ),
        2,
      ),
    );
  }
  return lines.join('\n');
}

function targetChecks(results: BackendResult[]) {
  const checks: { target: string; backend: string; case: string; value: string; pass: boolean }[] = [];
  for (const r of results) {
    for (const c of [...r.cases, ...r.candidateCases]) {
      if (r.backend === 'postgres') {
        checks.push({
          target: `HTTP p99 < ${targets.postgresP99Ms} ms`,
          backend: r.backend,
          case: c.name,
          value: `${ms(c.http.p99)} ms`,
          pass: c.http.p99 < targets.postgresP99Ms,
        });
      }
      const worst = Math.max(c.ratioP50, c.ratioP99);
      checks.push({
        target: `HTTP ≤ ${targets.httpOverSql}× bare SQL (p50 and p99)`,
        backend: r.backend,
        case: c.name,
        value: `${ratio(c.ratioP50)} / ${ratio(c.ratioP99)}`,
        pass: worst <= targets.httpOverSql,
      });
    }
  }
  return checks;
}

async function main() {
  log(
    `logs benchmark: ${int(config.busiest)} events in ${OWNER}/${BUSIEST} + ${int(config.others)} over ${config.otherRepositories} others; back ends ${config.backends.join(', ')}; node ${process.version}, ${cpus().length} CPUs, ${(totalmem() / 2 ** 30).toFixed(0)} GiB`,
  );
  const dataset = await ensureDataset(
    config.dataRoot,
    {
      busiest: config.busiest,
      others: config.others,
      otherRepositories: config.otherRepositories,
      seed: config.seed,
    },
    log,
  );
  log(`${dataset.reused ? 'reusing' : 'wrote'} JSONL files in ${dataset.dir}`);

  const results: BackendResult[] = [];
  for (const backend of config.backends) {
    results.push(await measureBackend(backend, dataset));
    log(`rss ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB`);
  }

  const checks = targetChecks(results);
  const report = [
    '',
    ...results.flatMap((r) => [backendTable(r), '']),
    'targets:',
    table(
      ['target', 'back end', 'case', 'value', 'result'],
      checks.map((c) => [c.target, c.backend, c.case, c.value, c.pass ? 'PASS' : 'FAIL']),
      5,
    ),
    '',
    'SQL = the statements listEvents runs (the page, then a probe for newer rows after the first page), on the pool;',
    `+auth SQL = the key-and-repository lookup (one statement), then the same: what a request costs when the key cache misses (once per key every ${DEFAULT_KEY_CACHE_TTL_MS / 1000} s); no key cache = HTTP to a server with keyCacheTtlMs 0;`,
    'serialize = writing the page JSON from its rows as the route does (eventJson, stored metadata text spliced in);',
    "server = from the HTTP server's request event to the response's finish (the rest of HTTP is the client and loopback);",
    'HTTP = node:http client with one kept-alive connection, in this process; fetch = the same requests with fetch (undici), for reference;',
    'floor = the same client and server answering a request with no work (404): no route can be faster than floor + SQL.',
  ].join('\n');
  console.log(report);

  const resultFile = join(config.dataRoot, 'logs-bench-result.json');
  writeFileSync(
    resultFile,
    `${JSON.stringify(
      {
        finishedAt: new Date().toISOString(),
        config: { ...config, dataRoot: undefined },
        machine: { node: process.version, cpus: cpus().length, memoryGiB: totalmem() / 2 ** 30 },
        dataset: { dir: dataset.dir, reused: dataset.reused },
        results,
        checks,
      },
      null,
      2,
    )}\n`,
  );
  log(`results written to ${resultFile}`);
}

await main();
