import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Effect } from '../../app/queue/effects.ts';
import type { Store } from '../../app/store/database.ts';
import {
  claimOutbox,
  completeOutbox,
  countPendingOutbox,
  enqueueEffects,
  findNextOutboxTime,
  type OutboxRow,
  pruneOutbox,
  retryOutbox,
} from '../../app/store/outbox.ts';
import { ensureRepository } from '../../app/store/repositories.ts';
import { inRepositoryTransaction } from '../../app/store/repository-transaction.ts';
import { postComment } from '../support/effect-builders.ts';
import { backend, createReopenableStore, openTestStore } from '../support/test-store.ts';

let store: Store;
let repoCount = 0;
const t0 = new Date('2026-11-02T09:00:00.000Z');
const at = (seconds: number) => new Date(t0.getTime() + seconds * 1000);
const LEASE_MS = 60_000;

beforeAll(async () => {
  store = await openTestStore();
});

afterAll(async () => {
  await store?.close();
});

async function freshRepo(db = store.db): Promise<string> {
  repoCount += 1;
  return (await ensureRepository(db, { owner: 'acme', name: `outbox-${repoCount}` })).id;
}

const comment = (key: string): Effect => postComment({ key });

function enqueue(repositoryId: string, keys: string[], now = t0, db = store.db) {
  return inRepositoryTransaction(db, repositoryId, (tx) =>
    enqueueEffects(tx, { repositoryId, effects: keys.map(comment), now }),
  );
}

function complete(row: OutboxRow, now = t0, db = store.db) {
  return inRepositoryTransaction(db, row.repositoryId, (tx) => completeOutbox(tx, row, now));
}

/** Claims everything claimable, oldest per repository, as keys. */
async function claimKeys(now: Date, limit = 100): Promise<string[]> {
  return (await claimOutbox(store.db, { limit, leaseMs: LEASE_MS, now })).map((r) => r.key);
}

// Each test works on repositories of its own; the claim sees all of them, so tests compare
// only their own keys.
const mine = (keys: string[], prefix: string) => keys.filter((k) => k.startsWith(prefix)).sort();

