/*
 * Benchmark of the webhook endpoint's memory under unwanted uploads (issue "Hardening", F3):
 * BENCH_UPLOADS (40) uploads of BENCH_UPLOAD_MIB (25) MiB at once, to a Trainyard that runs as
 * app/main.ts wires it (store, HTTP server with the v1 API and the webhook endpoint, GitHub App
 * and its loops) in a child process of its own, so that only its memory is measured. Three
 * phases, each all at once: unsigned uploads (no X-Hub-Signature-256), badly signed ones with a
 * Content-Length, and badly signed ones sent chunked (no Content-Length). This process sends
 * them on loopback, every one from the same 1 MiB buffer, and samples the server's resident set
 * (/proc/<pid>/status, every 10 ms) before, during and after each phase.
 *
 * Target: the server's RSS grows by at most 100 MB during a phase (its peak over its RSS just
 * before). Figures before and after bodies were verified as they arrive: decision 0022.
 *
 *   npm run bench:webhook-uploads
 *   BENCH_UPLOADS=10 npm run bench:webhook-uploads      # a quick run
 *
 * Environment: BENCH_UPLOADS (40), BENCH_UPLOAD_MIB (25), BENCH_DATABASE_URL (PostgreSQL;
 * default: PGlite in a temporary directory), BENCH_SCHEMA (webhook_uploads_bench),
 * BENCH_PHASE_SECONDS (120: a phase still running then is stopped and reported as such).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { GithubPermissions } from '../../app/api/auth/github-permissions.ts';
import { buildServer } from '../../app/api/server.ts';
import { createGithubApp } from '../../app/github/github-app.ts';
import { webhookPath } from '../../app/github/inbox/webhook-endpoint.ts';
import { openStore, type Store } from '../../app/store/database.ts';
import { repeatedPieces, startUpload } from '../support/raw-upload.ts';
import { freshBenchSchema } from './support/bench-database.ts';
import { envInt } from './support/env-int.ts';
import { table } from './support/stats.ts';

const config = {
  uploads: envInt('BENCH_UPLOADS', 40, 1),
  uploadMiB: envInt('BENCH_UPLOAD_MIB', 25, 1),
  databaseUrl: process.env.BENCH_DATABASE_URL,
  schema: process.env.BENCH_SCHEMA ?? 'webhook_uploads_bench',
  phaseMs: envInt('BENCH_PHASE_SECONDS', 120, 1) * 1000,
};

const TARGET_GROWTH_MB = 100;
const MiB = 1024 * 1024;
const SAMPLE_MS = 10;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const log = (message: string) =>
  process.stdout.write(`[${new Date().toISOString().slice(11, 19)}] ${message}\n`);

// ---------------------------------------------------------------------------------------
// The server process: Trainyard as app/main.ts runs it

async function runServerProcess(): Promise<void> {
  let store: Store;
  let cleanup = async () => {};
  if (config.databaseUrl !== undefined) {
    await freshBenchSchema(config.databaseUrl, config.schema);
    store = await openStore({ databaseUrl: config.databaseUrl, schema: config.schema });
  } else {
    const dir = mkdtempSync(join(tmpdir(), 'trainyard-uploads-bench-'));
    store = await openStore({ dataDir: join(dir, 'db') });
    cleanup = async () => rmSync(dir, { recursive: true, force: true });
  }
  // Production's log level; no request of this benchmark reaches GitHub (nothing listens on port 9).
  const logger = pino({ level: 'info' }, pino.destination({ dest: '/dev/null', sync: false }));
  const server = await buildServer({
    store,
    github: new GithubPermissions({ apiBaseUrl: 'http://127.0.0.1:9' }),
    logger,
  });
  const { privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const app = await createGithubApp({
    store,
    server,
    credentials: {
      appId: 1,
      privateKey,
      baseUrl: 'http://127.0.0.1:9',
      webhookSecret: 'bench-webhook-secret',
    },
    logger,
    appSlug: 'trainyard',
  });
  const url = await server.listen({ host: '127.0.0.1', port: 0 });
  app.start();
  process.on('message', (message: { type?: string }) => {
    if (message.type === 'rss') process.send?.({ type: 'rss', bytes: process.memoryUsage.rss() });
    if (message.type === 'gc') {
      // Twice: what the first collection frees may be referenced by finalizers until the second.
      globalThis.gc?.();
      globalThis.gc?.();
      process.send?.({ type: 'collected' });
    }
  });
  process.send?.({ type: 'ready', url, store: store.location });
  await new Promise<void>((resolve) => {
    process.on('message', (m: { type?: string }) => m.type === 'stop' && resolve());
    process.once('disconnect', () => resolve());
  });
  await app.stop();
  await server.close();
  await store.close();
  await cleanup();
  process.exit(0);
}

// ---------------------------------------------------------------------------------------
// This process: the uploads, and the server's memory

/** The server's resident set: from /proc (Linux), else as the server reports it. */
function rssReader(child: ChildProcess): () => Promise<number> {
  const status = `/proc/${child.pid}/status`;
  try {
    readFileSync(status, 'utf8');
    return async () => {
      const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(status, 'utf8'))?.[1];
      return Number(kb) * 1024;
    };
  } catch {
    return () =>
      new Promise((resolve) => {
        const onMessage = (m: { type?: string; bytes?: number }) => {
          if (m.type !== 'rss') return;
          child.off('message', onMessage);
          resolve(m.bytes ?? 0);
        };
        child.on('message', onMessage);
        child.send({ type: 'rss' });
      });
  }
}

