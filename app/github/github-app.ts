import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { Probot, ProbotOctokit } from 'probot';
import type { IdSource } from '../queue/ids.ts';
import type { Store } from '../store/database.ts';
import { pruneOutbox } from '../store/outbox.ts';
import { DEFAULT_RETENTION_DAYS, pruneRetention } from '../store/retention.ts';
import { pruneDeliveries } from '../store/webhook-deliveries.ts';
import {
  type GithubAppCredentials,
  InstallationOctokits,
  productionRequestPolicy,
  type RequestPolicy,
} from './client/octokit.ts';
import type { GithubRequestObserver } from './client/request-observer.ts';
import { type DeliveryObserver, DeliveryProcessor } from './inbox/delivery-processor.ts';
import {
  commitDeliveries,
  type DeliveryShell,
  handledEvents,
  isGroupable,
  translateDelivery,
} from './inbox/delivery-step.ts';
import { registerWebhookEndpoint, type WebhookEndpointOptions } from './inbox/webhook-endpoint.ts';
import { WebhookInbox } from './inbox/webhook-inbox.ts';
import { Scheduler } from './loops/scheduler.ts';
import { createEffectRunner, type ExecuteEffectOptions } from './outbox/effect-runner.ts';
import { appIdentityOf } from './outbox/effects/ownership.ts';
import { type EffectObserver, OutboxWorker } from './outbox/outbox-worker.ts';
import { FactsCache } from './translation/facts-cache.ts';
import { RepositoryLookup } from './translation/repository-lookup.ts';
import { checkPayload } from './translation/webhooks/payload.schema.ts';

export interface GithubAppOptions {
  store: Store;
  /** The HTTP server of the v1 API: the webhook endpoint joins it (before it listens). */
  server: FastifyInstance;
  credentials: GithubAppCredentials & { webhookSecret: string };
  logger: Logger;
  /** The app's slug, for `@<slug> queue`; asked from GitHub (GET /app) when not given. */
  appSlug?: string;
  policy?: RequestPolicy;
  effectOptions?: ExecuteEffectOptions;
  now?: () => Date;
  ids?: IdSource;
  /** Polling bounds of the background loops (tests shorten them). */
  pollMs?: number;
  /** Repository rows kept a few seconds (tests pass their own to look behind it). */
  repositories?: RepositoryLookup;
  /** Bounds of the webhook bodies not yet verified (tests shorten them). */
  webhookBodies?: Omit<WebhookEndpointOptions, 'secret'>;
  /** Days events and statistics are kept (TRAINYARD_RETENTION_DAYS; default 90). */
  retentionDays?: number;
  /** The metrics' hooks (app/ops/metrics.ts); nothing is counted without them. */
  observers?: GithubObservers;
}

/** What the metrics are told by the GitHub side. */
export interface GithubObservers {
  webhookReceived?: (event: string) => void;
  deliveries?: DeliveryObserver;
  effects?: EffectObserver;
  githubRequests?: GithubRequestObserver;
}

export interface GithubApp {
  appSlug: string;
  processor: DeliveryProcessor;
  worker: OutboxWorker;
  scheduler: Scheduler;
  /** Starts the background loops (webhook processing, outbox, timers, pruning). */
  start(): void;
  stop(): Promise<void>;
  /**
   * Tests and the sandbox: process every stored delivery, run every claimable effect and fire
   * every due wake-up, again and again until none of them has anything left to do now.
   */
  runUntilIdle(): Promise<number>;
  /** One pruning run now, as the loop runs every hour (tests, and a caller that cannot wait). */
  prune(): Promise<void>;
}

const PRUNE_EVERY_MS = 60 * 60_000;
const OUTBOX_RETENTION_MS = 7 * 24 * 3600_000;

/**
 * The GitHub App, composed (issue #4's data flow): signed webhooks are stored by the inbox and
 * acknowledged; the delivery processor translates them (inbox/delivery-step.ts) and commits their
 * steps; the outbox worker carries effects out on GitHub; the scheduler feeds wake-ups back. Every part is shared-database safe, so several instances may run.
 */
