import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GithubRequestError } from '../../../app/github/client/errors.ts';
import { EffectFailedError } from '../../../app/github/outbox/effect-failure.ts';
import { OutboxWorker } from '../../../app/github/outbox/outbox-worker.ts';
import type { QueueInput } from '../../../app/queue/inputs.ts';
import { queueStateSchema } from '../../../app/queue/state.schema.ts';
import type { QueueState } from '../../../app/queue/state.ts';
import { computeMergeQueueStatus } from '../../../app/queue/status-projection.ts';
import { createRandom } from '../../../app/sim/random.ts';
import type { Db, Store } from '../../../app/store/database.ts';
import { claimOutbox, countPendingOutbox, listFailedOutbox } from '../../../app/store/outbox.ts';
import { loadQueueState } from '../../../app/store/queue-state.ts';
import { ensureRepository } from '../../../app/store/repositories.ts';
import { runStep } from '../../../app/store/step-transaction.ts';
import { loadTimers } from '../../../app/store/timers.ts';
import { createCountingIds } from '../../queue/support/scenario.ts';
import { CountingExecutor } from '../../support/counting-executor.ts';
import { openedAndQueued } from '../../support/queue-inputs.ts';
import { backend, createReopenableStore, openTestStore } from '../../support/test-store.ts';

let store: Store;
let repoCount = 0;
const t0 = new Date('2026-11-02T09:00:00.000Z');
const quiet = pino({ level: 'silent' });

beforeAll(async () => {
  store = await openTestStore();
});

afterAll(async () => {
  await store?.close();
});

async function freshRepo(db: Db = store.db): Promise<string> {
  repoCount += 1;
  return (await ensureRepository(db, { owner: 'acme', name: `worker-${repoCount}` })).id;
}

function captureLogs() {
  const lines: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });
  return { logger, lines };
}

async function outboxOf(repositoryId: string, db: Db = store.db) {
  return db
    .selectFrom('outbox')
    .select(['key', 'attempts', 'available_at', 'last_error', 'done_at'])
    .where('repository_id', '=', repositoryId)
    .orderBy('id')
    .execute();
}

async function eventsOf(repositoryId: string, db: Db = store.db) {
  return db
    .selectFrom('events')
    .select(['id', 'type', 'pull_request'])
    .where('repository_id', '=', repositoryId)
    .orderBy('id')
    .execute();
}

