import { hashApiKey, type KeyAndRepository } from '../../store/api-keys.ts';

export interface KeyCacheOptions {
  /** How long a lookup is reused; 0 turns the cache off. This bounds how late a revocation bites. */
  ttlMs: number;
  /** Most lookups kept; the oldest goes first. */
  maxEntries?: number;
  /** Monotonic clock in ms, for tests. */
  now?: () => number;
}

/** How long an application key's lookup is reused by default (README: "The API"). */
export const DEFAULT_KEY_CACHE_TTL_MS = 2_000;

interface Entry {
  value: KeyAndRepository;
  expiresAt: number;
}

/**
 * Application keys and the repository a request names, as found in the store, reused for
 * `ttlMs` so that a burst of requests does not pay a database round trip each for the same
 * answer. Only live keys are kept (with the repository, or its absence): a revocation made
 * anywhere (the CLI is another process) takes effect within `ttlMs`, a repository added
 * meanwhile is seen within `ttlMs`, and an unknown key is looked up every time. Keyed by the
 * key's hash, never the secret.
 */
export class KeyCache {
  private readonly entries = new Map<string, Entry>();
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(private readonly options: KeyCacheOptions) {
    this.maxEntries = options.maxEntries ?? 10_000;
    this.now = options.now ?? (() => performance.now());
  }

  async lookup(
    secret: string,
    owner: string,
    repository: string,
    find: () => Promise<KeyAndRepository | null>,
  ): Promise<KeyAndRepository | null> {
    if (this.options.ttlMs <= 0) return find();
    const id = `${hashApiKey(secret)} ${owner.toLowerCase()}/${repository.toLowerCase()}`;
    const now = this.now();
    const cached = this.entries.get(id);
    if (cached && cached.expiresAt > now) return cached.value;
    if (cached) this.entries.delete(id);
    const found = await find();
    // Whether the repository exists does not decide what is kept: otherwise a refusal would
    // be faster for an existing repository (cached) than for a missing one, and any key
    // holder could time which repositories of other owners exist.
    if (found && !found.key.revokedAt) {
      if (this.entries.size >= this.maxEntries) {
        const oldest = this.entries.keys().next();
        if (!oldest.done) this.entries.delete(oldest.value);
      }
      this.entries.set(id, { value: found, expiresAt: this.now() + this.options.ttlMs });
    }
    return found;
  }
}
