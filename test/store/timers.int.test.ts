import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../app/store/database.ts';
import { ensureRepository } from '../../app/store/repositories.ts';
import { inRepositoryTransaction } from '../../app/store/repository-transaction.ts';
import {
  claimDueTimers,
  findDueRepositories,
  findNextTimerDue,
  loadTimers,
  saveTimers,
} from '../../app/store/timers.ts';
import { openTestStore } from '../support/test-store.ts';

let store: Store;
let repoCount = 0;
const t0 = new Date('2026-11-02T09:00:00.000Z');
const at = (seconds: number) => new Date(t0.getTime() + seconds * 1000);

beforeAll(async () => {
  store = await openTestStore();
});

afterAll(async () => {
  await store?.close();
});

async function freshRepo(): Promise<string> {
  repoCount += 1;
  return (await ensureRepository(store.db, { owner: 'acme', name: `timers-${repoCount}` })).id;
}

const save = (repositoryId: string, timers: { key: string; at: Date }[]) =>
  inRepositoryTransaction(store.db, repositoryId, (tx) => saveTimers(tx, { repositoryId, timers }));

describe('timers', () => {
  it('replaces a wake-up set again under the same key; the last one of a step counts', async () => {
    const repo = await freshRepo();
    await save(repo, [{ key: 'wake', at: at(60) }]);
    await save(repo, [
      { key: 'wake', at: at(30) },
      { key: 'wake', at: at(90) },
      { key: 'other', at: at(10) },
    ]);
    expect(await loadTimers(store.db, repo)).toEqual([
      { repositoryId: repo, key: 'other', dueAt: at(10) },
      { repositoryId: repo, key: 'wake', dueAt: at(90) },
    ]);
  });

  it('claims only due wake-ups, once, and keeps them when the claiming transaction rolls back', async () => {
    const repo = await freshRepo();
    await save(repo, [
      { key: 'soon', at: at(10) },
      { key: 'later', at: at(100) },
    ]);
    expect(await claimDueTimers(store.db, { now: at(5), repositoryId: repo })).toEqual([]);
    expect(await findDueRepositories(store.db, { now: at(10), limit: 1000 })).toContain(repo);

    await expect(
      inRepositoryTransaction(store.db, repo, async (tx) => {
        expect(await claimDueTimers(tx, { now: at(10), repositoryId: repo })).toHaveLength(1);
        throw new Error('step failed');
      }),
    ).rejects.toThrow('step failed');
    expect(await loadTimers(store.db, repo)).toHaveLength(2);

    const claimed = await claimDueTimers(store.db, { now: at(10), repositoryId: repo });
    expect(claimed).toEqual([{ repositoryId: repo, key: 'soon', dueAt: at(10) }]);
    expect(await claimDueTimers(store.db, { now: at(10), repositoryId: repo })).toEqual([]);
    expect(await findDueRepositories(store.db, { now: at(10), limit: 1000 })).not.toContain(repo);
    expect(await loadTimers(store.db, repo)).toEqual([{ repositoryId: repo, key: 'later', dueAt: at(100) }]);
  });

  it('tells the earliest wake-up of all repositories', async () => {
    const repo = await freshRepo();
    await save(repo, [{ key: 'early', at: new Date('2000-01-01T00:00:00.000Z') }]);
    expect(await findNextTimerDue(store.db)).toEqual(new Date('2000-01-01T00:00:00.000Z'));
    await claimDueTimers(store.db, { now: new Date('2000-01-01T00:00:00.000Z') });
    expect((await findNextTimerDue(store.db))?.getTime() ?? Number.POSITIVE_INFINITY).toBeGreaterThan(
      Date.parse('2000-01-01T00:00:00.000Z'),
    );
  });
});
