import pino from 'pino';
import { GithubPermissions } from './api/auth/github-permissions.ts';
import { buildServer } from './api/server.ts';
import { hasGithubCredentials, readSettings, type Settings } from './settings.ts';
import { DataDirLockedError } from './store/data-dir-lock.ts';
import { openStore } from './store/database.ts';

async function start(settings: Settings) {
  const logger = pino({ level: settings.LOG_LEVEL, redact: ['req.headers.authorization'] });
  // 1. Storage: PostgreSQL when DATABASE_URL is set, else embedded PGlite.
  const store = await openStore({ databaseUrl: settings.DATABASE_URL, dataDir: settings.TRAINYARD_DATA_DIR });
  logger.info({ store: store.location }, 'store ready');

  // 2. The v1 API.
  const app = await buildServer({
    store,
    github: new GithubPermissions({ apiBaseUrl: settings.GITHUB_API_URL }),
    publicUrl: settings.TRAINYARD_PUBLIC_URL,
    logger,
  });
  const address = await app.listen({ port: settings.PORT, host: settings.HOST });
  const mode = hasGithubCredentials(settings) ? 'production (GitHub App)' : 'embedded';
  logger.info({ address, mode }, 'Trainyard is listening');
  process.stdout.write(
    `\nTrainyard API on ${address}/v1 (${store.location})\n` +
      `Create an API key:  npx trainyard keys create --owner <owner> --role admin --name me\n` +
      `(on PGlite, stop the server first: the data directory has one owner at a time)\n\n`,
  );

  // 3. Stop cleanly on Ctrl-C / SIGTERM.
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    await app.close();
    await store.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
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