interface Phase {
  name: string;
  /** X-Hub-Signature-256, or none. */
  signature: string | null;
  /** Declared Content-Length; undefined: chunked. */
  contentLength: number | undefined;
}

interface PhaseResult {
  name: string;
  answers: Map<string, number>;
  beforeBytes: number;
  peakBytes: number;
  afterBytes: number;
  seconds: number;
  finished: boolean;
}

let deliveryCount = 0;
const headersOf = (signature: string | null): Record<string, string> => ({
  'content-type': 'application/json',
  'user-agent': 'GitHub-Hookshot/bench',
  'x-github-delivery': `upload-${++deliveryCount}`,
  'x-github-event': 'push',
  ...(signature === null ? {} : { 'x-hub-signature-256': signature }),
});
const FORGED = `sha256=${'0'.repeat(64)}`;

async function runPhase(
  url: string,
  phase: Phase,
  server: { rss: () => Promise<number>; collect: () => Promise<void> },
): Promise<PhaseResult> {
  const { rss } = server;
  // The garbage of start-up or of the phase before is not this phase's.
  await server.collect();
  await sleep(500);
  const beforeBytes = await rss();
  let peakBytes = beforeBytes;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      peakBytes = Math.max(peakBytes, await rss());
      await sleep(SAMPLE_MS);
    }
  })();
  const started = performance.now();
  const uploads = Array.from({ length: config.uploads }, () =>
    startUpload(url, {
      headers: headersOf(phase.signature),
      ...(phase.contentLength === undefined ? {} : { contentLength: phase.contentLength }),
      pieces: repeatedPieces(config.uploadMiB, MiB),
    }),
  );
  const answers = new Map<string, number>();
  const settled = Promise.all(
    uploads.map(async (upload) => {
      const answer = await upload.answer;
      // Closed by the server while still being sent: its answer was lost with the connection.
      const key = 'status' in answer ? String(answer.status) : 'reset';
      answers.set(key, (answers.get(key) ?? 0) + 1);
    }),
  );
  const finished = await Promise.race([settled.then(() => true), sleep(config.phaseMs).then(() => false)]);
  const seconds = (performance.now() - started) / 1000;
  for (const upload of uploads) upload.abort();
  await sleep(1_000);
  sampling = false;
  await sampler;
  const afterBytes = await rss();
  return { name: phase.name, answers, beforeBytes, peakBytes, afterBytes, seconds, finished };
}

