import { startActivitySummary } from './activity-summary.ts';
import type { GithubApp } from './github/github-app.ts';
import { webhookPath } from './github/inbox/webhook-endpoint.ts';
import { chooseLogFormat, createLogger } from './logging.ts';
import { readSettings, type Settings } from './settings.ts';
import { type GithubSide, startSystem } from './start-system.ts';
import { createApiKey } from './store/api-keys.ts';
import { DataDirLockedError } from './store/data-dir-lock.ts';
import { openStore, type Store } from './store/database.ts';

async function start(settings: Settings) {
  // Readable lines at a terminal, JSON otherwise (or as LOG_FORMAT says).
  const logger = createLogger({
    level: settings.LOG_LEVEL,
    format: chooseLogFormat(settings.LOG_FORMAT, process.stdout.isTTY === true),
  });
  // 1. Storage: PostgreSQL when DATABASE_URL is set, else embedded PGlite.
  const store = await openStore({ databaseUrl: settings.DATABASE_URL, dataDir: settings.TRAINYARD_DATA_DIR });
  logger.info({ store: store.location }, 'store ready');

  // 2. GitHub: the App with credentials, else the sandbox code host with its demo workload;
  // 3. one HTTP server: the v1 API and the webhook endpoint.
  const system = await startSystem({ settings, store, logger });
  const { side, app, address } = system;
  app.start();
  logger.info({ address, mode: side.mode }, 'Trainyard is listening');
  await printWelcome({
    side,
    store,
    address,
    app,
    metricsUrl: `${system.metricsAddress ?? address}/metrics`,
    now: system.now,
    // The pace the sandbox was created with (kept across starts).
    timeScale: side.sandbox?.timeScale ?? settings.SANDBOX_TIME_SCALE,
  });
  // In the sandbox, request lines are at debug: a line a minute says that the demo is alive.
  const stopSummary = side.sandbox
    ? startActivitySummary({
        db: store.db,
        logger: logger.child({ name: 'summary' }),
        owner: side.sandbox.repository.owner,
        name: side.sandbox.repository.name,
        now: system.now,
      })
    : () => {};

  // 4. Stop cleanly on Ctrl-C / SIGTERM: loops first (work in progress finishes), then HTTP, sandbox, store.
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    stopSummary();
    await system.stop();
    await store.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

async function printWelcome(params: {
  side: GithubSide;
  store: Store;
  address: string;
  app: GithubApp;
  /** Where Prometheus scrapes (docs/operations.md, "Health, readiness and metrics"). */
  metricsUrl: string;
  now: () => Date;
  timeScale: number;
}) {
  const { side, address } = params;
  if (side.mode === 'production') {
    process.stdout.write(
      `\nTrainyard (GitHub App "${params.app.appSlug}") on ${address}\n` +
        `  webhooks: ${address}${webhookPath}   API: ${address}/v1\n` +
        `  probes: ${address}/healthz ${address}/readyz   metrics: ${params.metricsUrl}\n` +
        `  create an API key: npx trainyard keys create --owner <owner> --role admin --name me\n\n`,
    );
    return;
  }
  const sandbox = side.sandbox!;
  const { owner, name } = sandbox.repository;
  const { secret } = await createApiKey(params.store.db, {
    name: `npm start ${params.now().toISOString()}`,
    owner,
    repository: null,
    role: 'admin',
    now: params.now(),
  });
  const repo = `${address}/v1/repos/${owner}/${name}`;
  process.stdout.write(
    `\nTrainyard is running in SANDBOX mode (no GitHub credentials): a local code host with simulated CI\n` +
      `and a demo workload on ${owner}/${name}, ${params.timeScale}× faster than a real repository\n` +
      `(SANDBOX_TIME_SCALE): a 10-minute CI run takes ${describeMs(600_000 / params.timeScale)}, on the wall clock.\n\n` +
      `  Pull requests: ${sandbox.server.urls.web}/${owner}/${name}   (a page each; comment "@${params.app.appSlug} queue" there)\n` +
      `  API:      ${address}/v1      (OpenAPI: ${address}/v1/openapi.json)\n` +
      `  Metrics:  ${params.metricsUrl}   (Prometheus; health: ${address}/readyz)\n` +
      `  API key:  ${secret}   (admin on ${owner}/*; a new one each start)\n\n` +
      `  curl -H "Authorization: Bearer ${secret}" ${repo}/merge-queue/status\n` +
      `  curl -H "Authorization: Bearer ${secret}" "${repo}/logs?per_page=20"\n` +
      `  curl -H "Authorization: Bearer ${secret}" "${repo}/stats/queues_merged_count"\n\n` +
      `  VS Code: install the extension (npm run package:extension → extension/trainyard-vscode.vsix), then set\n` +
      `  "trainyard.apiUrl": "${address}" and "trainyard.repository": "${owner}/${name}", and run\n` +
      `  "Trainyard: Set API key" with the key above.\n\n` +
      `Ctrl-C stops everything; starting again resumes from the stored data.\n\n`,
  );
}

/** "10 seconds", "1.7 seconds", "600 ms". */
function describeMs(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1_000;
  if (seconds < 120) return `${Number(seconds.toFixed(seconds < 10 ? 1 : 0))} seconds`;
  return `${Math.round(seconds / 60)} minutes`;
}

try {
  await start(readSettings());
} catch (error) {
  if (error instanceof DataDirLockedError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`Trainyard could not start: ${(error as Error).message}\n`);
  process.exit(1);
}
