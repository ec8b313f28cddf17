/*
 * bench:load's server, in a process of its own so that autocannon's work is not charged to it
 * and its event loop's delay is its own: the v1 API and the signed webhook endpoint on one
 * Fastify server, as app/main.ts wires them, on the benchmark's PostgreSQL schema. The GitHub
 * App's loops are not started: deliveries are verified and stored (the acknowledgement path);
 * processing them is bench:webhooks' subject, and would need a GitHub.
 */
import { generateKeyPairSync } from 'node:crypto';
import pino from 'pino';
import { GithubPermissions } from '../../app/api/auth/github-permissions.ts';
import { buildServer } from '../../app/api/server.ts';
import { createGithubApp } from '../../app/github/github-app.ts';
import { openStore } from '../../app/store/database.ts';
import { EventLoopWatch, type LoopBlock, trackRequests } from '../support/event-loop-watch.ts';

export interface LoadServerOptions {
  databaseUrl: string;
  schema: string;
  /** The server's clock: the seeded history's last instant, so "the last day" holds data. */
  now: string;
  webhookSecret: string;
  maxConnections: number;
}

export type LoadServerMessage =
  | { type: 'ready'; url: string }
  | {
      type: 'figures';
      eventLoopMaxMs: number;
      eventLoopP99Ms: number;
      /** The longest block the server's own CPU time can account for (test/support/event-loop-watch.ts). */
      ownBlockMaxMs: number;
      /** The longest blocks in wall time, with the requests in flight then. */
      blocks: LoopBlock[];
      rss: number;
      rssPeak: number;
    };

const options = JSON.parse(process.env['LOAD_SERVER_OPTIONS'] ?? '{}') as LoadServerOptions;
const send = (message: LoadServerMessage) => process.send?.(message);

const store = await openStore({
  databaseUrl: options.databaseUrl,
  schema: options.schema,
  maxConnections: options.maxConnections,
});
const logger = pino({ level: 'warn' });
const now = () => new Date(options.now);
// GitHub tokens are not used by the load (application keys are); nothing leaves loopback.
const app = await buildServer({
  store,
  github: new GithubPermissions({ apiBaseUrl: 'http://127.0.0.1:9' }),
  now,
  logger,
});
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
await createGithubApp({
  store,
  server: app,
  credentials: {
    appId: 1,
    privateKey: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
    webhookSecret: options.webhookSecret,
    baseUrl: 'http://127.0.0.1:9',
  },
  logger,
  appSlug: 'trainyard-load',
  now,
});
const url = await app.listen({ host: '127.0.0.1', port: 0 });

const inFlight = trackRequests(app.server, 120);
const loop = new EventLoopWatch(100, () => inFlight(4));
let blocks: LoopBlock[] = [];
let rssPeak = 0;
const sampler = setInterval(() => {
  rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
  blocks = [...blocks, ...loop.takeBlocks()].sort((a, b) => b.lagMs - a.lagMs).slice(0, 5);
}, 100);

process.on('message', async (message: { type: string }) => {
  if (message.type === 'reset') {
    loop.reset();
    loop.takeBlocks();
    blocks = [];
    rssPeak = process.memoryUsage.rss();
  } else if (message.type === 'figures') {
    send({
      type: 'figures',
      eventLoopMaxMs: loop.figures().maxDelayMs,
      eventLoopP99Ms: loop.figures().p99DelayMs,
      ownBlockMaxMs: loop.figures().maxOwnBlockMs,
      blocks,
      rss: process.memoryUsage.rss(),
      rssPeak,
    });
  } else if (message.type === 'stop') {
    clearInterval(sampler);
    loop.stop();
    await app.close();
    await store.close();
    process.exit(0);
  }
});
process.on('disconnect', () => process.exit(0));
send({ type: 'ready', url });
