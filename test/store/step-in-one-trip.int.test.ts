import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QueueInput } from '../../app/queue/inputs.ts';
import type { QueueState } from '../../app/queue/state.ts';
import type { Store } from '../../app/store/database.ts';
import { completeOutboxStatement } from '../../app/store/outbox.ts';
import { loadQueueState, loadQueueStateVersion } from '../../app/store/queue-state.ts';
import { queueStateCacheOf } from '../../app/store/queue-state-cache.ts';
import { ensureRepository } from '../../app/store/repositories.ts';
import { runStep } from '../../app/store/step-transaction.ts';
import { loadTimers } from '../../app/store/timers.ts';
import { claimDeliveries, DeliveryLeaseLostError, saveDelivery } from '../../app/store/webhook-deliveries.ts';
import { StatementRecorder } from '../bench/support/statement-recorder.ts';
import { createCountingIds } from '../queue/support/scenario.ts';
import { openedAndQueued } from '../support/queue-inputs.ts';
import { openTestStore } from '../support/test-store.ts';

let store: Store;
let recorder: StatementRecorder;
let repoCount = 0;
const now = new Date('2026-11-02T09:00:00.000Z');

beforeAll(async () => {
  // On PGlite too (off there by default): the same statements, checked on both back ends.
  store = await openTestStore({ oneTripSteps: true });
  recorder = new StatementRecorder(store.pool);
});

afterAll(async () => {
  await store?.close();
});

async function freshRepo(): Promise<string> {
  repoCount += 1;
  return (await ensureRepository(store.db, { owner: 'acme', name: `trip-${repoCount}` })).id;
}

/** Everything a step writes for a repository, ids left out (two repositories are compared). */
async function writtenFor(repositoryId: string) {
  const events = await store.db
    .selectFrom('events')
    .select(['type', 'pull_request', 'received_at', 'metadata', 'trigger'])
    .where('repository_id', '=', repositoryId)
    .orderBy('id')
    .execute();
  const outbox = await store.db
    .selectFrom('outbox')
    .select(['key', 'effect', 'done_at', 'attempts'])
    .where('repository_id', '=', repositoryId)
    .orderBy('id')
    .execute();
  const timers = (await loadTimers(store.db, repositoryId)).map((t) => [t.key, t.dueAt.toISOString()]);
  return { state: await loadQueueState(store.db, repositoryId), events, outbox, timers };
}

async function snapshotOf(repositoryId: string) {
  return {
    version: await loadQueueStateVersion(store.db, repositoryId),
    ...(await writtenFor(repositoryId)),
  };
}

/** The messages a step sends (texts only, each a statement or several). */
async function messagesOf(fn: () => Promise<unknown>): Promise<string[]> {
  return (await recorder.capture(fn)).map((s) => s.text);
}

const isOneTrip = (messages: string[]) =>
  messages.length === 2 && messages[0]!.startsWith('BEGIN;') && messages[1] === 'COMMIT';

/** The first batch's test branch is ready: its checks start, and the engine asks for a wake-up at their timeout. */
function preparedFirstBatch(state: QueueState | null): QueueInput[] {
  const batch = state!.lanes[0]!.batches[0]!;
  return [
    { type: 'test_branch_prepared', batchId: batch.id, attempt: 1, sha: 'test-sha-1', draftPullRequest: 77 },
  ];
}

/** Inputs that make the engine write state, events and outbox rows. */
const script: QueueInput[][] = [
  openedAndQueued(1),
  openedAndQueued(2),
  [{ type: 'tick' }],
  openedAndQueued(3),
];

