import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openStore, type Store } from '../../app/store/database.ts';

/** Which back end this test run uses: `DATABASE_URL` set ⇒ PostgreSQL, else PGlite. */
export const backend = process.env.DATABASE_URL ? 'postgres' : 'pglite';

/**
 * A fresh, empty store for one test file: PGlite in memory, or a schema of its own on the
 * PostgreSQL of DATABASE_URL (dropped on close), so test files can run side by side.
 */
export async function openTestStore(): Promise<Store> {
  const url = process.env.DATABASE_URL;
  if (!url) return openStore({ dataDir: 'memory://' });
  const schema = `test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const store = await openStore({ databaseUrl: url, schema, maxConnections: 5 });
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
