import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { GithubPermissions } from './api/auth/github-permissions.ts';
import { buildServer } from './api/server.ts';
import { type RequestPolicy, sandboxRequestPolicy } from './github/client/octokit.ts';
import { createGithubApp, type GithubApp } from './github/github-app.ts';
import { webhookPath } from './github/inbox/webhook-endpoint.ts';
import { TrainyardMetrics } from './ops/metrics.ts';
import type { MetricsAccess } from './ops/metrics-access.ts';
import { startMetricsServer } from './ops/metrics-server.ts';
import { registerOpsRoutes } from './ops/ops-routes.ts';
import { Readiness } from './ops/readiness.ts';
import type { Sandbox, StartSandboxOptions } from './sandbox/start-sandbox.ts';
import { hasGithubCredentials, type Settings } from './settings.ts';
import type { Store } from './store/database.ts';
import { findLatestRecordedTime } from './store/latest-time.ts';
import { observeSteps } from './store/step-observer.ts';

/** How the GitHub side runs: the real GitHub App, or the local sandbox code host. */
export interface GithubSide {
  mode: 'production' | 'sandbox';
  credentials: { appId: number; privateKey: string; webhookSecret: string; baseUrl: string };
  appSlug?: string;
  now?: () => Date;
  pollMs?: number;
  /** How requests to GitHub are retried and paced (default: as GitHub asks). */
  policy?: RequestPolicy;
  sandbox?: Sandbox;
}

/** Sandbox options beyond what the settings say: tests pass a virtual clock, a seed, a workload. */
export type SandboxOverrides = Partial<
  Omit<StartSandboxOptions, 'dataDir' | 'webhookUrl' | 'timeScale' | 'logger'>
>;

export interface StartSystemOptions {
  settings: Settings;
  /** Open already: the caller owns it and closes it after stop(). */
  store: Store;
  logger: Logger;
  sandbox?: SandboxOverrides;
}

/** Trainyard up and listening: the GitHub side, the HTTP server (v1 API, webhooks) and the GitHub App. */
export interface TrainyardSystem {
  side: GithubSide;
  server: FastifyInstance;
  /** Its background loops are not started: the caller runs app.start() (or drives runUntilIdle()). */
  app: GithubApp;
  /** The server's base URL. */
  address: string;
  /** The metrics' registry and hooks (GET /metrics). */
  metrics: TrainyardMetrics;
  /** What GET /readyz checks. */
  readiness: Readiness;
  /** The base URL of TRAINYARD_METRICS_PORT's server, when there is one. */
  metricsAddress: string | null;
  /** The system's clock: the sandbox's in sandbox mode, the wall clock in production. */
  now: () => Date;
  /** Stops the app's loops, the HTTP server and the sandbox; not the store. */
  stop(): Promise<void>;
}

/**
 * What `npm start` runs on an open store: the GitHub App with credentials, else the sandbox
 * code host with its demo workload (SANDBOX mode); then one HTTP server for the v1 API and the
 * webhook endpoint, listening.
 */
export async function startSystem(options: StartSystemOptions): Promise<TrainyardSystem> {
  const { settings, store, logger } = options;
  const side = hasGithubCredentials(settings)
    ? productionSide(settings)
    : await startSandboxSide(settings, logger, options.sandbox ?? {}, store);
  const now = side.now ?? (() => new Date());
  const metrics = new TrainyardMetrics({ db: store.readDb, mode: side.mode, now });
  observeSteps(store.db, metrics.stepCommitted);
  let metricsServer: FastifyInstance | null = null;
  try {
    const server = await buildServer({
      store,
      github: new GithubPermissions({ apiBaseUrl: side.credentials.baseUrl }),
      publicUrl: settings.TRAINYARD_PUBLIC_URL,
      trustProxy: settings.TRAINYARD_TRUST_PROXY,
      logger,
      // The sandbox's webhooks come several a second: their request lines would drown the rest.
      requestLogLevel: side.mode === 'sandbox' ? 'debug' : 'info',
      observeRequest: metrics.httpRequestServed,
      ...(side.now ? { now: side.now } : {}),
    });
    const app = await createGithubApp({
      store,
      server,
      credentials: side.credentials,
      logger,
      ...(side.appSlug ? { appSlug: side.appSlug } : {}),
      ...(side.now ? { now: side.now } : {}),
      ...(side.pollMs ? { pollMs: side.pollMs } : {}),
      ...(side.policy ? { policy: side.policy } : {}),
      ...(settings.TRAINYARD_RETENTION_DAYS ? { retentionDays: settings.TRAINYARD_RETENTION_DAYS } : {}),
      observers: {
        webhookReceived: metrics.webhookReceived,
        deliveries: metrics.deliveries,
        effects: metrics.effectsObserver,
        githubRequests: metrics.githubRequest,
      },
    });
    const readiness = new Readiness({
      db: store.readDb,
      loops: { delivery_processor: app.processor, outbox_worker: app.worker, scheduler: app.scheduler },
    });
    const scrape = { scrape: () => metrics.scrape(), contentType: metrics.contentType };
    const separatePort = settings.TRAINYARD_METRICS_PORT !== undefined;
    registerOpsRoutes(server, {
      readiness,
      metrics: separatePort ? null : { ...scrape, access: metricsAccess(settings, 'api') },
    });
    const address = await server.listen({ port: settings.PORT, host: settings.HOST });
    let metricsAddress: string | null = null;
    if (separatePort) {
      const started = await startMetricsServer({
        port: settings.TRAINYARD_METRICS_PORT!,
        host: settings.TRAINYARD_METRICS_HOST ?? settings.HOST,
        routes: { readiness, metrics: { ...scrape, access: metricsAccess(settings, 'metrics-port') } },
        logger,
      });
      metricsServer = started.server;
      metricsAddress = started.address;
    }
    // PORT=0 takes a free port: the sandbox learns it only now (its deliveries wait and retry).
    if (side.sandbox && settings.PORT === 0) {
      const { port } = server.server.address() as AddressInfo;
      side.sandbox.server.webhooks.configure({
        url: sandboxWebhookUrl(settings.HOST, port),
        secret: side.credentials.webhookSecret,
      });
    }
    let stopped: Promise<void> | null = null;
    return {
      side,
      server,
      app,
      address,
      metrics,
      readiness,
      metricsAddress,
      now,
      stop() {
        // Loops first (work in progress finishes), then HTTP, then the sandbox.
        stopped ??= (async () => {
          await app.stop();
          await server.close();
          await metricsServer?.close();
          observeSteps(store.db, null);
          await side.sandbox?.stop();
        })();
        return stopped;
      },
    };
  } catch (error) {
    await metricsServer?.close();
    observeSteps(store.db, null);
    await side.sandbox?.stop();
    throw error;
  }
}

