import type { QueueState } from '../queue/state.ts';
import type { Db } from './database.ts';

/**
 * The engine state this process last committed per repository, with the row version it wrote. A
 * step that finds the row still at that version uses it instead of loading and parsing the stored
 * JSON, which costs more as the queue grows (decision 0011); a write by another instance bumps the
 * version, so the state is loaded again. The engine never mutates a state it is given, so sharing
 * one is safe.
 */
export class QueueStateCache {
  private readonly entries = new Map<string, { version: string; state: QueueState }>();

  constructor(private readonly capacity = 200) {}

  /** The state kept for a repository, whatever its version (the store may have moved on since). */
  latest(repositoryId: string): { version: string; state: QueueState } | undefined {
    const entry = this.entries.get(repositoryId);
    if (entry === undefined) return undefined;
    // Most recently used last, so the least recently used goes first when full.
    this.entries.delete(repositoryId);
    this.entries.set(repositoryId, entry);
    return entry;
  }

  /** Keeps a state once its transaction committed. */
  set(repositoryId: string, version: string, state: QueueState): void {
    this.entries.delete(repositoryId);
    this.entries.set(repositoryId, { version, state });
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }

  forget(repositoryId: string): void {
    this.entries.delete(repositoryId);
  }
}

// One cache per database handle: two stores (two instances in a test) never share states.
const caches = new WeakMap<Db, QueueStateCache>();

export function queueStateCacheOf(db: Db): QueueStateCache {
  let cache = caches.get(db);
  if (cache === undefined) {
    cache = new QueueStateCache();
    caches.set(db, cache);
  }
  return cache;
}
