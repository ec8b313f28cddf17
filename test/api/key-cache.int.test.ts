import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GithubPermissions } from '../../app/api/auth/github-permissions.ts';
import { KeyCache } from '../../app/api/auth/key-cache.ts';
import { buildServer } from '../../app/api/server.ts';
import {
  createApiKey,
  findKeyAndRepository,
  type KeyAndRepository,
  revokeApiKey,
} from '../../app/store/api-keys.ts';
import type { Store } from '../../app/store/database.ts';
import { ensureRepository } from '../../app/store/repositories.ts';
import { FAKE_GITHUB_API } from '../support/api-harness.ts';
import { openTestStore } from '../support/test-store.ts';

let store: Store;

beforeAll(async () => {
  store = await openTestStore();
  await ensureRepository(store.db, { owner: 'acme', name: 'widgets' });
});

afterAll(async () => {
  await store?.close();
});

const newKey = async () =>
  createApiKey(store.db, { name: 'k', owner: 'acme', repository: null, role: 'read', now: new Date() });

async function server(keyCacheTtlMs?: number) {
  const app = await buildServer({
    store,
    github: new GithubPermissions({ apiBaseUrl: FAKE_GITHUB_API }),
    ...(keyCacheTtlMs === undefined ? {} : { keyCacheTtlMs }),
  });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const status = async (secret: string, path = '/v1/repos/acme/widgets/merge-queue/status') =>
    (await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${secret}` } })).status;
  return { app, base, status };
}

describe('KeyCache', () => {
  it('reuses a live key for ttlMs, then looks it up again', async () => {
    let clock = 0;
    const cache = new KeyCache({ ttlMs: 2_000, now: () => clock });
    const { secret } = await newKey();
    let lookups = 0;
    const find = () => {
      lookups++;
      return findKeyAndRepository(store.db, secret, 'acme', 'widgets');
    };
    const first = await cache.lookup(secret, 'acme', 'widgets', find);
    expect(first?.repository?.fullName).toBe('acme/widgets');
    clock = 1_999;
    expect(await cache.lookup(secret, 'ACME', 'Widgets', find)).toBe(first);
    expect(lookups).toBe(1);
    clock = 2_000;
    await cache.lookup(secret, 'acme', 'widgets', find);
    expect(lookups).toBe(2);
  });

  it('keeps neither unknown keys nor revoked keys, and looks again each time', async () => {
    const cache = new KeyCache({ ttlMs: 60_000, now: () => 0 });
    const { secret, key } = await newKey();
    await revokeApiKey(store.db, key.id, new Date());
    for (const [s, check] of [
      ['ty_unknown', (found: KeyAndRepository | null) => expect(found).toBeNull()],
      [secret, (found: KeyAndRepository | null) => expect(found?.key.revokedAt).toBeInstanceOf(Date)],
    ] as const) {
      let lookups = 0;
      const find = () => {
        lookups++;
        return findKeyAndRepository(store.db, s, 'acme', 'widgets');
      };
      check(await cache.lookup(s, 'acme', 'widgets', find));
      await cache.lookup(s, 'acme', 'widgets', find);
      expect(lookups).toBe(2);
    }
  });

  it('keeps a live key with an unknown repository like any other: refusing a missing repository costs what refusing an existing one does', async () => {
    const cache = new KeyCache({ ttlMs: 60_000, now: () => 0 });
    const live = await newKey();
    let lookups = 0;
    const find = () => {
      lookups++;
      return findKeyAndRepository(store.db, live.secret, 'acme', 'not-yet');
    };
    expect((await cache.lookup(live.secret, 'acme', 'not-yet', find))?.repository).toBeNull();
    expect((await cache.lookup(live.secret, 'acme', 'not-yet', find))?.repository).toBeNull();
    expect(lookups).toBe(1);
  });

  it('forgets the oldest lookup beyond maxEntries', async () => {
    const cache = new KeyCache({ ttlMs: 60_000, maxEntries: 1, now: () => 0 });
    const a = await newKey();
    const b = await newKey();
    let lookups = 0;
    const find = (secret: string) => () => {
      lookups++;
      return findKeyAndRepository(store.db, secret, 'acme', 'widgets');
    };
    await cache.lookup(a.secret, 'acme', 'widgets', find(a.secret));
    await cache.lookup(b.secret, 'acme', 'widgets', find(b.secret));
    await cache.lookup(b.secret, 'acme', 'widgets', find(b.secret));
    expect(lookups).toBe(2);
    await cache.lookup(a.secret, 'acme', 'widgets', find(a.secret));
    expect(lookups).toBe(3);
  });
});

describe('revoking a key while the server runs', () => {
  it('is refused on the next request when the cache is off (keyCacheTtlMs: 0)', async () => {
    const { app, status } = await server(0);
    try {
      const { secret, key } = await newKey();
      expect(await status(secret)).toBe(200);
      await revokeApiKey(store.db, key.id, new Date());
      expect(await status(secret)).toBe(403);
    } finally {
      await app.close();
    }
  });

  it('is refused once the cache time has passed, however busy the key was', async () => {
    const ttl = 300;
    const { app, status } = await server(ttl);
    try {
      const { secret, key } = await newKey();
      expect(await status(secret)).toBe(200);
      expect(await status(secret)).toBe(200);
      await revokeApiKey(store.db, key.id, new Date());
      const revokedAt = performance.now();
      await new Promise((r) => setTimeout(r, ttl + 50));
      expect(performance.now() - revokedAt).toBeGreaterThan(ttl);
      expect(await status(secret)).toBe(403);
      expect(await status(secret)).toBe(403);
    } finally {
      await app.close();
    }
  });

  it('by default (2 s) still refuses a revoked key within a few seconds', async () => {
    const { app, status } = await server();
    try {
      const { secret, key } = await newKey();
      expect(await status(secret)).toBe(200);
      await revokeApiKey(store.db, key.id, new Date());
      await new Promise((r) => setTimeout(r, 2_100));
      expect(await status(secret)).toBe(403);
    } finally {
      await app.close();
    }
  });

  it('does not let a cached key reach another repository or another owner', async () => {
    await ensureRepository(store.db, { owner: 'acme', name: 'gadgets' });
    await ensureRepository(store.db, { owner: 'globex', name: 'widgets' });
    const { app, base, status } = await server(60_000);
    try {
      const { secret } = await createApiKey(store.db, {
        name: 'scoped',
        owner: 'acme',
        repository: 'widgets',
        role: 'read',
        now: new Date(),
      });
      expect(await status(secret)).toBe(200);
      expect(await status(secret, '/v1/repos/acme/gadgets/merge-queue/status')).toBe(403);
      expect(await status(secret, '/v1/repos/globex/widgets/merge-queue/status')).toBe(403);
      // Write needs an admin key even when the read was cached.
      const put = await fetch(`${base}/v1/repos/acme/widgets/merge-queue/pause`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
        body: JSON.stringify({ reason: 'x' }),
      });
      expect(put.status).toBe(403);
    } finally {
      await app.close();
    }
  });
});
