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
  await lockRepositoryStatement(repositoryId, lockTimeoutMs).execute(tx);
}

/** lockRepository's statement, for a caller that sends it with others (a step transaction). */
export function lockRepositoryStatement(repositoryId: string, lockTimeoutMs?: number): RawBuilder<unknown> {
  // Ids are bigserial: folded into int4's range (two repositories may then share a lock,
  // which only serializes them; an id past 2^31 as such would be an error).
  const lock = sql`pg_advisory_xact_lock(${REPOSITORY_LOCK_CLASS}::int4, (${repositoryId}::int8 % 2147483648)::int4)`;
  if (lockTimeoutMs === undefined) return sql`SELECT ${lock}`;
  // The materialized CTE is read before the lock is taken, so the timeout applies to its wait.
  return sql`${sql.raw(PREPARED_MARK)}
    WITH timeout AS MATERIALIZED (SELECT set_config('lock_timeout', ${`${lockTimeoutMs}ms`}, true))
    SELECT ${lock} FROM timeout`;
}