async function main(): Promise<void> {
  const mb = (bytes: number) => `${Math.round(bytes / 1e6).toLocaleString('en')} MB`;
  log(
    `webhook uploads: ${config.uploads} at once per phase, ${config.uploadMiB} MiB each; ` +
      `${cpus().length} CPUs, load ${loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}`,
  );
  const child = fork(fileURLToPath(import.meta.url), ['server'], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    // Trainyard's own node flags (package.json's start script), with tsx's loader; a collection
    // before each phase, so that its baseline is what the server holds, not leftover garbage.
    execArgv: [...process.execArgv, ...serverNodeFlags(), '--expose-gc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const ready = await new Promise<{ url: string; store: string }>((resolve, reject) => {
      child.on('message', (m: { type?: string; url?: string; store?: string }) => {
        if (m.type === 'ready') resolve({ url: m.url!, store: m.store! });
      });
      child.once('exit', (code) => reject(new Error(`the server exited (code ${code}) before it was ready`)));
    });
    const url = `${ready.url}${webhookPath}`;
    const server = {
      rss: rssReader(child),
      collect: () =>
        new Promise<void>((resolve) => {
          const onMessage = (m: { type?: string }) => {
            if (m.type !== 'collected') return;
            child.off('message', onMessage);
            resolve();
          };
          child.on('message', onMessage);
          child.send({ type: 'gc' });
        }),
    };
    log(`Trainyard (pid ${child.pid}) on ${ready.url}, store ${ready.store}; settling 2 s`);
    await sleep(2_000);
    const total = config.uploadMiB * MiB;
    const phases: Phase[] = [
      { name: 'unsigned, Content-Length', signature: null, contentLength: total },
      { name: 'badly signed, Content-Length', signature: FORGED, contentLength: total },
      { name: 'badly signed, chunked', signature: FORGED, contentLength: undefined },
    ];
    const results: PhaseResult[] = [];
    for (const phase of phases) {
      log(`${phase.name}: ${config.uploads} uploads…`);
      results.push(await runPhase(url, phase, server));
    }
    const rows = results.map((r) => {
      const growth = r.peakBytes - r.beforeBytes;
      return [
        r.name,
        [...r.answers]
          .sort((a, b) => b[1] - a[1])
          .map(([status, n]) => `${status} ×${n}`)
          .join(', ') + (r.finished ? '' : ' (stopped)'),
        `${r.seconds.toFixed(1)} s`,
        mb(r.beforeBytes),
        mb(r.peakBytes),
        mb(r.afterBytes),
        `+${mb(growth)}`,
        growth <= TARGET_GROWTH_MB * 1e6 ? 'yes' : 'NO',
      ];
    });
    process.stdout.write(
      `\n${table(
        ['phase', 'answers', 'time', 'RSS before', 'peak', '1 s after', 'growth', `≤ ${TARGET_GROWTH_MB} MB`],
        rows,
        2,
      )}\n\nTarget: the server's RSS grows ≤ ${TARGET_GROWTH_MB} MB while ${config.uploads} unwanted uploads of ` +
        `${config.uploadMiB} MiB are in flight (peak over RSS before the phase).\n`,
    );
    const met = results.every((r) => r.finished && r.peakBytes - r.beforeBytes <= TARGET_GROWTH_MB * 1e6);
    process.exitCode = met ? 0 : 1;
  } finally {
    child.send({ type: 'stop' });
    await Promise.race([exited, sleep(10_000).then(() => child.kill())]);
  }
}

/** The V8 flags of package.json's start script, so that the measured server runs as it ships. */
function serverNodeFlags(): string[] {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    scripts: { start: string };
  };
  return manifest.scripts.start.split(/\s+/).filter((token) => /^--max-[a-z-]+=\d+$/.test(token));
}

if (process.argv[2] === 'server') await runServerProcess();
else await main();
