import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RepositoryLookup } from '../../../app/github/translation/repository-lookup.ts';
import type { Store } from '../../../app/store/database.ts';
import { ensureRepository } from '../../../app/store/repositories.ts';
import { openTestStore } from '../../support/test-store.ts';

let store: Store;
let count = 0;

beforeAll(async () => {
  store = await openTestStore();
});

afterAll(async () => {
  await store?.close();
});

async function freshRepository(): Promise<{ owner: string; name: string; id: string }> {
  count += 1;
  const repository = await ensureRepository(store.db, { owner: 'Acme', name: `lookup-${count}` });
  return { owner: repository.owner, name: repository.name, id: repository.id };
}

const deleteRow = (id: string) => sql`DELETE FROM repositories WHERE id = ${id}::bigint`.execute(store.db);

describe('repository lookups kept a few seconds', () => {
  it('a row found is kept for ttlMs, whatever the table says meanwhile, then read again', async () => {
    let now = 1_000;
    const lookup = new RepositoryLookup({ ttlMs: 5_000, now: () => now });
    const repo = await freshRepository();

    expect((await lookup.find(store.db, 'acme', repo.name.toUpperCase()))?.id).toBe(repo.id);
    await deleteRow(repo.id);
    now += 4_999;
    expect((await lookup.find(store.db, repo.owner, repo.name))?.id).toBe(repo.id);
    now += 1;
    expect(await lookup.find(store.db, repo.owner, repo.name)).toBeNull();
  });

  it('forgetAll reads every row again; a name not found is not kept', async () => {
    const lookup = new RepositoryLookup({ ttlMs: 60_000 });
    const repo = await freshRepository();
    await lookup.find(store.db, repo.owner, repo.name);
    await deleteRow(repo.id);

    lookup.forgetAll();
    expect(await lookup.find(store.db, repo.owner, repo.name)).toBeNull();
    const again = await ensureRepository(store.db, { owner: repo.owner, name: repo.name });
    expect((await lookup.find(store.db, repo.owner, repo.name))?.id).toBe(again.id);
  });

  it('a row this process wrote is what the next lookups get', async () => {
    const lookup = new RepositoryLookup({ ttlMs: 60_000 });
    const repo = await freshRepository();
    await lookup.find(store.db, repo.owner, repo.name);
    const moved = { id: repo.id, owner: repo.owner, name: repo.name, fullName: `${repo.owner}/${repo.name}` };
    lookup.keep({ ...moved, defaultBranch: 'trunk', installationId: '77' });

    expect(await lookup.find(store.db, repo.owner.toLowerCase(), repo.name)).toMatchObject({
      defaultBranch: 'trunk',
      installationId: '77',
    });
  });

  it('keeps at most maxEntries rows, dropping the oldest', async () => {
    const lookup = new RepositoryLookup({ ttlMs: 60_000, maxEntries: 2 });
    const [a, b, c] = [await freshRepository(), await freshRepository(), await freshRepository()];
    for (const r of [a, b, c]) await lookup.find(store.db, r.owner, r.name);
    await deleteRow(a.id);
    await deleteRow(c.id);

    expect(await lookup.find(store.db, a.owner, a.name)).toBeNull();
    expect((await lookup.find(store.db, c.owner, c.name))?.id).toBe(c.id);
  });
});
