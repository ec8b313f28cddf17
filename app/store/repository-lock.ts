import { type RawBuilder, sql } from 'kysely';
import { PREPARED_MARK, type Tx } from './database.ts';

// Namespace of the two-key advisory locks, so ours never collide with another app's.
const REPOSITORY_LOCK_CLASS = 0x7472;

/**
 * One writer per repository: serializes a repository's writes (engine steps, pause) across
 * transactions and app instances until the transaction ends. Also what keeps event ids
 * increasing in commit order within a repository. With `lockTimeoutMs`, the wait is bounded
 * (lock_timeout for the rest of the transaction), set by the same statement: one round trip.
 */
export async function lockRepository(tx: Tx, repositoryId: string, lockTimeoutMs?: number): Promise<void> {
  const lock = sql`pg_advisory_xact_lock(${REPOSITORY_LOCK_CLASS}::int4, ${Number(repositoryId)}::int4)`;
  if (lockTimeoutMs === undefined) {
    await sql`SELECT ${lock}`.execute(tx);
    return;
  }
  // The materialized CTE is read before the lock is taken, so the timeout applies to its wait.
  await sql`${sql.raw(PREPARED_MARK)}
    WITH timeout AS MATERIALIZED (SELECT set_config('lock_timeout', ${`${lockTimeoutMs}ms`}, true))
    SELECT ${lock} FROM timeout`.execute(tx);
}

/**
 * lockRepository with a bounded wait as two statements, for a caller that sends them with
 * others in one message (app/store/step-in-one-trip.ts): the timeout is set by the first.
 */
export function lockRepositoryStatements(repositoryId: string, lockTimeoutMs: number): RawBuilder<unknown>[] {
  return [
    sql`SELECT set_config('lock_timeout', ${`${lockTimeoutMs}ms`}, true)`,
    sql`SELECT pg_advisory_xact_lock(${REPOSITORY_LOCK_CLASS}::int4, ${Number(repositoryId)}::int4)`,
  ];
}
