import type { Db, Tx } from './database.ts';
import { lockRepository } from './repository-lock.ts';

/** Another write held the repository for too long, or the database could not serialize: retry. */
export class WriteConflictError extends Error {
  constructor(cause: unknown) {
    super('another change to this repository is in progress; retry in a moment', { cause });
    this.name = 'WriteConflictError';
  }
}

/** How long a write waits for the repository's lock before it fails as a WriteConflictError. */
export const DEFAULT_LOCK_TIMEOUT_MS = 5000;

// lock_not_available, serialization_failure, deadlock_detected
const conflictCodes = new Set(['55P03', '40001', '40P01']);

/**
 * One transaction holding the repository's writer lock: what a step, a pause or an import
 * writes commits together or not at all.
 */
export async function inRepositoryTransaction<T>(
  db: Db,
  repositoryId: string,
  work: (tx: Tx) => Promise<T>,
  options: { lockTimeoutMs?: number } = {},
): Promise<T> {
  try {
    return await db.transaction().execute(async (tx) => {
      await lockRepository(tx, repositoryId, options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS);
      return work(tx);
    });
  } catch (error) {
    throw asWriteConflict(error);
  }
}

/** A database error that means "another writer is in the way" as a WriteConflictError; anything else as it is. */
export function asWriteConflict(error: unknown): unknown {
  return conflictCodes.has((error as { code?: string }).code ?? '') ? new WriteConflictError(error) : error;
}
