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
