import type { Queryable } from '../../store/database.ts';
import { findRepository, type Repository } from '../../store/repositories.ts';

/**
 * Repository rows by name, kept a few seconds, so a delivery group's lookup before its GitHub
 * reads does not cost a round trip on a pooled connection waited for behind the step transactions
 * (decision 0010). A row changes only when a repository is added, renamed, moved to another
 * installation, its default branch changed or deleted: this process forgets its rows when it
 * applies such a change, and another instance's change is seen within `ttlMs`. Meanwhile a step
 * for a deleted row fails and its delivery is retried; names not found are not kept.
 */
export class RepositoryLookup {
  private readonly rows = new Map<string, { repository: Repository; until: number }>();

  constructor(private readonly options: { ttlMs?: number; now?: () => number; maxEntries?: number } = {}) {}

  async find(db: Queryable, owner: string, name: string): Promise<Repository | null> {
    const key = `${owner}/${name}`.toLowerCase();
    const now = (this.options.now ?? Date.now)();
    const kept = this.rows.get(key);
    if (kept !== undefined && kept.until > now) return kept.repository;
    const repository = await findRepository(db, owner, name);
    if (repository === null) this.rows.delete(key);
    else this.remember(key, repository, now);
    return repository;
  }

  /** A row this process just wrote: the next lookups get it. */
  keep(repository: Repository): void {
    this.remember(repository.fullName.toLowerCase(), repository, (this.options.now ?? Date.now)());
  }

  /** After a change to repositories (added, renamed, moved, removed): every row is read again. */
  forgetAll(): void {
    this.rows.clear();
  }

  private remember(key: string, repository: Repository, now: number): void {
    this.rows.delete(key);
    this.rows.set(key, { repository, until: now + (this.options.ttlMs ?? 5_000) });
    // Map keeps insertion order: the first entry is the one kept longest ago.
    while (this.rows.size > (this.options.maxEntries ?? 10_000)) {
      this.rows.delete(this.rows.keys().next().value as string);
    }
  }
}