/** Polls `condition` on the real clock; fails after 10 s. */
async function waitFor(condition: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met within 10 s');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A clock a test moves by hand. */
function manualClock(start: Date) {
  let now = start;
  return {
    now: () => now,
    set: (to: Date) => {
      now = to;
    },
  };
}

describe('OutboxWorker', () => {
  it('runs each effect once, in enqueue order, and records its result with the row done', async () => {
    const repo = await freshRepo();
    const ids = createCountingIds();
    const queued = await runStep({
      db: store.db,
      repositoryId: repo,
      inputs: openedAndQueued(1),
      now: t0,
      ids,
    });
    const executor = new CountingExecutor();
    const worker = new OutboxWorker({ store, execute: executor.execute, logger: quiet, ids, now: () => t0 });

    await worker.runUntilIdle();

    const keys = queued.enqueued.map((e) => e.key);
    // Then the effects of the results (the check run updated when testing started).
    expect(executor.order.slice(0, keys.length)).toEqual(keys.map((k) => `${repo} ${k}`));
    expect(executor.repeated()).toEqual([]);
    expect(await countPendingOutbox(store.db, repo)).toBe(0);
    // The prepared test branch is now being tested, and the engine asked to look again at its timeout.
    const state = (await loadQueueState(store.db, repo)) as QueueState;
    const batch = state.lanes[0]!.batches[0]!;
    expect(batch.phase === 'trial' && batch.trial.phase).toBe('testing');
    expect((await loadTimers(store.db, repo)).map((t) => t.key)).toEqual(['schedule_wake_up:queue']);
    expect((await eventsOf(repo)).map((e) => e.type)).toContain('action.queue.checks_start');
  });

  it('retries a failing effect with growing, jittered delays, counts attempts, holds later rows back and logs no token', async () => {
    const repo = await freshRepo();
    const ids = createCountingIds();
    await runStep({ db: store.db, repositoryId: repo, inputs: openedAndQueued(1), now: t0, ids });
    const token = `ghs_${'S3cr3t'.repeat(6)}`;
    const executor = new CountingExecutor({
      fail: (effect, nth) => {
        if (!effect.key.startsWith('react_to_comment') || nth > 3) return null;
        return Object.assign(new Error(`502 from GitHub for token ${token}`), {
          request: { headers: { authorization: `token ${token}` } },
        });
      },
    });
    const clock = manualClock(t0);
    const { logger, lines } = captureLogs();
    const random = createRandom(42);
    const worker = new OutboxWorker({
      store,
      execute: executor.execute,
      logger,
      ids,
      now: clock.now,
      random: () => random.next(),
    });

    const delays: number[] = [];
    for (let attempt = 1; attempt <= 3; attempt++) {
      await worker.runUntilIdle();
      const [head, ...rest] = await outboxOf(repo);
      expect(head).toMatchObject({ key: 'react_to_comment:10001', attempts: attempt, done_at: null });
      expect(head!.last_error).toContain('502 from GitHub');
      expect(head!.last_error).not.toContain(token);
      // The rows behind it did not run.
      expect(rest.every((r) => r.attempts === 0)).toBe(true);
      const delay = head!.available_at.getTime() - clock.now().getTime();
      // Equal jitter: between half and all of 1 s, 2 s, 4 s.
      expect(delay).toBeGreaterThanOrEqual(500 * 2 ** (attempt - 1));
      expect(delay).toBeLessThanOrEqual(1000 * 2 ** (attempt - 1));
      delays.push(delay);
      // Not due yet: nothing runs.
      clock.set(new Date(head!.available_at.getTime() - 1));
      expect(await worker.runUntilIdle()).toBe(0);
      clock.set(head!.available_at);
    }
    await worker.runUntilIdle();

    expect(executor.count(repo, 'react_to_comment:10001')).toBe(4);
    expect((await outboxOf(repo)).every((r) => r.done_at !== null)).toBe(true);
    const retries = lines
      .map((l) => JSON.parse(l))
      .filter((l) => l.msg === 'outbox: effect failed; retrying later');
    expect(retries.map((l) => l.delayMs)).toEqual(delays);
    expect(retries[0]).toMatchObject({ repositoryId: repo, key: 'react_to_comment:10001', attempt: 1 });
    expect(lines.join('\n')).not.toContain(token);
    expect(lines.join('\n')).not.toContain('S3cr3t');
  });

  it('caps the delay at five minutes', async () => {
    const repo = await freshRepo();
    const ids = createCountingIds();
    await runStep({ db: store.db, repositoryId: repo, inputs: openedAndQueued(1), now: t0, ids });
    const executor = new CountingExecutor({ fail: () => new Error('GitHub is down') });
    const clock = manualClock(t0);
    const worker = new OutboxWorker({
      store,
      execute: executor.execute,
      logger: quiet,
      ids,
      now: clock.now,
      retryLimit: { maxAttempts: 20 },
    });
    for (let attempt = 1; attempt <= 12; attempt++) {
      await worker.runUntilIdle();
      const [head] = await outboxOf(repo);
      expect(head!.attempts).toBe(attempt);
      expect(head!.available_at.getTime() - clock.now().getTime()).toBeLessThanOrEqual(300_000);
      clock.set(head!.available_at);
    }
    const [head] = await outboxOf(repo);
    expect(head!.available_at.getTime() - t0.getTime()).toBeGreaterThan(300_000);
  });

  it('gives up after the retry limit: the row fails with what GitHub kept answering', async () => {
    const repo = await freshRepo();
    const ids = createCountingIds();
    await runStep({ db: store.db, repositoryId: repo, inputs: openedAndQueued(1), now: t0, ids });
    const executor = new CountingExecutor({
      fail: () =>
        new GithubRequestError({
          status: 502,
          githubMessage: 'Server Error',
          request: 'POST /repos/acme/widgets/merges',
          transient: true,
        }),
    });
    const clock = manualClock(t0);
    const worker = new OutboxWorker({
      store,
      execute: executor.execute,
      logger: quiet,
      ids,
      now: clock.now,
      retryLimit: { maxAttempts: 3 },
    });
    for (let attempt = 1; attempt <= 3; attempt++) {
      await worker.runUntilIdle();
      const [head] = await outboxOf(repo);
      if (attempt < 3) clock.set(head!.available_at);
    }
    const [failed] = await listFailedOutbox(store.db, repo);
    expect(failed).toMatchObject({
      // The oldest row of the repository: the 👍 on the queue command.
      key: expect.stringMatching(/^react_to_comment:/),
      error: expect.stringContaining(
        'GitHub answered 502 (Server Error) to `POST /repos/acme/widgets/merges` on each of 3 attempts',
      ),
    });
    expect(executor.count(repo, failed!.key)).toBe(3);
  });

  it('waits at least as long as GitHub asks (retry-after), however short the back-off', async () => {
    const repo = await freshRepo();
    const ids = createCountingIds();
    await runStep({ db: store.db, repositoryId: repo, inputs: openedAndQueued(1), now: t0, ids });
    const executor = new CountingExecutor({
      fail: () =>
        new GithubRequestError({
          status: 403,
          githubMessage: 'You have exceeded a secondary rate limit.',
          request: 'POST /repos/acme/widgets/merges',
          transient: true,
          retryAfterSeconds: 120,
        }),
    });
    const worker = new OutboxWorker({ store, execute: executor.execute, logger: quiet, ids, now: () => t0 });
    await worker.runUntilIdle();
    const [head] = await outboxOf(repo);
    expect(head!.available_at.getTime() - t0.getTime()).toBe(120_000);
  });

  it('does not mark a row done when its result cannot be recorded, and runs it again', async () => {
    const repo = await freshRepo();
    const ids = createCountingIds();
    await runStep({ db: store.db, repositoryId: repo, inputs: openedAndQueued(1), now: t0, ids });
    let broken = true;
    const executor = new CountingExecutor();
    const execute = async (repositoryId: string, effect: Parameters<CountingExecutor['execute']>[1]) => {
      const inputs = await executor.execute(repositoryId, effect);
      if (effect.type !== 'prepare_test_branch' || !broken) return inputs;
      broken = false;
      // The engine refuses this result: the step, and with it the row's completion, rolls back.
      return [...inputs, { type: 'no_such_input' } as unknown as QueueInput];
    };
    const clock = manualClock(t0);
    const worker = new OutboxWorker({ store, execute, logger: quiet, ids, now: clock.now });

    await worker.runUntilIdle();
    const prepare = (await outboxOf(repo)).find((r) => r.key.startsWith('prepare_test_branch'))!;
    expect(prepare).toMatchObject({ attempts: 1, done_at: null });
    expect(prepare.last_error).toContain('unknown input');
    expect((await eventsOf(repo)).filter((e) => e.type === 'action.queue.checks_start')).toHaveLength(0);

    clock.set(prepare.available_at);
    await worker.runUntilIdle();
    expect(await countPendingOutbox(store.db, repo)).toBe(0);
    expect((await eventsOf(repo)).filter((e) => e.type === 'action.queue.checks_start')).toHaveLength(1);
  });

  it('after a crash before the effects ran, runs each exactly once on reopening and loses or repeats no event', async () => {
    const shared = await createReopenableStore();
    const ids = createCountingIds();
    let before: { id: string; type: string; pull_request: number | null }[];
    let repo: string;
    let keys: string[];
    const first = await shared.open();
    try {
      repo = await freshRepo(first.db);
      const a = await runStep({ db: first.db, repositoryId: repo, inputs: openedAndQueued(1), now: t0, ids });
      const b = await runStep({ db: first.db, repositoryId: repo, inputs: openedAndQueued(2), now: t0, ids });
      keys = [...a.enqueued, ...b.enqueued].map((e) => e.key);
      before = await eventsOf(repo, first.db);
    } finally {
      // The crash: nothing ran, nothing else was written.
      await first.close();
    }

    const second = await shared.open();
    try {
      expect(await eventsOf(repo, second.db)).toEqual(before);
      const executor = new CountingExecutor();
      const worker = new OutboxWorker({
        store: second,
        execute: executor.execute,
        logger: quiet,
        ids,
        now: () => t0,
      });
      await worker.runUntilIdle();
      await worker.runUntilIdle();

      for (const key of keys) expect(executor.count(repo, key)).toBe(1);
      expect(executor.repeated()).toEqual([]);
      expect(await countPendingOutbox(second.db, repo)).toBe(0);
      const after = await eventsOf(repo, second.db);
      expect(after.slice(0, before.length)).toEqual(before);
      expect(new Set(after.map((e) => e.id)).size).toBe(after.length);
      // One batch per pull request (batch size 1), each started once.
      const starts = after.filter((e) => e.type === 'action.queue.checks_start').map((e) => e.pull_request);
      expect(starts.sort()).toEqual([1, 2]);
    } finally {
      await second.close();
      await shared.dispose();
    }
  });

  it('after a crash while an effect ran, runs it again once its lease ran out and records its result once', async () => {
    const shared = await createReopenableStore();
    const ids = createCountingIds();
    const executor = new CountingExecutor();
    let repo: string;
    let prepareKey: string;
    const first = await shared.open();
    try {
      repo = await freshRepo(first.db);
      await runStep({ db: first.db, repositoryId: repo, inputs: openedAndQueued(1), now: t0, ids });
      // The crashed instance had claimed the head row and carried it out, but never recorded it.
      const claimed = await claimOutbox(first.db, { limit: 10, leaseMs: 120_000, now: t0 });
      for (const row of claimed) await executor.execute(row.repositoryId, row.effect);
      expect(claimed.map((r) => r.key)).toEqual(['react_to_comment:10001']);
      prepareKey = (await outboxOf(repo, first.db))[1]!.key;
    } finally {
      await first.close();
    }

    const second = await shared.open();
    try {
      const clock = manualClock(new Date(t0.getTime() + 60_000));
      const worker = new OutboxWorker({
        store: second,
        execute: executor.execute,
        logger: quiet,
        ids,
        now: clock.now,
      });
      // Still leased by the dead instance: the repository waits.
      expect(await worker.runUntilIdle()).toBe(0);
      expect(executor.count(repo, 'react_to_comment:10001')).toBe(1);

      clock.set(new Date(t0.getTime() + 120_000));
      await worker.runUntilIdle();
      expect(executor.count(repo, 'react_to_comment:10001')).toBe(2);
      expect(executor.count(repo, prepareKey)).toBe(1);
      expect(await countPendingOutbox(second.db, repo)).toBe(0);
      const rows = await outboxOf(repo, second.db);
      expect(rows[0]).toMatchObject({ attempts: 2 });
      const starts = (await eventsOf(repo, second.db)).filter((e) => e.type === 'action.queue.checks_start');
      expect(starts).toHaveLength(1);
    } finally {
      await second.close();
      await shared.dispose();
    }
  });

  it('fills a free slot as soon as a row finishes: a slow effect does not hold back other repositories', async () => {
    const [slow, fast] = [await freshRepo(), await freshRepo()];
    const ids = createCountingIds();
    for (const repo of [slow, fast]) {
      await runStep({ db: store.db, repositoryId: repo, inputs: openedAndQueued(1), now: t0, ids });
    }
    const executor = new CountingExecutor();
    const started = (repo: string) => executor.order.filter((name) => name.startsWith(`${repo} `)).length;
    let releasedBy: 'others' | 'timeout' | null = null;
    const execute = async (repositoryId: string, effect: Parameters<CountingExecutor['execute']>[1]) => {
      if (repositoryId === slow && releasedBy === null) {
        // The slow repository's first effect runs until the other's third has started (or 3 s).
        const deadline = Date.now() + 3_000;
        while (started(fast) < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
        releasedBy = started(fast) >= 3 ? 'others' : 'timeout';
      }
      return executor.execute(repositoryId, effect);
    };
    const worker = new OutboxWorker({ store, execute, logger: quiet, ids, now: () => t0, concurrency: 2 });

    await worker.runUntilIdle();

    // In lockstep the other repository's second row would wait for the slow one.
    expect(releasedBy).toBe('others');
    expect(executor.repeated()).toEqual([]);
    expect(await countPendingOutbox(store.db, slow)).toBe(0);
    expect(await countPendingOutbox(store.db, fast)).toBe(0);
  });

  it('claims what is enqueued while a run is under way, without waiting for the rows in progress', async () => {
    const [slow, late] = [await freshRepo(), await freshRepo()];
    const ids = createCountingIds();
    await runStep({ db: store.db, repositoryId: slow, inputs: openedAndQueued(1), now: t0, ids });
    const executor = new CountingExecutor();
    let lateRanFirst: boolean | null = null;
    let worker: OutboxWorker | null = null;
    const execute = async (repositoryId: string, effect: Parameters<CountingExecutor['execute']>[1]) => {
      if (repositoryId === slow && lateRanFirst === null) {
        lateRanFirst = false;
        // Another step enqueues for another repository and wakes the worker.
        await runStep({ db: store.db, repositoryId: late, inputs: openedAndQueued(1), now: t0, ids });
        worker!.wake();
        const deadline = Date.now() + 3_000;
        while (executor.order.every((n) => !n.startsWith(`${late} `)) && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 5));
        }
        lateRanFirst = executor.order.some((n) => n.startsWith(`${late} `));
      }
      return executor.execute(repositoryId, effect);
    };
    worker = new OutboxWorker({ store, execute, logger: quiet, ids, now: () => t0, concurrency: 4 });

    await worker.runUntilIdle();

    expect(lateRanFirst).toBe(true);
    expect(await countPendingOutbox(store.db, slow)).toBe(0);
    expect(await countPendingOutbox(store.db, late)).toBe(0);
  });

  it('with slots refilled as rows finish, runs each repository one row at a time, in enqueue order', async () => {
    const repos: string[] = [];
    for (let i = 0; i < 6; i++) repos.push(await freshRepo());
    const ids = createCountingIds();
    for (const repo of repos) {
      for (const n of [1, 2, 3]) {
        await runStep({ db: store.db, repositoryId: repo, inputs: openedAndQueued(n), now: t0, ids });
      }
    }
    const executor = new CountingExecutor();
    const random = createRandom(7);
    const inFlight = new Map<string, number>();
    let running = 0;
    let mostAtOnce = 0;
    const overlaps: string[] = [];
    const execute = async (repositoryId: string, effect: Parameters<CountingExecutor['execute']>[1]) => {
      const mine = (inFlight.get(repositoryId) ?? 0) + 1;
      inFlight.set(repositoryId, mine);
      if (mine > 1) overlaps.push(`${repositoryId} ${effect.key}`);
      running += 1;
      mostAtOnce = Math.max(mostAtOnce, running);
      try {
        // Uneven durations, so rows finish out of claim order.
        await new Promise((r) => setTimeout(r, Math.floor(random.next() * 15)));
        return await executor.execute(repositoryId, effect);
      } finally {
        running -= 1;
        inFlight.set(repositoryId, (inFlight.get(repositoryId) ?? 1) - 1);
      }
    };
    const worker = new OutboxWorker({ store, execute, logger: quiet, ids, now: () => t0, concurrency: 4 });

    await worker.runUntilIdle();

    expect(overlaps).toEqual([]);
    expect(mostAtOnce).toBeGreaterThan(1);
    expect(mostAtOnce).toBeLessThanOrEqual(4);
    expect(executor.repeated()).toEqual([]);
    for (const repo of repos) {
      expect(await countPendingOutbox(store.db, repo)).toBe(0);
      const enqueued = (await outboxOf(repo)).map((r) => `${repo} ${r.key}`);
      expect(executor.order.filter((n) => n.startsWith(`${repo} `))).toEqual(enqueued);
    }
  });

  it.skipIf(backend === 'pglite')(
    'two workers on two stores of one PostgreSQL run every row exactly once (PostgreSQL only: PGlite has one process)',
    async () => {
      const shared = await createReopenableStore();
      const [one, two] = [await shared.open(), await shared.open()];
      try {
        const ids = createCountingIds();
        const repos: string[] = [];
        for (let i = 0; i < 6; i++) repos.push(await freshRepo(one.db));
        for (const repo of repos) {
          for (const n of [1, 2, 3]) {
            await runStep({ db: one.db, repositoryId: repo, inputs: openedAndQueued(n), now: t0, ids });
          }
        }
        const total = (await one.db.selectFrom('outbox').select('id').execute()).length;
        // One executor for both: a row run by both instances shows up as a repeat.
        const executor = new CountingExecutor({ delayMs: 3 });
        const executed: string[] = [];
        const execute = async (repositoryId: string, effect: Parameters<CountingExecutor['execute']>[1]) => {
          executed.push(`${repositoryId} ${effect.key}`);
          return executor.execute(repositoryId, effect);
        };
        const workers = [one, two].map(
          (s) => new OutboxWorker({ store: s, execute, logger: quiet, ids, now: () => t0, concurrency: 3 }),
        );
        await Promise.all(workers.map((w) => w.runUntilIdle()));
        await Promise.all(workers.map((w) => w.runUntilIdle()));

        expect(executor.repeated()).toEqual([]);
        expect(await countPendingOutbox(one.db)).toBe(0);
        const done = (await one.db.selectFrom('outbox').select('id').execute()).length;
        expect(executed.length).toBe(done);
        expect(done).toBeGreaterThanOrEqual(total);
      } finally {
        await one.close();
        await two.close();
        await shared.dispose();
      }
    },
  );

  it('start() picks up what is enqueued when woken, and stop() lets the rows in progress finish', async () => {
    const repo = await freshRepo();
    const ids = createCountingIds();
    // Slow enough that stop() comes while the first row runs.
    const executor = new CountingExecutor({ delayMs: 200 });
    // A long poll: only wake() can make it run soon.
    const worker = new OutboxWorker({ store, execute: executor.execute, logger: quiet, ids, pollMs: 60_000 });
    worker.start();
    try {
      await new Promise((r) => setTimeout(r, 100));
      const outcome = await runStep({
        db: store.db,
        repositoryId: repo,
        inputs: openedAndQueued(1),
        now: new Date(),
        ids,
      });
      worker.wake();
      const first = outcome.enqueued[0]!.key;
      await waitFor(async () => executor.count(repo, first) === 1);
      await worker.stop();

      // The row in progress finished and was recorded; the others wait, not leased, for the next start.
      const rows = await store.db
        .selectFrom('outbox')
        .select(['key', 'done_at', 'leased_until'])
        .where('repository_id', '=', repo)
        .orderBy('id')
        .execute();
      expect(rows[0]).toMatchObject({ key: first, leased_until: null });
      expect(rows[0]!.done_at).not.toBeNull();
      expect(rows.slice(1).every((r) => r.done_at === null && r.leased_until === null)).toBe(true);
      expect(rows.length).toBeGreaterThan(1);

      worker.start();
      worker.wake();
      await waitFor(async () => (await countPendingOutbox(store.db, repo)) === 0);
      for (const { key } of outcome.enqueued) expect(executor.count(repo, key)).toBe(1);
    } finally {
      await worker.stop();
    }
  });

  it('an effect that failed for good is recorded failed with its error, logged at error level with its key, and shown in the status', async () => {
    const repo = await freshRepo();
    const ids = createCountingIds();
    await runStep({ db: store.db, repositoryId: repo, inputs: openedAndQueued(1), now: t0, ids });
    const reason = 'HttpError: Resource not accessible by integration';
    const executor = new CountingExecutor({
      fail: (effect) =>
        effect.key.startsWith('react_to_comment') ? new EffectFailedError(reason, effect, []) : null,
    });
    const { logger, lines } = captureLogs();
    const worker = new OutboxWorker({ store, execute: executor.execute, logger, ids, now: () => t0 });

    await worker.runUntilIdle();

    // Done (not run again, not holding back the rows behind it) and failed, with the error.
    const failed = await store.db
      .selectFrom('outbox')
      .select(['key', 'done_at', 'failed_at', 'last_error'])
      .where('repository_id', '=', repo)
      .where('failed_at', 'is not', null)
      .execute();
    expect(failed).toEqual([
      { key: 'react_to_comment:10001', done_at: t0, failed_at: t0, last_error: reason },
    ]);
    expect(executor.count(repo, 'react_to_comment:10001')).toBe(1);
    expect(await countPendingOutbox(store.db, repo)).toBe(0);
    expect(await listFailedOutbox(store.db, repo)).toMatchObject([
      { key: 'react_to_comment:10001', failedAt: t0, error: reason, effect: { type: 'react_to_comment' } },
    ]);
    // The rows that succeeded are done and not failed.
    const succeeded = await store.db
      .selectFrom('outbox')
      .select(['failed_at'])
      .where('repository_id', '=', repo)
      .where('failed_at', 'is', null)
      .execute();
    expect(succeeded.length).toBeGreaterThan(0);

    const errors = lines.map((l) => JSON.parse(l)).filter((l) => l.level === 50);
    expect(errors).toEqual([
      expect.objectContaining({
        msg: 'outbox: effect failed for good',
        key: 'react_to_comment:10001',
        effect: 'react_to_comment',
        error: reason,
        repositoryId: repo,
      }),
    ]);

    const state = (await loadQueueState(store.db, repo)) as QueueState;
    expect(state.failedEffects).toEqual([
      {
        key: 'react_to_comment:10001',
        effect: 'react_to_comment',
        pullRequests: [],
        message: reason,
        at: t0.toISOString(),
      },
    ]);
    const status = computeMergeQueueStatus(queueStateSchema.parse(state), { base: 'main', now: t0 });
    expect(status.failed_effects).toEqual([
      {
        key: 'react_to_comment:10001',
        type: 'react_to_comment',
        pull_requests: [],
        error: reason,
        failed_at: t0.toISOString(),
      },
    ]);
    // A day later the status no longer shows it (the outbox row still does).
    const later = computeMergeQueueStatus(queueStateSchema.parse(state), {
      base: 'main',
      now: new Date(t0.getTime() + 24 * 3600_000 + 1),
    });
    expect(later.failed_effects).toBeUndefined();
  });
});
