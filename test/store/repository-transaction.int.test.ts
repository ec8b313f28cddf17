import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../app/store/database.ts';
import { ensureRepository } from '../../app/store/repositories.ts';
import { lockRepository } from '../../app/store/repository-lock.ts';
import { inRepositoryTransaction, WriteConflictError } from '../../app/store/repository-transaction.ts';
import { backend, openTestStore } from '../support/test-store.ts';

let store: Store;
let repoCount = 0;

beforeAll(async () => {
  store = await openTestStore();
  await sql`CREATE TABLE tx_probe (repository_id bigint, note text)`.execute(store.db);
});

afterAll(async () => {
  await store?.close();
});

async function freshRepo(): Promise<string> {
  repoCount += 1;
  return (await ensureRepository(store.db, { owner: 'acme', name: `tx-${repoCount}` })).id;
}

/** The texts the real pg client sends, while recording (the statements still run). */
const sent: string[] = [];
const originalQuery = pg.Client.prototype.query;
function recordStatements(): void {
  sent.length = 0;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const first = args[0];
    sent.push(typeof first === 'string' ? first : String((first as { text?: string }).text));
    return (originalQuery as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof originalQuery;
}
afterEach(() => {
  pg.Client.prototype.query = originalQuery;
});

const notes = async (repositoryId: string) =>
  (
    await sql<{
      note: string;
    }>`SELECT note FROM tx_probe WHERE repository_id = ${repositoryId} ORDER BY note`.execute(store.db)
  ).rows.map((r) => r.note);

describe('a repository transaction', () => {
  it('takes the repository lock first, with its timeout, then runs its statements and commits', async () => {
    const repositoryId = await freshRepo();
    recordStatements();
    await inRepositoryTransaction(store.db, repositoryId, async (tx) => {
      await sql`INSERT INTO tx_probe VALUES (${repositoryId}, 'a')`.execute(tx);
    });
    pg.Client.prototype.query = originalQuery;
    expect(sent).toHaveLength(4);
    expect(sent[0]).toBe('begin');
    expect(sent[1]).toContain("set_config('lock_timeout'");
    expect(sent[1]).toContain('pg_advisory_xact_lock');
    expect(sent[2]).toContain('INSERT INTO tx_probe');
    expect(sent[3]).toBe('commit');
    expect(await notes(repositoryId)).toEqual(['a']);
  });

  it('rolls everything back when its work fails, and the connection is clean afterwards', async () => {
    const repositoryId = await freshRepo();
    await expect(
      inRepositoryTransaction(store.db, repositoryId, async (tx) => {
        await sql`INSERT INTO tx_probe VALUES (${repositoryId}, 'lost')`.execute(tx);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await notes(repositoryId)).toEqual([]);
    // The next statements on the pool's connections are not inside a left-over transaction.
    await sql`INSERT INTO tx_probe VALUES (${repositoryId}, 'kept')`.execute(store.db);
    await expect(
      store.db.transaction().execute(async (tx) => {
        await sql`INSERT INTO tx_probe VALUES (${repositoryId}, 'rolled back')`.execute(tx);
        throw new Error('again');
      }),
    ).rejects.toThrow('again');
    expect(await notes(repositoryId)).toEqual(['kept']);
  });

  it.skipIf(backend === 'pglite')(
    'waits for the lock while another transaction holds it, and gives up after lockTimeoutMs (PostgreSQL: PGlite has one connection)',
    async () => {
      const repositoryId = await freshRepo();
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let locked = () => {};
      const isLocked = new Promise<void>((resolve) => {
        locked = resolve;
      });
      const holder = inRepositoryTransaction(store.db, repositoryId, async (tx) => {
        await sql`INSERT INTO tx_probe VALUES (${repositoryId}, 'first')`.execute(tx);
        locked();
        await held;
      });
      await isLocked;
      const started = Date.now();
      const refused = await inRepositoryTransaction(store.db, repositoryId, async () => 'never', {
        lockTimeoutMs: 300,
      }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(WriteConflictError);
      expect(Date.now() - started).toBeGreaterThanOrEqual(250);
      // A waiter without a short timeout gets the lock once the holder commits, and sees its row.
      const waiter = inRepositoryTransaction(store.db, repositoryId, async (tx) => {
        await sql`INSERT INTO tx_probe VALUES (${repositoryId}, 'second')`.execute(tx);
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await notes(repositoryId)).toEqual([]);
      release();
      await holder;
      await waiter;
      expect(await notes(repositoryId)).toEqual(['first', 'second']);
    },
  );
});

describe('the repository lock', () => {
  it('takes ids past 2^31 (bigserial), on both paths', async () => {
    const big = '3000000000';
    await inRepositoryTransaction(store.db, big, async (tx) => {
      await sql`INSERT INTO tx_probe VALUES (${big}::bigint, 'big')`.execute(tx);
    });
    expect(await notes(big)).toEqual(['big']);
    await store.db.transaction().execute(async (tx) => {
      await lockRepository(tx, '9223372036854775807', 1_000);
    });
  });
});
