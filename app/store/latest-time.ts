import { sql } from 'kysely';
import type { Queryable } from './database.ts';

/**
 * The latest time the app recorded from its clock: its newest event and newest effect. A clock
 * the app runs on (the sandbox's) must not restart before it, or the event log would go back in
 * time. Read off the primary keys (the newest rows), not a scan of the dates.
 */
export async function findLatestRecordedTime(db: Queryable): Promise<Date | null> {
  const { rows } = await sql<{ at: Date | string | null }>`
    SELECT greatest(
      (SELECT received_at FROM events ORDER BY id DESC LIMIT 1),
      (SELECT created_at FROM outbox ORDER BY id DESC LIMIT 1)
    ) AS at`.execute(db);
  const at = rows[0]?.at ?? null;
  return at === null ? null : new Date(at);
}
