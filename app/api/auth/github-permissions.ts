import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import pLimit from 'p-limit';
import { HttpError } from '../errors.ts';

export type Access = 'none' | 'read' | 'write';

export interface GithubUser {
  id: number;
  login: string;
}

export interface GithubPermissionsOptions {
  /** GitHub's REST API base URL (the sandbox code host's in sandbox mode). */
  apiBaseUrl: string;
  /** How long an answer that grants access (or names a user) is reused. */
  ttlMs?: number;
  /** How long a refusal (401, 403, 404) is reused: short, so a newly granted access shows soon. */
  refusalTtlMs?: number;
  /** Requests to GitHub under way at once; the rest wait their turn. */
  concurrency?: number;
  /** Checks that may wait for a turn; past that, a 503 at once rather than a growing queue. */
  maxWaiting?: number;
  /** How long one request to GitHub may take. */
  timeoutMs?: number;
  /** After GitHub could not be reached, how long every check answers 503 at once. */
  unreachableForMs?: number;
  /** The clock, for the caches and the unreachable window. */
  now?: () => number;
}

const unavailable = (why: string) => new HttpError(503, `${why}; try again later`);

/**
 * Asks GitHub what a token may do on a repository and who it belongs to, and remembers the
 * answer briefly, keyed by a hash of the token (never the token itself). Every token a caller
 * makes up costs a request to GitHub, so those requests are bounded: a few at once, a bounded
 * queue behind them, one request for many identical checks, refusals remembered, and a fast
 * 503 for a while once GitHub could not be reached instead of each check waiting its timeout.
 */
export class GithubPermissions {
  private readonly access: LRUCache<string, Access>;
  private readonly users: LRUCache<string, GithubUser>;
  private readonly inFlight = new Map<string, Promise<unknown>>();
  private readonly limit: ReturnType<typeof pLimit>;
  private readonly now: () => number;
  private unreachableUntil = 0;

  constructor(private readonly options: GithubPermissionsOptions) {
    this.now = options.now ?? Date.now;
    const cache = { max: 10_000, ttl: options.ttlMs ?? 60_000, ttlResolution: 0, perf: { now: this.now } };
    this.access = new LRUCache(cache);
    this.users = new LRUCache(cache);
    this.limit = pLimit(options.concurrency ?? 8);
  }

  private static hash(token: string): string {
    return createHash('sha256').update(token).digest('base64url');
  }

  /** One GitHub request for all identical checks under way; bounded in number and time. */
  private once<T>(key: string, check: () => Promise<T>): Promise<T> {
    const running = this.inFlight.get(key);
    if (running) return running as Promise<T>;
    if (this.now() < this.unreachableUntil) {
      return Promise.reject(unavailable('GitHub could not be reached to verify the token'));
    }
    if (this.limit.pendingCount >= (this.options.maxWaiting ?? 64)) {
      return Promise.reject(unavailable('too many token checks are waiting for GitHub'));
    }
    const promise = this.limit(check).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, promise);
    return promise;
  }

  private async get(path: string, token: string): Promise<Response> {
    if (this.now() < this.unreachableUntil)
      throw unavailable('GitHub could not be reached to verify the token');
    try {
      return await fetch(new URL(path, this.options.apiBaseUrl.replace(/\/?$/, '/')), {
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/vnd.github+json',
          'x-github-api-version': '2022-11-28',
          'user-agent': 'trainyard',
        },
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 5_000),
      });
    } catch {
      this.unreachableUntil = this.now() + (this.options.unreachableForMs ?? 5_000);
      throw unavailable('GitHub could not be reached to verify the token');
    }
  }

  /** GitHub's JSON object, or a 503: a proxy's HTML page must not crash a request. */
  private async readJson(response: Response): Promise<Record<string, unknown>> {
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      body = undefined;
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw unavailable('GitHub gave an answer that is not JSON while verifying the token');
    }
    return body as Record<string, unknown>;
  }

  /** `pull` ⇒ read; `push`, `maintain` or `admin` ⇒ write; no access ⇒ none. */
  async accessTo(token: string, owner: string, repository: string): Promise<Access> {
    const key = `${GithubPermissions.hash(token)}:${owner.toLowerCase()}/${repository.toLowerCase()}`;
    const hit = this.access.get(key);
    if (hit !== undefined) return hit;
    return this.once(`access:${key}`, async () => {
      const response = await this.get(
        `repos/${encodeURIComponent(owner)}/${encodeURIComponent(repository)}`,
        token,
      );
      if (response.status === 401 || response.status === 403 || response.status === 404) {
        await response.body?.cancel();
        this.access.set(key, 'none', { ttl: this.options.refusalTtlMs ?? 10_000 });
        return 'none';
      }
      if (!response.ok) {
        await response.body?.cancel();
        throw unavailable(`GitHub answered ${response.status} while verifying the token`);
      }
      const body = await this.readJson(response);
      const p = body['permissions'] as Record<string, unknown> | undefined;
      // Installation tokens see no `permissions`: they can read what they can fetch.
      const access: Access = p
        ? p['push'] || p['maintain'] || p['admin']
          ? 'write'
          : p['pull']
            ? 'read'
            : 'none'
        : 'read';
      this.access.set(key, access);
      return access;
    });
  }

  /** The account behind a token, to name it as the actor of a write. */
  async userOf(token: string): Promise<GithubUser | null> {
    const key = GithubPermissions.hash(token);
    const hit = this.users.get(key);
    if (hit !== undefined) return hit;
    return this.once(`user:${key}`, async () => {
      const response = await this.get('user', token);
      if (!response.ok) {
        await response.body?.cancel();
        if (response.status >= 500) throw unavailable('GitHub could not tell who this token belongs to');
        return null;
      }
      const body = await this.readJson(response);
      if (typeof body['id'] !== 'number' || typeof body['login'] !== 'string') {
        throw unavailable('GitHub answered without saying who this token belongs to');
      }
      const user = { id: body['id'], login: body['login'] };
      this.users.set(key, user);
      return user;
    });
  }
}
