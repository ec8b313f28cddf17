import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Scheduler } from '../../../app/github/loops/scheduler.ts';
import type { IdSource } from '../../../app/queue/ids.ts';
import type { Db, Store } from '../../../app/store/database.ts';
import { ensureRepository } from '../../../app/store/repositories.ts';
import { inRepositoryTransaction } from '../../../app/store/repository-transaction.ts';
import { runStep } from '../../../app/store/step-transaction.ts';
import { loadTimers, saveTimers } from '../../../app/store/timers.ts';
import { createCountingIds } from '../../queue/support/scenario.ts';
import { openedAndQueued } from '../../support/queue-inputs.ts';
import { backend, createReopenableStore, openTestStore } from '../../support/test-store.ts';

let store: Store;
let repoCount = 0;
const t0 = new Date('2026-11-02T09:00:00.000Z');
const at = (seconds: number) => new Date(t0.getTime() + seconds * 1000);
const quiet = pino({ level: 'silent' });
const HOUR = 3600;
/**
 * The stall doctor's first look at a tested commit: 1.5 × the longest CI run it knows, at least
 * 10 minutes, while it knows fewer than five (app/queue/stall.ts) — before the checks timeout.
 */
const STALL_CHECK = 15 * 60;

beforeAll(async () => {
  store = await openTestStore();
});

afterAll(async () => {
  await store?.close();
});

async function freshRepo(db: Db = store.db): Promise<string> {
  repoCount += 1;
  return (await ensureRepository(db, { owner: 'acme', name: `scheduler-${repoCount}` })).id;
}

/**
 * A pull request whose batch is being tested: the engine wants a wake-up for the stall doctor
 * (15 min), then at its checks timeout (1 h).
 */
async function testingBatch(db: Db, repositoryId: string, ids: IdSource): Promise<void> {
  const queued = await runStep({ db, repositoryId, inputs: openedAndQueued(1), now: t0, ids });
  const batch = queued.state!.lanes[0]!.batches[0]!;
  const prepared = {
    type: 'test_branch_prepared' as const,
    batchId: batch.id,
    attempt: 1,
    sha: 'tested-1',
    draftPullRequest: 900,
  };
  await runStep({ db, repositoryId, inputs: [prepared], now: t0, ids });
}

const checksEnds = async (db: Db, repositoryId: string) =>
  db
    .selectFrom('events')
    .select(['type', 'metadata'])
    .where('repository_id', '=', repositoryId)
    .where('type', '=', 'action.queue.checks_end')
    .execute();

const setWakeUp = (repositoryId: string, due: Date) =>
  inRepositoryTransaction(store.db, repositoryId, (tx) =>
    saveTimers(tx, { repositoryId, timers: [{ key: 'schedule_wake_up:queue', at: due }] }),
  );

