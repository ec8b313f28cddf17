import { createHash } from 'node:crypto';
import { HttpError } from '../errors.ts';

export type Access = 'none' | 'read' | 'write';

export interface GithubUser {
  id: number;
  login: string;
}

export interface GithubPermissionsOptions {
  /** GitHub's REST API base URL (the sandbox code host's in sandbox mode). */
  apiBaseUrl: string;
  /** How long an answer is reused. */
  ttlMs?: number;
  /** The clock, for the cache only. */
  now?: () => number;
}

interface Cached<T> {
  value: T;
  expiresAt: number;
}

/**
 * Asks GitHub what a token may do on a repository and who it belongs to, and remembers the
 * answer briefly, keyed by a hash of the token (never the token itself).
 */
export class GithubPermissions {
  private readonly access = new Map<string, Cached<Access>>();
  private readonly users = new Map<string, Cached<GithubUser>>();
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(private readonly options: GithubPermissionsOptions) {
    this.ttlMs = options.ttlMs ?? 60_000;
    this.now = options.now ?? Date.now;
  }

  private static hash(token: string): string {
    return createHash('sha256').update(token).digest('base64url');
  }

  private async get(path: string, token: string): Promise<Response> {
    try {
      return await fetch(new URL(path, this.options.apiBaseUrl.replace(/\/?$/, '/')), {
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/vnd.github+json',
          'x-github-api-version': '2022-11-28',
          'user-agent': 'trainyard',
        },
        signal: AbortSignal.timeout(10_000),
      });
    } catch {
      throw new HttpError(503, 'GitHub could not be reached to verify the token; try again later');
    }
  }

  private remember<T>(cache: Map<string, Cached<T>>, key: string, value: T): T {
    if (cache.size > 10_000) cache.clear(); // bounded: a flood of tokens cannot grow it forever
    cache.set(key, { value, expiresAt: this.now() + this.ttlMs });
    return value;
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
      throw new HttpError(
        503,
        'GitHub gave an answer that is not JSON while verifying the token; try again later',
      );
    }
    return body as Record<string, unknown>;
  }

  /** `pull` ⇒ read; `push`, `maintain` or `admin` ⇒ write; no access ⇒ none. */
  async accessTo(token: string, owner: string, repository: string): Promise<Access> {
    const key = `${GithubPermissions.hash(token)}:${owner.toLowerCase()}/${repository.toLowerCase()}`;
    const hit = this.access.get(key);
    if (hit && hit.expiresAt > this.now()) return hit.value;

    const response = await this.get(
      `repos/${encodeURIComponent(owner)}/${encodeURIComponent(repository)}`,
      token,
    );
    if (response.status === 401 || response.status === 403 || response.status === 404) {
      await response.body?.cancel();
      return this.remember(this.access, key, 'none');
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new HttpError(
        503,
        `GitHub answered ${response.status} while verifying the token; try again later`,
      );
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
    return this.remember(this.access, key, access);
  }

  /** The account behind a token, to name it as the actor of a write. */
  async userOf(token: string): Promise<GithubUser | null> {
    const key = GithubPermissions.hash(token);
    const hit = this.users.get(key);
    if (hit && hit.expiresAt > this.now()) return hit.value;
    const response = await this.get('user', token);
    if (!response.ok) {
      await response.body?.cancel();
      if (response.status >= 500) throw new HttpError(503, 'GitHub could not tell who this token belongs to');
      return null;
    }
    const body = await this.readJson(response);
    if (typeof body['id'] !== 'number' || typeof body['login'] !== 'string') {
      throw new HttpError(503, 'GitHub answered without saying who this token belongs to; try again later');
    }
    return this.remember(this.users, key, { id: body['id'], login: body['login'] });
  }
}
