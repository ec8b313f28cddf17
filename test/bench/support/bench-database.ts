import pg from 'pg';

/**
 * Creates the PostgreSQL database of `databaseUrl` when it does not exist yet (through the
 * server's `postgres` database), so a benchmark runs on a fresh machine without set-up.
 * Returns whether it was created.
 */
export async function ensureBenchDatabase(databaseUrl: string): Promise<boolean> {
  const database = decodeURIComponent(new URL(databaseUrl).pathname.slice(1));
  const adminUrl = new URL(databaseUrl);
  adminUrl.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  try {
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (rowCount) return false;
    await admin.query(`CREATE DATABASE "${database.replace(/"/g, '""')}"`);
    return true;
  } finally {
    await admin.end();
  }
}

/**
 * An empty `schema` in the benchmark database (created first when missing): what a run left
 * there is dropped. Returns whether the database was created.
 */
export async function freshBenchSchema(databaseUrl: string, schema: string): Promise<boolean> {
  const created = await ensureBenchDatabase(databaseUrl);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.query(`CREATE SCHEMA ${schema}`);
  } finally {
    await client.end();
  }
  return created;
}