describe('Scheduler', () => {
  it('feeds a due wake-up back as a tick when it is due, not before', async () => {
    const repo = await freshRepo();
    const ids = createCountingIds();
    await testingBatch(store.db, repo, ids);
    expect((await loadTimers(store.db, repo)).map((t) => t.dueAt)).toEqual([at(STALL_CHECK)]);
    const scheduler = new Scheduler({ store, logger: quiet, ids });

    await scheduler.runUntilIdle(at(STALL_CHECK - 1));
    expect((await loadTimers(store.db, repo)).map((t) => t.dueAt)).toEqual([at(STALL_CHECK)]);
    // The stall doctor's tick only looks: the next wake-up is the checks timeout.
    await scheduler.runUntilIdle(at(STALL_CHECK));
    expect((await loadTimers(store.db, repo)).map((t) => t.dueAt)).toEqual([at(HOUR)]);

    await scheduler.runUntilIdle(at(HOUR - 1));
    expect(await checksEnds(store.db, repo)).toEqual([]);
    expect(await loadTimers(store.db, repo)).toHaveLength(1);

    await scheduler.runUntilIdle(at(HOUR));
    // The tick made the engine see the timeout: the checks ended as timed out.
    const ends = await checksEnds(store.db, repo);
    expect(ends).toHaveLength(1);
    expect(JSON.stringify(ends[0]!.metadata)).toMatch(/TIMEOUT|timed out/i);
    expect((await loadTimers(store.db, repo)).every((t) => t.dueAt.getTime() > at(HOUR).getTime())).toBe(
      true,
    );
  });

  it('fires a replaced wake-up once, at its new time', async () => {
    const repo = await freshRepo();
    const scheduler = new Scheduler({ store, logger: quiet, ids: createCountingIds() });
    await setWakeUp(repo, at(60));
    await setWakeUp(repo, at(120));

    // Other tests' repositories have no wake-up due in this window (theirs are an hour on).
    expect(await scheduler.runUntilIdle(at(60))).toBe(0);
    expect(await scheduler.runUntilIdle(at(119))).toBe(0);
    expect(await scheduler.runUntilIdle(at(120))).toBe(1);
    expect(await loadTimers(store.db, repo)).toEqual([]);
    expect(await scheduler.runUntilIdle(at(180))).toBe(0);
  });

  it('fires wake-ups stored before a restart', async () => {
    const shared = await createReopenableStore();
    const ids = createCountingIds();
    let repo: string;
    const first = await shared.open();
    try {
      repo = await freshRepo(first.db);
      await testingBatch(first.db, repo, ids);
    } finally {
      await first.close();
    }
    const second = await shared.open();
    try {
      expect((await loadTimers(second.db, repo)).map((t) => t.dueAt)).toEqual([at(STALL_CHECK)]);
      const scheduler = new Scheduler({ store: second, logger: quiet, ids });
      expect(await scheduler.runUntilIdle(at(STALL_CHECK))).toBe(1);
      expect((await loadTimers(second.db, repo)).map((t) => t.dueAt)).toEqual([at(HOUR)]);
      expect(await scheduler.runUntilIdle(at(HOUR))).toBe(1);
      expect(await checksEnds(second.db, repo)).toHaveLength(1);
    } finally {
      await second.close();
      await shared.dispose();
    }
  });

  it('start() fires a wake-up at its time on the real clock, and wake() makes it see a new earlier one', async () => {
    const repo = await freshRepo();
    const scheduler = new Scheduler({ store, logger: quiet, ids: createCountingIds(), maxSleepMs: 60_000 });
    scheduler.start();
    try {
      // Nothing due: the loop sleeps up to a minute, unless woken.
      await new Promise((r) => setTimeout(r, 100));
      const due = new Date(Date.now() + 300);
      await setWakeUp(repo, due);
      scheduler.wake();
      const deadline = Date.now() + 10_000;
      while ((await loadTimers(store.db, repo)).length > 0 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 10));
      }
      expect(await loadTimers(store.db, repo)).toEqual([]);
      expect(Date.now()).toBeGreaterThanOrEqual(due.getTime());
    } finally {
      await scheduler.stop();
    }
  });

  it.skipIf(backend === 'pglite')(
    'two schedulers on two stores of one PostgreSQL fire each due wake-up once (PostgreSQL only: PGlite has one process)',
    async () => {
      const shared = await createReopenableStore();
      const [one, two] = [await shared.open(), await shared.open()];
      try {
        const repos: string[] = [];
        for (let i = 0; i < 12; i++) repos.push(await freshRepo(one.db));
        for (const repositoryId of repos) {
          await inRepositoryTransaction(one.db, repositoryId, (tx) =>
            saveTimers(tx, { repositoryId, timers: [{ key: 'schedule_wake_up:queue', at: at(10) }] }),
          );
        }
        const schedulers = [one, two].map(
          (s) => new Scheduler({ store: s, logger: quiet, ids: createCountingIds(), concurrency: 2 }),
        );
        const ticks = await Promise.all(schedulers.map((s) => s.runUntilIdle(at(10))));
        expect(ticks[0]! + ticks[1]!).toBe(12);
        expect(await one.db.selectFrom('timers').selectAll().execute()).toEqual([]);
      } finally {
        await one.close();
        await two.close();
        await shared.dispose();
      }
    },
  );
});
