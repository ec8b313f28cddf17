import { isRepositoryGoneError } from '../../store/repository-gone.ts';
import type { RepositoryLookup } from '../translation/repository-lookup.ts';

/**
 * A step ran on a repository id this process had looked up, and the row was gone (removed, or
 * never committed). The fault is the process's own, repaired by dropping the lookup: the
 * delivery is retried at once, resolves its repository afresh and applies, instead of backing
 * off for minutes behind an id that will never exist again.
 */
export class StaleRepositoryError extends Error {
  constructor(
    readonly repositoryId: string,
    cause: unknown,
  ) {
    super(`repository ${repositoryId} no longer exists; its lookup was dropped`, { cause });
    this.name = 'StaleRepositoryError';
  }
}

/** Runs `step` for `repositoryId`; a gone row drops the lookups and becomes a StaleRepositoryError. */
export async function stepOnLookedUpRepository<T>(
  repositories: RepositoryLookup,
  repositoryId: string,
  step: () => Promise<T>,
): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (!isRepositoryGoneError(error)) throw error;
    repositories.forgetAll();
    throw new StaleRepositoryError(repositoryId, error);
  }
}
