import { sql } from 'kysely';
import type { Tx } from './database.ts';

// Namespace of the two-key advisory locks, so ours never collide with another app's.
const REPOSITORY_LOCK_CLASS = 0x7472;

/**
 * One writer per repository: serializes a repository's writes (engine steps, pause) across
 * transactions and app instances until the transaction ends. Also what keeps event ids
 * increasing in commit order within a repository.
 */
export async function lockRepository(tx: Tx, repositoryId: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(${REPOSITORY_LOCK_CLASS}::int4, ${Number(repositoryId)}::int4)`.execute(
    tx,
  );
}
