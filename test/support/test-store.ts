import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openStore, type Store, type StoreOptions } from '../../app/store/database.ts';
import { pgliteStart, pgliteStartIn } from './pglite-start.ts';

/** Which back end this test run uses: `DATABASE_URL` set ⇒ PostgreSQL, else PGlite. */
export const backend = process.env.DATABASE_URL ? 'postgres' : 'pglite';

/**
 * A fresh, empty store for one test file: PGlite in memory, or a schema of its own on the
 * PostgreSQL of DATABASE_URL (dropped on close), so test files can run side by side.
 */
export async function openTestStore(options: Pick<StoreOptions, 'readTimeoutMs'> = {}): Promise<Store> {
  const url = process.env.DATABASE_URL;
  if (!url) return openStore({ dataDir: 'memory://', pglite: await pgliteStart(), ...options });
  const schema = `test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const store = await openStore({ databaseUrl: url, schema, maxConnections: 5, ...options });
  return {
    ...store,
    async close() {
      await store.close();
      const dropper = new pg.Client({ connectionString: url });
      await dropper.connect();
      await dropper.query(`DROP SCHEMA ${schema} CASCADE`);
      await dropper.end();
    },
  };
}

/** One database that can be opened several times: to reopen it after a crash, or as two instances. */
export interface ReopenableStore {
  /** A new Store on the same data: on PostgreSQL any number at once, on PGlite one at a time. */
  open(): Promise<Store>;
  /** Deletes the data (close every Store first). */
  dispose(): Promise<void>;
}

/**
 * PGlite in a temporary data directory, or a schema of its own on the PostgreSQL of
 * DATABASE_URL: unlike openTestStore, closing a Store keeps the data.
 */
export async function createReopenableStore(): Promise<ReopenableStore> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    const dir = mkdtempSync(join(tmpdir(), 'trainyard-store-'));
    return {
      open: async () => openStore({ dataDir: join(dir, 'db'), pglite: await pgliteStartIn(join(dir, 'db')) }),
      dispose: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const schema = `test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  return {
    open: () => openStore({ databaseUrl: url, schema, maxConnections: 5 }),
    async dispose() {
      const dropper = new pg.Client({ connectionString: url });
      await dropper.connect();
      await dropper.query(`DROP SCHEMA ${schema} CASCADE`);
      await dropper.end();
    },
  };
}