/**
 * Who may read /metrics (docs/operations.md, "Who may read /metrics"): with a token, whoever
 * sends it; else on a metrics port of its own, whoever reaches that port; else, on the API's
 * port, this machine only, since the metrics name the repositories, private ones included.
 */
function metricsAccess(settings: Settings, where: 'api' | 'metrics-port'): MetricsAccess {
  if (settings.TRAINYARD_METRICS_TOKEN) return { kind: 'token', token: settings.TRAINYARD_METRICS_TOKEN };
  return where === 'metrics-port' ? { kind: 'open' } : { kind: 'loopback' };
}

function productionSide(settings: Settings): GithubSide {
  const privateKey = settings.PRIVATE_KEY
    ? // Environments often carry a PEM on one line with literal \n.
      settings.PRIVATE_KEY.replaceAll('\\n', '\n')
    : readFileSync(settings.PRIVATE_KEY_PATH!, 'utf8');
  return {
    mode: 'production',
    credentials: {
      appId: Number(settings.APP_ID),
      privateKey,
      webhookSecret: settings.WEBHOOK_SECRET!,
      baseUrl: settings.GITHUB_API_URL,
    },
    ...(settings.APP_SLUG ? { appSlug: settings.APP_SLUG } : {}),
  };
}

async function startSandboxSide(
  settings: Settings,
  logger: Logger,
  overrides: SandboxOverrides,
  store: Store,
): Promise<GithubSide> {
  // Only now: production never loads the sandbox.
  const { startSandbox } = await import('./sandbox/start-sandbox.ts');
  // The app's records are stamped with the sandbox's clock: it must not restart before them.
  const recorded = await findLatestRecordedTime(store.db);
  const sandbox = await startSandbox({
    ...(recorded === null ? {} : { resumeNotBefore: recorded.getTime() }),
    ...overrides,
    dataDir: join(dirname(resolve(settings.TRAINYARD_DATA_DIR)), 'sandbox'),
    webhookUrl: sandboxWebhookUrl(settings.HOST, settings.PORT),
    timeScale: settings.SANDBOX_TIME_SCALE,
    logger: logger.child({ name: 'sandbox' }),
  });
  return {
    mode: 'sandbox',
    credentials: {
      appId: sandbox.appId,
      privateKey: sandbox.privateKey,
      webhookSecret: sandbox.webhookSecret,
      baseUrl: sandbox.apiUrl,
    },
    appSlug: 'trainyard',
    // The whole system runs on the sandbox's clock: the wall clock, with the demo's durations
    // SANDBOX_TIME_SCALE times shorter (decision 0030), unless a test gives another clock.
    now: () => new Date(sandbox.clock.now()),
    pollMs: 250,
    policy: sandboxRequestPolicy,
    sandbox,
  };
}

/** Where the sandbox delivers webhooks: the app's endpoint, on loopback when the server listens on every address. */
function sandboxWebhookUrl(host: string, port: number): string {
  const loopback = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return `http://${loopback.includes(':') ? `[${loopback}]` : loopback}:${port}${webhookPath}`;
}
