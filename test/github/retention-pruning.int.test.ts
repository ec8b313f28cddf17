import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GithubPermissions } from '../../app/api/auth/github-permissions.ts';
import { buildServer } from '../../app/api/server.ts';
import { createGithubApp, type GithubAppOptions } from '../../app/github/github-app.ts';
import type { Store } from '../../app/store/database.ts';
import { appendEvents } from '../../app/store/events.ts';
import { ensureRepository } from '../../app/store/repositories.ts';
import { inRepositoryTransaction } from '../../app/store/repository-transaction.ts';
import { History } from '../stats/support/history.ts';
import { openTestStore } from '../support/test-store.ts';
import { appPrivateKey } from '../support/trainyard-tester.ts';

/*
 * The GitHub App's pruning run (every hour) applies the retention of events and statistics
 * (app/store/retention.ts): 90 days unless `retentionDays` says otherwise.
 */

const NOW = new Date('2026-11-02T12:30:00Z');
const DAY = 86_400_000;

let store: Store;
beforeAll(async () => {
  store = await openTestStore();
}, 60_000);
afterAll(async () => {
  await store?.close();
});

/** Log lines, as JSON, at info level and above. */
function capturingLogger() {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

async function pruneWith(options: Pick<GithubAppOptions, 'retentionDays'>) {
  const log = capturingLogger();
  const server = await buildServer({
    store,
    github: new GithubPermissions({ apiBaseUrl: 'http://127.0.0.1:9' }),
  });
  const app = await createGithubApp({
    store,
    server,
    // Nothing listens on port 9: nothing here talks to GitHub.
    credentials: { appId: 1, privateKey: appPrivateKey(), baseUrl: 'http://127.0.0.1:9', webhookSecret: 's' },
    logger: log.logger,
    appSlug: 'trainyard',
    now: () => NOW,
    ...options,
  });
  try {
    await app.prune();
  } finally {
    await app.stop();
    await server.close();
  }
  return log.lines;
}

async function ageOfEvents(): Promise<number[]> {
  const { rows } = await sql<{ days: number }>`
    SELECT round(extract(epoch FROM ${NOW.toISOString()}::timestamptz - received_at) / 86400)::int AS days
    FROM events ORDER BY 1`.execute(store.db);
  return rows.map((r) => r.days);
}

describe('the pruning run of the GitHub App', () => {
  it('deletes events older than the retention: 90 days by default, or retentionDays', async () => {
    const repo = await ensureRepository(store.db, { owner: 'acme', name: 'widgets' });
    const h = new History();
    for (const days of [120, 60, 1]) h.other(new Date(NOW.getTime() - days * DAY));
    await inRepositoryTransaction(store.db, repo.id, (tx) => appendEvents(tx, repo.id, h.events));

    const lines = await pruneWith({});
    expect(await ageOfEvents()).toEqual([1, 60]);
    expect(lines).toContainEqual(
      expect.objectContaining({
        msg: 'pruned events and statistics older than the retention',
        cutoff: '2026-08-04T00:00:00.000Z',
        deleted: { events: 1 },
        complete: true,
      }),
    );

    await pruneWith({ retentionDays: 30 });
    expect(await ageOfEvents()).toEqual([1]);
    // Nothing left to prune: nothing logged.
    expect(await pruneWith({ retentionDays: 30 })).toEqual([]);
  }, 60_000);
});
