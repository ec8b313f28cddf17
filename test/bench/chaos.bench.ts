/*
 * Crash test (issue "Hardening"): the real product, started as `npm start` starts it (the start
 * script's node command line on app/main.ts, sandbox mode: PGlite or PostgreSQL, the sandbox
 * code host with simulated CI and its demo workload on demo/widgets), is killed with SIGKILL —
 * its whole process group — at random moments and started again from the same data
 * directories, CHAOS_CYCLES times per back end. Then it starts once more, runs a while so that
 * work settles, and is stopped cleanly (SIGINT, as Ctrl-C). The bench then reads what was left
 * behind — the sandbox's persisted state (`<data dir>/../sandbox/`, read as a restart reads it),
 * the database (events, webhook_deliveries, outbox) and the journal written by
 * test/bench/chaos/observer.ts — and checks the invariants listed in
 * test/bench/chaos/invariants.ts. Exit status 1 when any is violated or the product failed to
 * (re)start or stop; the run's directory (state, journal, product.log, run.json) is then kept.
 *
 * The observer is the one addition to the user's command line (`--import` after tsx): it only
 * journals, synchronously, what the sandbox does not keep: the answers its webhooks got, the
 * writes its REST API acknowledged and its clock's readings. CHAOS_OBSERVE=0 runs without it
 * (the delivery-loss check, the clock across restarts and invariant 7 are then skipped).
 *
 *   npm run bench:chaos                                          # 20 cycles of 15–45 s per back end
 *   CHAOS_CYCLES=3 CHAOS_MIN_S=5 CHAOS_MAX_S=10 CHAOS_SETTLE_S=30 npm run bench:chaos   # short mode
 *   CHAOS_RECHECK=/tmp/trainyard-chaos-pglite-XXXX npm run bench:chaos   # the checks again on a kept run
 *
 * Duration on the 2-core development machine: the short mode 2.2–3 min for both back ends, the
 * default 22–23 min (about 11 min per back end).
 *
 * Environment: CHAOS_CYCLES (20), CHAOS_BACKENDS (pglite,postgres), CHAOS_MIN_S / CHAOS_MAX_S
 * (kill interval bounds, 15 / 45; measured from the spawn, except the first start's from its
 * first answer: a kill inside the very first initdb is another test), CHAOS_SEED (random,
 * printed: the kill intervals; the sandbox's workload is always its seed 1), CHAOS_SETTLE_S
 * (60: the last run before the clean stop), CHAOS_TIME_SCALE (SANDBOX_TIME_SCALE of the
 * product, 120), CHAOS_DATABASE_URL (postgresql://postgres@127.0.0.1:5432/trainyard_chaos,
 * dropped and created afresh), CHAOS_LOG_LEVEL (warn), CHAOS_READY_TIMEOUT_S (180: a start that
 * does not answer by then is a failure), CHAOS_OBSERVE (1), CHAOS_KEEP=1 (keep the temporary
 * directory and database even when clean).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { handledEvents } from '../../app/github/inbox/delivery-step.ts';
import { DEMO_REPOSITORY } from '../../app/sandbox/demo-repository.ts';
import { createRandom } from '../../app/sim/random.ts';
import { readDatabase, readJournal, readSandboxState, storedSandboxNow } from './chaos/final-state.ts';
import {
  type CheckResult,
  checkInvariants,
  type InvariantId,
  invariantNames,
  type LifeSample,
} from './chaos/invariants.ts';
import {
  getJson,
  killAll,
  killGroup,
  type RunningProduct,
  sleep,
  startProduct,
  waitExit,
} from './chaos/product.ts';

const envNumber = (name: string, fallback: number) => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a non-negative number`);
  return value;
};

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const observerPath = fileURLToPath(new URL('./chaos/observer.ts', import.meta.url));
const config = {
  cycles: Math.floor(envNumber('CHAOS_CYCLES', 20)),
  backends: (process.env['CHAOS_BACKENDS'] ?? 'pglite,postgres')
    .split(',')
    .map((b) => b.trim())
    .filter(Boolean) as ('pglite' | 'postgres')[],
  minS: envNumber('CHAOS_MIN_S', 15),
  maxS: envNumber('CHAOS_MAX_S', 45),
  seed: Math.floor(envNumber('CHAOS_SEED', Math.floor(Math.random() * 1_000_000))),
  settleS: envNumber('CHAOS_SETTLE_S', 60),
  timeScale: envNumber('CHAOS_TIME_SCALE', 120),
  databaseUrl: process.env['CHAOS_DATABASE_URL'] ?? 'postgresql://postgres@127.0.0.1:5432/trainyard_chaos',
  logLevel: process.env['CHAOS_LOG_LEVEL'] ?? 'warn',
  readyTimeoutS: envNumber('CHAOS_READY_TIMEOUT_S', 180),
  observe: process.env['CHAOS_OBSERVE'] !== '0',
  keep: process.env['CHAOS_KEEP'] === '1',
};
for (const backend of config.backends)
  if (backend !== 'pglite' && backend !== 'postgres') throw new Error(`unknown back end ${backend}`);
if (config.maxS < config.minS) throw new Error('CHAOS_MAX_S must be at least CHAOS_MIN_S');

const botLogin = 'trainyard[bot]';
const repository = { owner: DEMO_REPOSITORY.owner, name: DEMO_REPOSITORY.name };

interface Life extends LifeSample {
  kind: 'chaos' | 'final';
  spawnedAt: number;
  readyAt: number | null;
  plannedMs: number;
  outcome: string;
  newestEventId: number;
}

interface BackendReport {
  backend: string;
  dir: string;
  lives: Life[];
  failures: string[];
  check: CheckResult | null;
  wallMs: number;
  stopExit: string;
}

// ---- safety: every child dies with the bench, and the bench has a deadline ----
let exiting = false;
const bail = (code: number, why: string) => {
  if (exiting) return;
  exiting = true;
  process.stderr.write(`\nbench:chaos: ${why}; killing the product\n`);
  killAll();
  process.exit(code);
};
process.on('SIGINT', () => bail(130, 'interrupted'));
process.on('SIGTERM', () => bail(143, 'terminated'));
process.on('exit', () => killAll());
const perBackendS =
  config.cycles * (config.maxS + config.readyTimeoutS / 3 + 20) + config.readyTimeoutS + config.settleS + 300;
const deadlineMs = config.backends.length * perBackendS * 1000 * 1.5;
setTimeout(() => bail(3, `deadline of ${(deadlineMs / 60_000).toFixed(0)} min exceeded`), deadlineMs).unref();

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function adminQuery(databaseUrl: string, statements: string[]): Promise<void> {
  const admin = new URL(databaseUrl);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    for (const statement of statements) await client.query(statement);
  } finally {
    await client.end();
  }
}
const databaseName = (url: string) => decodeURIComponent(new URL(url).pathname.slice(1)).replace(/"/g, '""');

/** Watches one start: the time to its first answer, then the newest event's time (the sandbox clock as the app saw it). */
function watch(product: RunningProduct, life: Life, port: number): { stop(): Promise<void> } {
  let stopped = false;
  const base = `http://127.0.0.1:${port}`;
  const loop = (async () => {
    for (let i = 0; !stopped && product.exit === null && i < 1_000_000; i++) {
      if (life.readyAt === null) {
        const answer = await getJson(`${base}/v1/openapi.json`, { timeoutMs: 1_000 });
        if (answer?.status === 200) life.readyAt = Date.now();
        else await sleep(100);
        continue;
      }
      if (product.apiKey !== null) {
        const answer = await getJson(
          `${base}/v1/repos/${repository.owner}/${repository.name}/logs?per_page=1`,
          {
            token: product.apiKey,
            timeoutMs: 2_000,
          },
        );
        const newest = (answer?.body as { events?: { id: number; received_at: string }[] } | null)
          ?.events?.[0];
        if (answer?.status === 200 && newest) {
          const at = Date.parse(newest.received_at);
          life.apiObservedMax = Math.max(life.apiObservedMax ?? at, at);
          life.newestEventId = Math.max(life.newestEventId, newest.id);
        }
      }
      await sleep(1_000);
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

async function waitReady(product: RunningProduct, life: Life, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (life.readyAt === null && product.exit === null && Date.now() < until) await sleep(100);
  return life.readyAt !== null;
}

/** The pull request numbers the queue's status shows (batches and waiting). */
function queuedNumbers(body: unknown): Set<number> {
  const numbers = new Set<number>();
  const visit = (node: unknown, depth: number) => {
    if (depth > 10 || node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const item of node) visit(item, depth + 1);
      return;
    }
    const record = node as Record<string, unknown>;
    if (typeof record['number'] === 'number' && 'queued_at' in record) numbers.add(record['number']);
    for (const child of Object.values(record)) visit(child, depth + 1);
  };
  visit(body, 0);
  return numbers;
}

async function runBackend(backend: 'pglite' | 'postgres', seed: number): Promise<BackendReport> {
  const startedAt = Date.now();
  const random = createRandom(seed);
  const dir = mkdtempSync(join(tmpdir(), `trainyard-chaos-${backend}-`));
  const dataDir = join(dir, 'db');
  const sandboxDir = join(dir, 'sandbox'); // what start-system.ts makes of TRAINYARD_DATA_DIR
  const journalPath = join(dir, 'journal.ndjson');
  const logFile = join(dir, 'product.log');
  const failures: string[] = [];
  const lives: Life[] = [];
  if (backend === 'postgres') {
    const name = databaseName(config.databaseUrl);
    await adminQuery(config.databaseUrl, [
      `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`,
      `CREATE DATABASE "${name}"`,
    ]);
  }
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of [
    'APP_ID',
    'PRIVATE_KEY',
    'PRIVATE_KEY_PATH',
    'WEBHOOK_SECRET',
    'DATABASE_URL',
    'TRAINYARD_PUBLIC_URL',
  ])
    delete env[name];
  Object.assign(env, {
    TRAINYARD_DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: config.logLevel,
    SANDBOX_TIME_SCALE: String(config.timeScale),
    ...(backend === 'postgres' ? { DATABASE_URL: config.databaseUrl } : {}),
    ...(config.observe ? { CHAOS_JOURNAL: journalPath } : {}),
  });
  console.log(`\n== ${backend}: ${dir} (port ${port}, seed ${seed})`);

  const start = (kind: Life['kind'], plannedMs: number) => {
    const life: Life = {
      index: lives.length,
      kind,
      resumeNow: storedSandboxNow(sandboxDir),
      apiObservedMax: null,
      spawnedAt: 0,
      readyAt: null,
      plannedMs,
      outcome: '',
      newestEventId: 0,
    };
    const product = startProduct({
      repoRoot,
      env,
      observer: config.observe ? observerPath : null,
      logFile,
      label: `${backend} start ${life.index + 1} (${kind})`,
    });
    life.spawnedAt = product.spawnedAt;
    lives.push(life);
    return { life, product, watcher: watch(product, life, port) };
  };

  let consecutiveFailures = 0;
  for (let cycle = 0; cycle < config.cycles && consecutiveFailures < 3; cycle++) {
    const plannedMs = Math.round((config.minS + random.next() * (config.maxS - config.minS)) * 1000);
    const { life, product, watcher } = start('chaos', plannedMs);
    if (cycle === 0 && !(await waitReady(product, life, config.readyTimeoutS * 1000))) {
      failures.push(
        `start 1 did not answer within ${config.readyTimeoutS} s${product.exit ? ` (exited ${JSON.stringify(product.exit)})` : ''}: ${product.stderrTail.slice(-500)}`,
      );
      killGroup(product);
      await waitExit(product, 15_000);
      await watcher.stop();
      life.outcome = 'never answered';
      break;
    }
    const killAt = (cycle === 0 ? life.readyAt! : life.spawnedAt) + plannedMs;
    const exit = await waitExit(product, killAt - Date.now());
    if (exit !== null) {
      consecutiveFailures++;
      life.outcome = `exited by itself (code ${exit.code}, signal ${exit.signal})`;
      failures.push(
        `start ${life.index + 1} exited by itself after ${((exit.at - life.spawnedAt) / 1000).toFixed(1)} s (code ${exit.code}): ${product.stderrTail.trim().slice(-600)}`,
      );
    } else {
      killGroup(product, 'SIGKILL');
      const dead = await waitExit(product, 15_000);
      if (dead === null) failures.push(`start ${life.index + 1} did not die within 15 s of SIGKILL`);
      consecutiveFailures = 0;
      life.outcome = life.readyAt === null ? 'killed before answering' : 'killed';
    }
    await watcher.stop();
    const ready = life.readyAt === null ? '-' : `${((life.readyAt - life.spawnedAt) / 1000).toFixed(1)} s`;
    console.log(
      `  cycle ${String(cycle + 1).padStart(2)}: ${life.outcome} after ${(((product.exit?.at ?? Date.now()) - life.spawnedAt) / 1000).toFixed(1)} s ` +
        `(planned ${(plannedMs / 1000).toFixed(1)} s, answered after ${ready}, load ${loadavg()[0]!.toFixed(1)})`,
    );
  }
  if (consecutiveFailures >= 3) failures.push('three starts in a row failed: the cycles stopped there');

  // The last start: work settles, then Ctrl-C.
  let finalQueue: { numbers: Set<number>; newestEventIdBefore: number } | null = null;
  let stopExit = 'not run';
  {
    const { life, product, watcher } = start('final', config.settleS * 1000);
    if (!(await waitReady(product, life, config.readyTimeoutS * 1000))) {
      failures.push(
        `the final start did not answer within ${config.readyTimeoutS} s${product.exit ? ` (exited ${JSON.stringify(product.exit)})` : ''}: ${product.stderrTail.trim().slice(-600)}`,
      );
    } else {
      const exit = await waitExit(product, config.settleS * 1000);
      if (exit !== null)
        failures.push(
          `the final start exited by itself (code ${exit.code}): ${product.stderrTail.trim().slice(-600)}`,
        );
      else if (product.apiKey !== null) {
        const base = `http://127.0.0.1:${port}/v1/repos/${repository.owner}/${repository.name}`;
        const logs = await getJson(`${base}/logs?per_page=1`, { token: product.apiKey, timeoutMs: 5_000 });
        const newest = (logs?.body as { events?: { id: number }[] } | null)?.events?.[0]?.id ?? 0;
        const status = await getJson(`${base}/merge-queue/status`, {
          token: product.apiKey,
          timeoutMs: 5_000,
        });
        if (status?.status === 200)
          finalQueue = { numbers: queuedNumbers(status.body), newestEventIdBefore: newest };
        else failures.push(`the final queue status could not be read (${status?.status ?? 'no answer'})`);
      }
    }
    await watcher.stop();
    const stopAsked = Date.now();
    killGroup(product, 'SIGINT');
    const exit = await waitExit(product, 90_000);
    if (exit === null) {
      failures.push('the product did not stop within 90 s of SIGINT (killed)');
      killGroup(product, 'SIGKILL');
      await waitExit(product, 15_000);
      stopExit = 'killed after 90 s';
    } else {
      stopExit = `exit code ${exit.code}${exit.signal ? ` signal ${exit.signal}` : ''} after ${((exit.at - stopAsked) / 1000).toFixed(1)} s`;
      if (exit.code !== 0)
        failures.push(`the clean stop ended with ${stopExit}: ${product.stderrTail.trim().slice(-600)}`);
    }
    life.outcome = `stopped (${stopExit})`;
    console.log(
      `  final: answered after ${life.readyAt === null ? '-' : ((life.readyAt - life.spawnedAt) / 1000).toFixed(1)} s, ran ${config.settleS} s, ${life.outcome}`,
    );
  }

  writeFileSync(
    join(dir, 'run.json'),
    JSON.stringify({
      backend,
      lives,
      failures,
      stopExit,
      observe: config.observe,
      finalQueue: finalQueue && {
        numbers: [...finalQueue.numbers],
        newestEventIdBefore: finalQueue.newestEventIdBefore,
      },
    }),
  );
  const check = await checkDir(dir, backend, lives, finalQueue, config.observe, failures);
  return { backend, dir, lives, failures, check, wallMs: Date.now() - startedAt, stopExit };
}

/** Reads what a run left in `dir` (and the database) and checks the invariants. */
async function checkDir(
  dir: string,
  backend: 'pglite' | 'postgres',
  lives: Life[],
  finalQueue: { numbers: Set<number>; newestEventIdBefore: number } | null,
  observe: boolean,
  failures: string[],
): Promise<CheckResult | null> {
  try {
    const sandbox = await readSandboxState(join(dir, 'sandbox'));
    const db = await readDatabase(
      backend === 'postgres' ? { databaseUrl: config.databaseUrl } : { dataDir: join(dir, 'db') },
      repository,
    );
    const journal = observe ? readJournal(join(dir, 'journal.ndjson')) : null;
    return checkInvariants({ sandbox, db, journal, lives, finalQueue, repository, botLogin, handledEvents });
  } catch (error) {
    failures.push(
      `the state left behind could not be read or checked: ${(error as Error).stack ?? String(error)}`,
    );
    return null;
  }
}

/** CHAOS_RECHECK=<dir>: the checks again on a kept run (its database too, for PostgreSQL at CHAOS_DATABASE_URL). */
async function recheck(dir: string): Promise<BackendReport> {
  const run = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as {
    backend: 'pglite' | 'postgres';
    lives: Life[];
    failures: string[];
    stopExit: string;
    observe: boolean;
    finalQueue: { numbers: number[]; newestEventIdBefore: number } | null;
  };
  const finalQueue = run.finalQueue && {
    numbers: new Set(run.finalQueue.numbers),
    newestEventIdBefore: run.finalQueue.newestEventIdBefore,
  };
  const failures = [...run.failures];
  const check = await checkDir(dir, run.backend, run.lives, finalQueue, run.observe, failures);
  return { backend: run.backend, dir, lives: run.lives, failures, check, wallMs: 0, stopExit: run.stopExit };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function printReport(report: BackendReport): boolean {
  const { check, lives } = report;
  const restarts = lives.filter((l) => l.readyAt !== null).map((l) => (l.readyAt! - l.spawnedAt) / 1000);
  const killedEarly = lives.filter((l) => l.outcome === 'killed before answering').length;
  const cycles = lives.filter((l) => l.kind === 'chaos').length;
  const fmt = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : '-');
  console.log(
    `\n== ${report.backend}: ${cycles} kill cycles + final run, ${(report.wallMs / 60_000).toFixed(1)} min`,
  );
  console.log(
    `  restart (s from spawn to answering GET /v1/openapi.json): min ${fmt(Math.min(...restarts))} / median ${fmt(median(restarts))} / max ${fmt(Math.max(...restarts))} over ${restarts.length} starts; ${killedEarly} killed before answering`,
  );
  console.log(`  clean stop: ${report.stopExit}`);
  if (check) {
    const f = check.figures;
    console.log(
      `  pull requests: ${f.pullRequests} (${f.personPullRequests} by people), ${f.mergedInSandbox} merged in the sandbox, ${f.mergedEvents} action.queue.merged events; ` +
        `${f.queueCommitsOnMain} queue commits on main, ${f.passedTrees} trees passed CI`,
    );
    console.log(
      `  events: ${f.events}; webhook deliveries stored: ${f.deliveriesStored}, acknowledged to the sandbox: ${f.deliveriesAcknowledged ?? 'n/a'} (${f.deliveriesIgnored} of them events the app ignores); sandbox writes acknowledged: ${f.sandboxWritesAcknowledged ?? 'n/a'}`,
    );
    for (const note of check.notes.slice(0, 8)) console.log(`  note: ${note}`);
    if (check.notes.length > 8) console.log(`  … ${check.notes.length - 8} more notes`);
    console.log('  invariant                                  violations');
    for (const id of Object.keys(invariantNames).map(Number) as InvariantId[]) {
      const list = check.violations.filter((v) => v.invariant === id);
      console.log(`  ${id}. ${invariantNames[id].padEnd(40)} ${list.length}`);
      for (const v of list.slice(0, 5)) console.log(`       - ${v.what}`);
      if (list.length > 5) console.log(`       … ${list.length - 5} more`);
    }
  }
  for (const failure of report.failures) console.log(`  FAILURE: ${failure}`);
  const clean = report.failures.length === 0 && check !== null && check.violations.length === 0;
  console.log(`  ${clean ? 'CLEAN' : 'NOT CLEAN'}; state and logs: ${report.dir}`);
  return clean;
}

if (process.env['CHAOS_RECHECK']) {
  let clean = true;
  for (const dir of process.env['CHAOS_RECHECK'].split(','))
    clean = printReport(await recheck(dir.trim())) && clean;
  process.exit(clean ? 0 : 1);
}

const started = Date.now();
console.log(
  `bench:chaos: ${config.cycles} cycles per back end (${config.backends.join(', ')}), kill after ${config.minS}–${config.maxS} s, ` +
    `seed ${config.seed}, settle ${config.settleS} s, SANDBOX_TIME_SCALE ${config.timeScale}, observer ${config.observe ? 'on' : 'off'}`,
);
const reports: BackendReport[] = [];
for (const [i, backend] of config.backends.entries())
  reports.push(await runBackend(backend, config.seed + i));
let allClean = true;
for (const report of reports) {
  const clean = printReport(report);
  allClean &&= clean;
  if (clean && !config.keep) {
    rmSync(report.dir, { recursive: true, force: true });
    if (report.backend === 'postgres')
      await adminQuery(config.databaseUrl, [
        `DROP DATABASE IF EXISTS "${databaseName(config.databaseUrl)}" WITH (FORCE)`,
      ]);
  }
}
console.log(
  `\nbench:chaos: ${allClean ? 'all invariants hold' : 'VIOLATIONS or failures (see above)'}; ${((Date.now() - started) / 60_000).toFixed(1)} min in all`,
);
process.exit(allClean ? 0 : 1);
