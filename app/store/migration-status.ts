import { sql } from 'kysely';
import type { Queryable } from './database.ts';
import { listMigrations } from './migrate.ts';

let known: readonly string[] | undefined;

/**
 * The migrations this code ships that the database has not applied (readiness: another
 * instance's older code may have created the database, or a migration failed). Also answers
 * whether the database answers at all: the query throws when it does not.
 */
export async function findMissingMigrations(db: Queryable): Promise<string[]> {
  // The files do not change while the process runs: read their names once.
  known ??= listMigrations().map((m) => m.name);
  const result = await sql<{ name: string }>`SELECT name FROM schema_migrations`.execute(db);
  const applied = new Set(result.rows.map((r) => r.name));
  return known.filter((name) => !applied.has(name));
}