describe('runStep in one trip', () => {
  it('writes exactly what the statement-by-statement transaction writes, in two messages', async () => {
    const quick = await freshRepo();
    const slow = await freshRepo();
    const quickIds = createCountingIds();
    const slowIds = createCountingIds();
    const cache = queueStateCacheOf(store.db);
    const trips: boolean[] = [];
    let quickState: QueueState | null = null;
    let slowState: QueueState | null = null;
    for (const next of [...script.map((inputs) => () => inputs), preparedFirstBatch]) {
      const messages = await messagesOf(async () => {
        quickState = (
          await runStep({ db: store.db, repositoryId: quick, inputs: next(quickState), now, ids: quickIds })
        ).state;
      });
      trips.push(isOneTrip(messages));
      // Without a kept state the step goes statement by statement (and loads the stored state).
      cache.forget(slow);
      const slowMessages = await messagesOf(async () => {
        slowState = (
          await runStep({ db: store.db, repositoryId: slow, inputs: next(slowState), now, ids: slowIds })
        ).state;
      });
      expect(isOneTrip(slowMessages)).toBe(false);
    }
    // The first step has no kept state; every later one goes in one trip.
    expect(trips).toEqual([false, true, true, true, true]);
    const written = await writtenFor(quick);
    expect(written).toEqual(await writtenFor(slow));
    expect(written.events.length).toBeGreaterThan(3);
    expect(written.timers.length).toBeGreaterThan(0);
    expect(written.outbox.length).toBeGreaterThan(1);
  });

  it('returns the ids of the events and outbox rows it wrote, in order', async () => {
    const repo = await freshRepo();
    const ids = createCountingIds();
    await runStep({ db: store.db, repositoryId: repo, inputs: openedAndQueued(1), now, ids });
    let outcome: Awaited<ReturnType<typeof runStep>> | undefined;
    const messages = await messagesOf(async () => {
      outcome = await runStep({ db: store.db, repositoryId: repo, inputs: openedAndQueued(2), now, ids });
    });
    expect(isOneTrip(messages)).toBe(true);
    const events = await store.db
      .selectFrom('events')
      .select('id')
      .where('repository_id', '=', repo)
      .orderBy('id')
      .execute();
    expect(outcome!.eventIds.length).toBeGreaterThan(0);
    expect(outcome!.eventIds).toEqual(events.slice(-outcome!.eventIds.length).map((e) => e.id));
    const rows = await store.db
      .selectFrom('outbox')
      .select(['id', 'key'])
      .where('repository_id', '=', repo)
      .orderBy('id')
      .execute();
    expect(outcome!.enqueued.length).toBeGreaterThan(0);
    expect(outcome!.enqueued).toEqual(rows.slice(-outcome!.enqueued.length));
    expect(await loadQueueState(store.db, repo)).toEqual(JSON.parse(JSON.stringify(outcome!.state)));
  });

  it('rolls back and steps from the stored state when another writer moved the version on', async () => {
    const repo = await freshRepo();
    const other = await freshRepo();
    const ids = createCountingIds();
    const otherIds = createCountingIds();
    const cache = queueStateCacheOf(store.db);
    await runStep({ db: store.db, repositoryId: repo, inputs: script[0]!, now, ids });
    await runStep({ db: store.db, repositoryId: other, inputs: script[0]!, now, ids: otherIds });
    const stale = cache.latest(repo)!;
    await runStep({ db: store.db, repositoryId: repo, inputs: script[1]!, now, ids });
    await runStep({ db: store.db, repositoryId: other, inputs: script[1]!, now, ids: otherIds });
    // As if another instance had written step 2: this process still keeps the state before it.
    cache.set(repo, stale.version, stale.state);

    const messages = await messagesOf(() =>
      runStep({ db: store.db, repositoryId: repo, inputs: script[3]!, now, ids }),
    );
    expect(messages[0]!.startsWith('BEGIN;')).toBe(true);
    expect(messages[1]).toBe('ROLLBACK');
    expect(messages.slice(2)).toContain('commit');
    await runStep({ db: store.db, repositoryId: other, inputs: script[3]!, now, ids: otherIds });
    const written = await writtenFor(repo);
    expect(written.state).toEqual((await writtenFor(other)).state);
    expect(Object.keys((written.state as { sessions: object }).sessions).sort()).toEqual(['1', '2', '3']);
  });

  it('marks the deliveries processed with the step, and writes nothing when a lease was lost', async () => {
    const repo = await freshRepo();
    const ids = createCountingIds();
    await runStep({ db: store.db, repositoryId: repo, inputs: openedAndQueued(1), now, ids });
    for (const id of ['trip-a', 'trip-b']) {
      await saveDelivery(store.db, {
        deliveryId: id,
        event: 'issue_comment',
        orderingKey: `trip:${repo}`,
        payload: '{}',
        now,
      });
    }
    const claimed = (await claimDeliveries(store.db, { limit: 10, leaseMs: 60_000, now, perKey: 10 })).filter(
      (d) => d.deliveryId.startsWith('trip-'),
    );
    expect(claimed.map((d) => d.deliveryId)).toEqual(['trip-a', 'trip-b']);
    const before = await snapshotOf(repo);
    const lost = [claimed[0]!, { ...claimed[1]!, attempts: claimed[1]!.attempts + 1 }];

    const messages = await messagesOf(async () => {
      await expect(
        runStep({ db: store.db, repositoryId: repo, inputs: openedAndQueued(2), now, ids, deliveries: lost }),
      ).rejects.toBeInstanceOf(DeliveryLeaseLostError);
    });
    expect(messages).toEqual([expect.stringMatching(/^BEGIN;/), 'ROLLBACK']);
    expect(await snapshotOf(repo)).toEqual(before);
    const pending = await store.db
      .selectFrom('webhook_deliveries')
      .select(['delivery_id', 'processed_at'])
      .where('delivery_id', 'in', ['trip-a', 'trip-b'])
      .orderBy('delivery_id')
      .execute();
    expect(pending.map((d) => d.processed_at)).toEqual([null, null]);

    const done = await messagesOf(() =>
      runStep({
        db: store.db,
        repositoryId: repo,
        inputs: openedAndQueued(2),
        now,
        ids,
        deliveries: claimed,
      }),
    );
    expect(isOneTrip(done)).toBe(true);
    const processed = await store.db
      .selectFrom('webhook_deliveries')
      .select(['processed_at'])
      .where('delivery_id', 'in', ['trip-a', 'trip-b'])
      .execute();
    expect(processed.map((d) => d.processed_at?.getTime())).toEqual([now.getTime(), now.getTime()]);
  });

  it("rolls back with the guard's error when its statement finds no row", async () => {
    const repo = await freshRepo();
    const ids = createCountingIds();
    await runStep({ db: store.db, repositoryId: repo, inputs: openedAndQueued(1), now, ids });
    const before = await snapshotOf(repo);
    const [row] = await store.db
      .selectFrom('outbox')
      .select(['id', 'attempts'])
      .where('repository_id', '=', repo)
      .orderBy('id')
      .limit(1)
      .execute();
    // Not this lease's attempt: the completion finds no row.
    const guard = {
      statement: completeOutboxStatement({ id: row!.id, attempts: row!.attempts + 5 }, now),
      lost: () => new Error('lease gone'),
    };
    const messages = await messagesOf(async () => {
      await expect(
        runStep({ db: store.db, repositoryId: repo, inputs: openedAndQueued(2), now, ids, guard }),
      ).rejects.toThrow('lease gone');
    });
    expect(messages).toEqual([expect.stringMatching(/^BEGIN;/), 'ROLLBACK']);
    expect(await snapshotOf(repo)).toEqual(before);

    const held = {
      statement: completeOutboxStatement({ id: row!.id, attempts: row!.attempts }, now),
      lost: () => new Error('lease gone'),
    };
    expect(
      isOneTrip(
        await messagesOf(() =>
          runStep({ db: store.db, repositoryId: repo, inputs: openedAndQueued(2), now, ids, guard: held }),
        ),
      ),
    ).toBe(true);
    const completed = await store.db
      .selectFrom('outbox')
      .select('done_at')
      .where('id', '=', row!.id)
      .executeTakeFirst();
    expect(completed?.done_at?.getTime()).toBe(now.getTime());
  });

  it('after a statement fails, keeps nothing and leaves the connection usable', async () => {
    const repo = await freshRepo();
    const ids = createCountingIds();
    await runStep({ db: store.db, repositoryId: repo, inputs: openedAndQueued(1), now, ids });
    const before = await snapshotOf(repo);
    await sql`CREATE FUNCTION refuse_events() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'events refused'; END $$`.execute(store.db);
    await sql`CREATE TRIGGER refuse_events BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION refuse_events()`.execute(
      store.db,
    );
    try {
      const messages = await messagesOf(async () => {
        await expect(
          runStep({ db: store.db, repositoryId: repo, inputs: openedAndQueued(2), now, ids }),
        ).rejects.toThrow('events refused');
      });
      expect(messages).toEqual([expect.stringMatching(/^BEGIN;/), 'ROLLBACK']);
    } finally {
      await sql`DROP TRIGGER refuse_events ON events`.execute(store.db);
      await sql`DROP FUNCTION refuse_events()`.execute(store.db);
    }
    expect(await snapshotOf(repo)).toEqual(before);
    // Every connection of the pool is out of the failed transaction: steps go on.
    for (let i = 0; i < 3; i++) {
      await runStep({ db: store.db, repositoryId: repo, inputs: [{ type: 'tick' }], now, ids });
    }
    const outcome = await runStep({ db: store.db, repositoryId: repo, inputs: openedAndQueued(2), now, ids });
    expect(Object.keys(outcome.state!.sessions).sort()).toEqual(['1', '2']);
  });
});

describe('runStep without oneTripSteps', () => {
  it('goes statement by statement even with the state kept (PGlite by default)', async () => {
    const plain = await openTestStore({ oneTripSteps: false });
    try {
      const recording = new StatementRecorder(plain.pool);
      const repo = (await ensureRepository(plain.db, { owner: 'acme', name: 'plain' })).id;
      const ids = createCountingIds();
      await runStep({ db: plain.db, repositoryId: repo, inputs: openedAndQueued(1), now, ids });
      const texts = (
        await recording.capture(() =>
          runStep({ db: plain.db, repositoryId: repo, inputs: openedAndQueued(2), now, ids }),
        )
      ).map((s) => s.text);
      expect(texts.some((t) => t.startsWith('BEGIN;'))).toBe(false);
      expect(texts[0]).toBe('begin');
      expect(texts.length).toBeGreaterThan(4);
    } finally {
      await plain.close();
    }
  });
});
