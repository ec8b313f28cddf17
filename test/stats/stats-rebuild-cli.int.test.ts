import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../app/store/database.ts';
import { appendEvents } from '../../app/store/events.ts';
import { STATS_PROJECTION_TABLES } from '../../app/store/projection/projection.ts';
import { ensureRepository } from '../../app/store/repositories.ts';
import { inRepositoryTransaction } from '../../app/store/repository-transaction.ts';
import { History, sessionUuid } from './support/history.ts';

// `trainyard stats rebuild` as a user runs it, on its own PGlite directory.
const dataDir = join(mkdtempSync(join(tmpdir(), 'trainyard-stats-')), 'db');

function trainyard(...args: string[]) {
  const result = spawnSync(process.execPath, ['bin/trainyard.mjs', ...args], {
    env: { ...process.env, DATABASE_URL: '', TRAINYARD_DATA_DIR: dataDir },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

async function snapshot(store: Store) {
  const out: Record<string, string[]> = {};
  for (const table of STATS_PROJECTION_TABLES) {
    const { rows } = await sql`SELECT * FROM ${sql.table(table)}`.execute(store.db);
    out[table] = rows.map((r) => JSON.stringify(r)).sort();
  }
  return out;
}

describe('trainyard stats rebuild', () => {
  it('recomputes lost or damaged projections from the events alone', async () => {
    const h = new History();
    const s = sessionUuid();
    h.enter('2026-11-01T10:00:00Z', { session: s });
    h.queueSize('2026-11-01T10:00:00Z', 1);
    h.checksStart('2026-11-01T10:05:00Z', { session: s });
    h.running('2026-11-01T10:05:00Z', 1);
    h.checksEnd('2026-11-01T10:20:00Z', { session: s, startedAt: '2026-11-01T10:05:00Z' });
    h.merged('2026-11-01T10:21:00Z', { session: s });
    h.leave('2026-11-01T10:21:00Z', { session: s, queuedAt: '2026-11-01T10:00:00Z', code: 'PR_MERGED' });
    h.bisectionStart('2026-11-01T10:30:00Z', { depth: 1, size: 2, session: s });

    let store = await openStore({ dataDir });
    const repo = await ensureRepository(store.db, { owner: 'acme', name: 'widgets' });
    const other = await ensureRepository(store.db, { owner: 'acme', name: 'other' });
    for (const r of [repo, other]) {
      await inRepositoryTransaction(store.db, r.id, (tx) => appendEvents(tx, r.id, h.events));
    }
    const before = await snapshot(store);
    expect(before['stats_sessions']).toHaveLength(2);
    await sql`DELETE FROM stats_sessions`.execute(store.db);
    await sql`UPDATE stats_checks SET outcome = 'CHECKS_FAILED'`.execute(store.db);
    await store.close();

    const one = trainyard('stats', 'rebuild', '--repository', 'acme/widgets');
    expect(one.stderr).toBe('');
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(/^acme\/widgets: replayed 8 queue events/);
    const all = trainyard('stats', 'rebuild');
    expect(all.code).toBe(0);
    expect(all.stdout).toMatch(/acme\/other: replayed 8 queue events/);

    store = await openStore({ dataDir });
    try {
      expect(await snapshot(store)).toEqual(before);
    } finally {
      await store.close();
    }
  }, 60_000);
});