export async function createGithubApp(options: GithubAppOptions): Promise<GithubApp> {
  const { store, logger, credentials } = options;
  const policy = options.policy ?? productionRequestPolicy;
  const now = options.now ?? (() => new Date());
  const ids = options.ids ?? { uuid: randomUUID };
  const observers = options.observers ?? {};
  const octokits = new InstallationOctokits(credentials, {
    policy,
    log: logger.child({ name: 'octokit' }),
    ...(observers.githubRequests ? { observer: observers.githubRequests } : {}),
  });
  const probot = new Probot({
    appId: credentials.appId,
    privateKey: credentials.privateKey,
    secret: credentials.webhookSecret,
    ...(credentials.baseUrl === undefined ? {} : { baseUrl: credentials.baseUrl }),
    // Probot authenticates as the app (GET /app below); quiet but for the fatal.
    log: logger.child({ name: 'probot' }, { level: logger.isLevelEnabled('fatal') ? 'fatal' : 'silent' }),
    Octokit: ProbotOctokit.defaults({ retry: { enabled: policy.retries > 0 }, throttle: { enabled: false } }),
  });
  const appSlug = options.appSlug ?? (await fetchAppSlug(probot));

  // Filled below: a committed step wakes the loops, which are built after the shell.
  const loops: { worker?: OutboxWorker; scheduler?: Scheduler } = {};
  const shell: DeliveryShell = {
    store,
    octokits,
    cache: new FactsCache(),
    repositories: options.repositories ?? new RepositoryLookup(),
    appSlug,
    ids,
    now,
    stepped: () => {
      loops.worker?.wake();
      loops.scheduler?.wake();
    },
  };
  const processor = new DeliveryProcessor({
    db: store.db,
    translate: (delivery, shared) => translateDelivery(shell, delivery, shared),
    commit: (entries) => commitDeliveries(shell, entries),
    groupable: isGroupable,
    logger: logger.child({ name: 'webhooks' }),
    ...(observers.deliveries ? { observer: observers.deliveries } : {}),
    now,
    ...(options.pollMs === undefined ? {} : { pollMs: options.pollMs }),
  });
  const worker = new OutboxWorker({
    store,
    execute: createEffectRunner({
      store,
      octokits,
      logger,
      identity: appIdentityOf(appSlug),
      ...(options.effectOptions ? { options: options.effectOptions } : {}),
    }),
    logger: logger.child({ name: 'outbox' }),
    ...(observers.effects ? { observer: observers.effects } : {}),
    ids,
    now,
    ...(options.pollMs === undefined ? {} : { pollMs: options.pollMs }),
  });
  const scheduler = new Scheduler({
    store,
    logger: logger.child({ name: 'scheduler' }),
    ids,
    now,
    ...(options.pollMs === undefined ? {} : { maxSleepMs: options.pollMs }),
  });
  Object.assign(loops, { worker, scheduler });

  await registerWebhookEndpoint(
    options.server,
    new WebhookInbox({
      db: store.inboxDb,
      handledEvents,
      checkPayload,
      now,
      received: (event) => {
        observers.webhookReceived?.(event);
        processor.wake();
      },
    }),
    { ...options.webhookBodies, secret: credentials.webhookSecret },
  );

  let pruner: NodeJS.Timeout | null = null;
  const prune = async () => {
    try {
      const at = now();
      await pruneDeliveries(store.db, { now: at });
      await pruneOutbox(store.db, new Date(at.getTime() - OUTBOX_RETENTION_MS));
      const retention = await pruneRetention(store.db, {
        now: at,
        retentionDays: options.retentionDays ?? DEFAULT_RETENTION_DAYS,
      });
      if (Object.keys(retention.deleted).length > 0 || !retention.complete) {
        // Not complete: a backlog (a first run on old data), worked off over the next runs.
        logger.info(
          {
            cutoff: retention.cutoff.toISOString(),
            deleted: retention.deleted,
            complete: retention.complete,
          },
          'pruned events and statistics older than the retention',
        );
      }
    } catch (error) {
      logger.warn({ error: (error as Error).message }, 'pruning failed; trying again later');
    }
  };

  return {
    appSlug,
    processor,
    worker,
    scheduler,
    prune,
    start() {
      processor.start();
      worker.start();
      scheduler.start();
      pruner = setInterval(() => void prune(), PRUNE_EVERY_MS);
      pruner.unref();
    },
    async stop() {
      if (pruner !== null) clearInterval(pruner);
      await Promise.all([processor.stop(), worker.stop(), scheduler.stop()]);
    },
    async runUntilIdle() {
      let total = 0;
      for (;;) {
        const done =
          (await processor.runUntilIdle()) +
          (await worker.runUntilIdle()) +
          (await scheduler.runUntilIdle(now()));
        total += done;
        if (done === 0) return total;
      }
    },
  };
}

/** GET /app, as the app (JWT): its slug names the bot in comments. */
async function fetchAppSlug(probot: Probot): Promise<string> {
  const octokit = await probot.auth();
  const { data } = await octokit.request('GET /app');
  const slug = (data as { slug?: string } | null)?.slug;
  if (!slug) throw new Error('GitHub did not say what this app is called (GET /app has no slug)');
  return slug;
}
