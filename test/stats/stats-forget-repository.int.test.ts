import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../app/store/database.ts';
import { appendEvents } from '../../app/store/events.ts';
import { STATS_PROJECTION_TABLES } from '../../app/store/projection/projection.ts';
import { ensureRepository } from '../../app/store/repositories.ts';
import { inRepositoryTransaction } from '../../app/store/repository-transaction.ts';
import { openTestStore } from '../support/test-store.ts';
import { History, sessionUuid } from './support/history.ts';

/*
 * The projections have no foreign key to their repository (migration 0009): deleting a
 * repository deletes them through a trigger, every projection table, and only that
 * repository's rows.
 */

let store: Store;

beforeAll(async () => {
  store = await openTestStore();
}, 60_000);

afterAll(async () => {
  await store?.close();
});

function history(): History {
  const h = new History();
  const s = sessionUuid();
  const t = (m: number) => new Date(Date.parse('2026-10-01T10:00:00Z') + m * 60_000);
  h.enter(t(0), { session: s });
  h.queueSize(t(0), 1);
  h.checksStart(t(1), { session: s });
  h.running(t(1), 1);
  h.checksEnd(t(20), { session: s, startedAt: t(1) });
  h.bisectionStart(t(20), { session: s, depth: 1, size: 2 });
  h.merged(t(21), { session: s });
  h.leave(t(21), { session: s, queuedAt: t(0), code: 'PR_MERGED' });
  return h;
}

async function rowsPerTable(repositoryId: string) {
  const counts: Record<string, number> = {};
  for (const table of STATS_PROJECTION_TABLES) {
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM ${sql.table(table)} WHERE repository_id = ${repositoryId}::bigint`.execute(
      store.db,
    );
    counts[table] = rows[0]?.n ?? 0;
  }
  return counts;
}

describe('deleting a repository', () => {
  it('deletes its statistics projections, in every table, and no other repository’s', async () => {
    const gone = await ensureRepository(store.db, { owner: 'forget', name: 'gone' });
    const kept = await ensureRepository(store.db, { owner: 'forget', name: 'kept' });
    for (const repo of [gone, kept]) {
      await inRepositoryTransaction(store.db, repo.id, (tx) => appendEvents(tx, repo.id, history().events));
    }
    const before = await rowsPerTable(gone.id);
    // Every projection table has rows to delete.
    expect(Object.entries(before).filter(([, n]) => n === 0)).toEqual([]);

    await store.db.deleteFrom('repositories').where('id', '=', gone.id).execute();

    expect(Object.values(await rowsPerTable(gone.id)).every((n) => n === 0)).toBe(true);
    expect(await rowsPerTable(kept.id)).toEqual(before);
  });
});