describe('outbox', () => {
  it('keeps one row for an effect enqueued again while pending, and a new one once it is done', async () => {
    const repo = await freshRepo();
    const first = await enqueue(repo, ['dup:a', 'dup:b']);
    const again = await enqueue(repo, ['dup:a', 'dup:c', 'dup:c']);
    expect(first.map((r) => r.key)).toEqual(['dup:a', 'dup:b']);
    expect(again.map((r) => r.key)).toEqual(['dup:c']);
    expect(await countPendingOutbox(store.db, repo)).toBe(3);

    const [row] = (await claimOutbox(store.db, { limit: 100, leaseMs: LEASE_MS, now: t0 })).filter(
      (r) => r.repositoryId === repo,
    );
    expect(row!.key).toBe('dup:a');
    expect(await complete(row!)).toBe(true);
    const later = await enqueue(repo, ['dup:a']);
    expect(later.map((r) => r.key)).toEqual(['dup:a']);
    expect(await countPendingOutbox(store.db, repo)).toBe(3);
  });

  it('claims only the oldest pending row of each repository, so each runs its rows in enqueue order', async () => {
    const [a, b] = [await freshRepo(), await freshRepo()];
    await enqueue(a, ['order:a1', 'order:a2']);
    await enqueue(b, ['order:b1']);
    await enqueue(a, ['order:a3']);

    const done: string[] = [];
    for (let round = 0; round < 10; round++) {
      const rows = (await claimOutbox(store.db, { limit: 100, leaseMs: LEASE_MS, now: t0 })).filter((r) =>
        r.key.startsWith('order:'),
      );
      if (rows.length === 0) break;
      // Never two rows of one repository at once.
      expect(new Set(rows.map((r) => r.repositoryId)).size).toBe(rows.length);
      // While leased, nothing more of those repositories is claimable.
      expect(mine(await claimKeys(t0), 'order:')).toEqual([]);
      for (const row of rows) {
        expect(await complete(row)).toBe(true);
        done.push(row.key);
      }
    }
    expect(done.filter((k) => k.startsWith('order:a'))).toEqual(['order:a1', 'order:a2', 'order:a3']);
    expect(done).toContain('order:b1');
    expect(done.indexOf('order:b1')).toBeLessThan(done.indexOf('order:a2'));
  });

  it('holds back the rows behind one that waits for its retry, and counts its attempts', async () => {
    const [a, b] = [await freshRepo(), await freshRepo()];
    await enqueue(a, ['retry:a1', 'retry:a2']);
    await enqueue(b, ['retry:b1']);

    const [first] = (await claimOutbox(store.db, { limit: 100, leaseMs: LEASE_MS, now: t0 })).filter(
      (r) => r.key === 'retry:a1',
    );
    expect(first!.attempts).toBe(1);
    expect(await retryOutbox(store.db, first!, { error: 'GitHub answered 502', availableAt: at(30) })).toBe(
      true,
    );

    // Before the retry time: a2 must not overtake a1.
    expect(mine(await claimKeys(at(10)), 'retry:a')).toEqual([]);
    const [second] = (await claimOutbox(store.db, { limit: 100, leaseMs: LEASE_MS, now: at(30) })).filter(
      (r) => r.repositoryId === a,
    );
    expect(second).toMatchObject({ key: 'retry:a1', attempts: 2, lastError: 'GitHub answered 502' });
    expect(await complete(second!, at(31))).toBe(true);
    expect(mine(await claimKeys(at(31)), 'retry:a')).toEqual(['retry:a2']);
  });

  it('claims a row again when its lease ran out; the first holder can then neither complete nor retry it', async () => {
    const repo = await freshRepo();
    await enqueue(repo, ['lease:1']);
    const [first] = (await claimOutbox(store.db, { limit: 100, leaseMs: LEASE_MS, now: t0 })).filter(
      (r) => r.repositoryId === repo,
    );
    expect(first!.leasedUntil).toEqual(at(60));

    expect(mine(await claimKeys(at(59)), 'lease:')).toEqual([]);
    const [second] = (await claimOutbox(store.db, { limit: 100, leaseMs: LEASE_MS, now: at(60) })).filter(
      (r) => r.repositoryId === repo,
    );
    expect(second).toMatchObject({ id: first!.id, attempts: 2 });

    expect(await complete(first!, at(61))).toBe(false);
    expect(await retryOutbox(store.db, first!, { error: 'late', availableAt: at(90) })).toBe(false);
    expect(await complete(second!, at(61))).toBe(true);
    expect(await complete(second!, at(62))).toBe(false);
    expect(await countPendingOutbox(store.db, repo)).toBe(0);
  });

  it('tells when the next row can be claimed, and prunes done rows', async () => {
    const repo = await freshRepo();
    await enqueue(repo, ['next:1', 'next:2']);
    const [row] = (await claimOutbox(store.db, { limit: 100, leaseMs: LEASE_MS, now: t0 })).filter(
      (r) => r.repositoryId === repo,
    );
    await retryOutbox(store.db, row!, { error: 'x', availableAt: at(5) });
    // Other tests' rows may be due earlier; this repository's head is due at t0 + 5 s at the latest.
    const next = await findNextOutboxTime(store.db);
    expect(next).not.toBeNull();
    expect(next!.getTime()).toBeLessThanOrEqual(at(5).getTime());

    for (const key of ['next:1', 'next:2']) {
      const [claimed] = (await claimOutbox(store.db, { limit: 100, leaseMs: LEASE_MS, now: at(5) })).filter(
        (r) => r.repositoryId === repo,
      );
      expect(claimed!.key).toBe(key);
      await complete(claimed!, at(6));
    }
    const doneRows = () =>
      store.db.selectFrom('outbox').select('key').where('repository_id', '=', repo).execute();
    expect(await doneRows()).toHaveLength(2);
    // Rows done at t0 + 6 s are kept by a prune of what was done before then (other tests' rows
    // done earlier go).
    await pruneOutbox(store.db, at(6));
    expect(await doneRows()).toHaveLength(2);
    expect(await pruneOutbox(store.db, at(7))).toBeGreaterThanOrEqual(2);
    expect(await doneRows()).toEqual([]);
  });

  it.skipIf(backend === 'pglite')(
    'two stores on one PostgreSQL claiming at once never lease one row twice, and keep each repository in order (PostgreSQL only: PGlite has one process)',
    async () => {
      const shared = await createReopenableStore();
      const [one, two] = [await shared.open(), await shared.open()];
      try {
        const repos: string[] = [];
        for (let i = 0; i < 6; i++) repos.push(await freshRepo(one.db));
        for (const [i, repo] of repos.entries()) {
          const keys = Array.from({ length: 8 }, (_, n) => `race:${i}:${n}`);
          await enqueue(repo, keys, t0, one.db);
        }
        const claims: { by: string; key: string }[] = [];
        // Completion times taken when each completion is issued: a repository's row is claimed
        // only after the one before it committed, so their order is the order they ran in.
        let tick = 0;
        const work = async (instance: Store, name: string) => {
          for (let idle = 0; idle < 3; ) {
            const rows = await claimOutbox(instance.db, { limit: 4, leaseMs: LEASE_MS, now: t0 });
            if (rows.length === 0) {
              idle += 1;
              await new Promise((r) => setTimeout(r, 5));
              continue;
            }
            idle = 0;
            for (const row of rows) {
              claims.push({ by: name, key: row.key });
              const doneAt = new Date(t0.getTime() + ++tick);
              expect(await complete(row, doneAt, instance.db)).toBe(true);
            }
          }
        };
        await Promise.all([work(one, 'one'), work(two, 'two')]);

        expect(claims).toHaveLength(48);
        expect(new Set(claims.map((c) => c.key)).size).toBe(48);
        // Both instances took part (the test would prove nothing otherwise).
        expect(new Set(claims.map((c) => c.by))).toEqual(new Set(['one', 'two']));
        for (const [i, repo] of repos.entries()) {
          const rows = await one.db
            .selectFrom('outbox')
            .select('key')
            .where('repository_id', '=', repo)
            .orderBy('done_at')
            .execute();
          expect(rows.map((r) => r.key)).toEqual(Array.from({ length: 8 }, (_, n) => `race:${i}:${n}`));
        }
      } finally {
        await one.close();
        await two.close();
        await shared.dispose();
      }
    },
  );
});
