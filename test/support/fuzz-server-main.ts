/*
 * The fuzz target, in a process of its own (forked by fuzz-server.ts): a request that blocks
 * the server's event loop must not block the fuzzer's clock, which has to notice and say so.
 * Seeds a store (PGlite in memory, or a schema of its own on DATABASE_URL), serves the real v1
 * API on loopback, and reports its event loop's delay and its RSS to the parent every 100 ms.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { GithubPermissions } from '../../app/api/auth/github-permissions.ts';
import { buildServer } from '../../app/api/server.ts';
import { openStore, type Store } from '../../app/store/database.ts';
import { EventLoopWatch, trackRequests } from './event-loop-watch.ts';
import { startFakeGithub } from './fuzz-github.ts';
import { seedFuzzStore } from './fuzz-seed.ts';
import { BLOCK_REPORT_MS, type FuzzServerMessage, type FuzzServerOptions } from './fuzz-server.ts';

const options = JSON.parse(process.env['FUZZ_SERVER_OPTIONS'] ?? '{}') as FuzzServerOptions;
const send = (message: FuzzServerMessage) => process.send?.(message);

async function openStoreForFuzz(): Promise<{ store: Store; schema: string | null }> {
  const url = process.env['DATABASE_URL'];
  if (!url) return { store: await openStore({ dataDir: 'memory://' }), schema: null };
  const schema = `fuzz_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  return { store: await openStore({ databaseUrl: url, schema, maxConnections: 10 }), schema };
}

const github = await startFakeGithub();
const { store, schema } = await openStoreForFuzz();
const fixtures = await seedFuzzStore(store, options);
const app = await buildServer({
  store,
  github: new GithubPermissions({ apiBaseUrl: github.url }),
  now: () => new Date(fixtures.now),
  // Server faults are logged (to stderr, which the parent keeps a tail of for its report).
  logger: { level: options.logLevel ?? 'error' },
});
const url = await app.listen({ port: 0, host: '127.0.0.1' });

// Which requests were in flight when the loop was blocked: the suspects a report names.
const inFlight = trackRequests(app.server, 160);
const loop = new EventLoopWatch(BLOCK_REPORT_MS, () => inFlight(5));

const beat = setInterval(() => {
  const { maxDelayMs, maxOwnBlockMs } = loop.figures();
  send({
    type: 'beat',
    rss: process.memoryUsage.rss(),
    eventLoopMaxMs: maxDelayMs,
    ownBlockMaxMs: maxOwnBlockMs,
    blocks: loop.takeBlocks(),
  });
}, 100);

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  clearInterval(beat);
  loop.stop();
  await app.close();
  await store.close();
  await github.close();
  if (schema) {
    const admin = new pg.Client({ connectionString: process.env['DATABASE_URL'] });
    await admin.connect();
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  }
  process.exit(0);
}

process.on('message', (message: { type: string }) => {
  if (message.type === 'reset') loop.reset();
  if (message.type === 'stop') void stop();
});
// The parent went away (a crashed test run): do not linger.
process.on('disconnect', () => void stop());
send({ type: 'ready', url, fixtures, schema });
