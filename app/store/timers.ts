import { type RawBuilder, sql } from 'kysely';
import type { Queryable, Tx } from './database.ts';

/** A wake-up the engine asked for (`schedule_wake_up`): a `tick` is due at `dueAt`. */
export interface Timer {
  repositoryId: string;
  key: string;
  dueAt: Date;
}

/** Sets wake-ups in the step's transaction; a wake-up with a key already set replaces it. */
export async function saveTimers(
  tx: Tx,
  params: { repositoryId: string; timers: readonly { key: string; at: Date }[] },
): Promise<void> {
  await saveTimersStatement(params)?.execute(tx);
}

/** saveTimers' statement (null when there is nothing to set), for a caller that sends it with others. */
export function saveTimersStatement(params: {
  repositoryId: string;
  timers: readonly { key: string; at: Date }[];
}): RawBuilder<unknown> | null {
  // The last wake-up of a key in one step is the one that counts.
  const byKey = new Map(params.timers.map((t) => [t.key, t.at]));
  if (byKey.size === 0) return null;
  return sql`
    INSERT INTO timers (repository_id, key, due_at)
    SELECT ${params.repositoryId}::bigint, t.key, t.due_at
    FROM unnest(${[...byKey.keys()]}::text[], ${[...byKey.values()].map((at) => at.toISOString())}::timestamptz[]) AS t(key, due_at)
    ON CONFLICT (repository_id, key) DO UPDATE SET due_at = excluded.due_at`;
}

interface TimerRow {
  repository_id: string;
  key: string;
  due_at: Date;
}

const toTimer = (r: TimerRow): Timer => ({ repositoryId: r.repository_id, key: r.key, dueAt: r.due_at });

/**
 * Takes the due wake-ups (of one repository, or any), oldest first: deleted in the caller's
 * transaction, so they fire once when it commits and not at all when it rolls back. Timers
 * another transaction is taking are skipped, not waited for.
 */
export async function claimDueTimers(
  db: Queryable,
  params: { now: Date; repositoryId?: string; limit?: number },
): Promise<Timer[]> {
  const repository =
    params.repositoryId === undefined ? sql`` : sql`AND repository_id = ${params.repositoryId}::bigint`;
  const result = await sql<TimerRow>`
    DELETE FROM timers WHERE (repository_id, key) IN (
      SELECT repository_id, key FROM timers
      WHERE due_at <= ${params.now.toISOString()}::timestamptz ${repository}
      ORDER BY due_at
      LIMIT ${params.limit ?? 1000}
      FOR UPDATE SKIP LOCKED
    )
    RETURNING repository_id, key, due_at`.execute(db);
  return result.rows.map(toTimer).sort((a, b) => a.dueAt.getTime() - b.dueAt.getTime());
}

/** Repositories with a wake-up due at `now`, the longest waiting first. */
export async function findDueRepositories(
  db: Queryable,
  params: { now: Date; limit: number },
): Promise<string[]> {
  const result = await sql<{ repository_id: string }>`
    SELECT repository_id FROM timers
    WHERE due_at <= ${params.now.toISOString()}::timestamptz
    GROUP BY repository_id
    ORDER BY min(due_at)
    LIMIT ${params.limit}`.execute(db);
  return result.rows.map((r) => r.repository_id);
}

/** The earliest wake-up, or null when none is set. */
export async function findNextTimerDue(db: Queryable): Promise<Date | null> {
  const row = await db
    .selectFrom('timers')
    .select((eb) => eb.fn.min<Date | null>('due_at').as('at'))
    .executeTakeFirst();
  return row?.at ?? null;
}

/** Every wake-up of a repository, soonest first (for status and tests). */
export async function loadTimers(db: Queryable, repositoryId: string): Promise<Timer[]> {
  const rows = await db
    .selectFrom('timers')
    .select(['repository_id', 'key', 'due_at'])
    .where('repository_id', '=', repositoryId)
    .orderBy('due_at')
    .execute();
  return rows.map(toTimer);
}
