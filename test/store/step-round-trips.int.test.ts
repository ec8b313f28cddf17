import { sql } from 'kysely';
import type pg from 'pg';
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
import { createCountingIds } from '../queue/support/scenario.ts';
import { openedAndQueued } from '../support/queue-inputs.ts';
import { StatementRecorder } from '../support/statement-recorder.ts';
import { openTestStore } from '../support/test-store.ts';

let store: Store;
let trips: TripRecorder;
let repoCount = 0;
const now = new Date('2026-11-02T09:00:00.000Z');

/** What a store's clients send while `capture` runs: its statements' texts by round trip, and every value. */
class TripRecorder {
  private readonly recorder: StatementRecorder;
  values: unknown[] = [];

  constructor(pool: pg.Pool) {
    this.recorder = new StatementRecorder(pool);
  }

  async capture(fn: () => Promise<unknown>): Promise<string[][]> {
    const statements = await this.recorder.capture(fn);
    this.values = statements.flatMap((s) => s.values);
    const trips: string[][] = [];
    for (const s of statements) {
      trips[s.trip] ??= [];
      trips[s.trip]!.push(s.text);
    }
    return trips;
  }
}

beforeAll(async () => {
  store = await openTestStore();
  trips = new TripRecorder(store.pool);
});

afterAll(async () => {
  await store?.close();
});

async function freshRepo(): Promise<string> {
  repoCount += 1;
  return (await ensureRepository(store.db, { owner: 'acme', name: `trips-${repoCount}` })).id;
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

const isBegin = (text: string) => text.toLowerCase() === 'begin';
const isCommit = (text: string) => text.toLowerCase() === 'commit';
const isRollback = (text: string) => text.toLowerCase() === 'rollback';

describe('runStep round trips', () => {
  it('sends the lock with the reads and the writes with COMMIT (three round trips, four with events), and writes from the kept state what it writes from the stored one', async () => {
    const warm = await freshRepo();
    const cold = await freshRepo();
    const warmIds = createCountingIds();
    const coldIds = createCountingIds();
    const cache = queueStateCacheOf(store.db);
    let warmState: QueueState | null = null;
    let coldState: QueueState | null = null;
    for (const next of [...script.map((inputs) => () => inputs), preparedFirstBatch]) {
      let outcome: Awaited<ReturnType<typeof runStep>> | undefined;
      const warmTrips = await trips.capture(async () => {
        outcome = await runStep({
          db: store.db,
          repositoryId: warm,
          inputs: next(warmState),
          now,
          ids: warmIds,
        });
      });
      warmState = outcome!.state;
      // BEGIN; the lock with the state's version; the events, when there are some; the other writes with COMMIT.
      expect(isBegin(warmTrips[0]![0]!)).toBe(true);
      expect(warmTrips[1]!.length).toBe(2);
      expect(warmTrips.length).toBe(outcome!.eventIds.length > 0 ? 4 : 3);
      expect(isCommit(warmTrips.at(-1)!.at(-1)!)).toBe(true);
      // Without a kept state the stored one is read and parsed, in the same round trips.
      cache.forget(cold);
      const coldTrips = await trips.capture(async () => {
        coldState = (
          await runStep({ db: store.db, repositoryId: cold, inputs: next(coldState), now, ids: coldIds })
        ).state;
      });
      expect(coldTrips.length).toBe(warmTrips.length);
    }
    const written = await writtenFor(warm);
    expect(written).toEqual(await writtenFor(cold));
    expect(written.events.length).toBeGreaterThan(3);
    expect(written.timers.length).toBeGreaterThan(0);
    expect(written.outbox.length).toBeGreaterThan(1);
  });

  it('sends every value as a parameter, never in the text of a statement', async () => {
    const repo = await freshRepo();
    const ids = createCountingIds();
    await runStep({ db: store.db, repositoryId: repo, inputs: openedAndQueued(1), now, ids });
    const inputs = openedAndQueued(2).map((input) =>
      input.type === 'pull_request_updated'
        ? { ...input, pullRequest: { ...input.pullRequest, title: "Robert'); DROP TABLE events; --" } }
        : input,
    );
    const sent = (
      await trips.capture(() => runStep({ db: store.db, repositoryId: repo, inputs, now, ids }))
    ).flat();
    expect(sent.some((text) => text.includes('Robert'))).toBe(false);
    expect(JSON.stringify(trips.values)).toContain('Robert');
    const state = (await loadQueueState(store.db, repo)) as QueueState;
    expect(state.pullRequests['2']!.title).toBe("Robert'); DROP TABLE events; --");
  });

  it('returns the ids of the events and outbox rows it wrote, in order', async () => {
    const repo = await freshRepo();
    const ids = createCountingIds();
    await runStep({ db: store.db, repositoryId: repo, inputs: openedAndQueued(1), now, ids });
    const outcome = await runStep({ db: store.db, repositoryId: repo, inputs: openedAndQueued(2), now, ids });
    const events = await store.db
      .selectFrom('events')
      .select('id')
      .where('repository_id', '=', repo)
      .orderBy('id')
      .execute();
    expect(outcome.eventIds.length).toBeGreaterThan(0);
    expect(outcome.eventIds).toEqual(events.slice(-outcome.eventIds.length).map((e) => e.id));
    const rows = await store.db
      .selectFrom('outbox')
      .select(['id', 'key'])
      .where('repository_id', '=', repo)
      .orderBy('id')
      .execute();
    expect(outcome.enqueued.length).toBeGreaterThan(0);
    expect(outcome.enqueued).toEqual(rows.slice(-outcome.enqueued.length));
    expect(await loadQueueState(store.db, repo)).toEqual(JSON.parse(JSON.stringify(outcome.state)));
  });

  it('steps from the stored state when another writer moved the version on', async () => {
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

    const sent = await trips.capture(() =>
      runStep({ db: store.db, repositoryId: repo, inputs: script[3]!, now, ids }),
    );
    expect(sent.flat().filter(isRollback)).toEqual([]);
    await runStep({ db: store.db, repositoryId: other, inputs: script[3]!, now, ids: otherIds });
    const written = await writtenFor(repo);
    expect(written.state).toEqual((await writtenFor(other)).state);
    expect(Object.keys((written.state as { sessions: object }).sessions).sort()).toEqual(['1', '2', '3']);
  });

  it('marks the deliveries processed with the step, and writes nothing when a lease was lost', async () => {
    const repo = await freshRepo();
    const ids = createCountingIds();
    await runStep({ db: store.db, repositoryId: repo, inputs: openedAndQueued(1), now, ids });
    for (const id of ['trips-a', 'trips-b']) {
      await saveDelivery(store.db, {
        deliveryId: id,
        event: 'issue_comment',
        orderingKey: `trips:${repo}`,
        payload: '{}',
        now,
      });
    }
    const claimed = (await claimDeliveries(store.db, { limit: 10, leaseMs: 60_000, now, perKey: 10 })).filter(
      (d) => d.deliveryId.startsWith('trips-'),
    );
    expect(claimed.map((d) => d.deliveryId)).toEqual(['trips-a', 'trips-b']);
    const before = await snapshotOf(repo);
    const lost = [claimed[0]!, { ...claimed[1]!, attempts: claimed[1]!.attempts + 1 }];

    const refused = await trips.capture(async () => {
      await expect(
        runStep({ db: store.db, repositoryId: repo, inputs: openedAndQueued(2), now, ids, deliveries: lost }),
      ).rejects.toBeInstanceOf(DeliveryLeaseLostError);
    });
    // Refused on the answers of the lock's round trip: nothing written, rolled back.
    expect(refused.length).toBe(3);
    expect(isRollback(refused[2]![0]!)).toBe(true);
    expect(await snapshotOf(repo)).toEqual(before);
    const pending = await store.db
      .selectFrom('webhook_deliveries')
      .select(['delivery_id', 'processed_at'])
      .where('delivery_id', 'in', ['trips-a', 'trips-b'])
      .orderBy('delivery_id')
      .execute();
    expect(pending.map((d) => d.processed_at)).toEqual([null, null]);

    await runStep({
      db: store.db,
      repositoryId: repo,
      inputs: openedAndQueued(2),
      now,
      ids,
      deliveries: claimed,
    });
    const processed = await store.db
      .selectFrom('webhook_deliveries')
      .select(['processed_at'])
      .where('delivery_id', 'in', ['trips-a', 'trips-b'])
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
    const refused = await trips.capture(async () => {
      await expect(
        runStep({ db: store.db, repositoryId: repo, inputs: openedAndQueued(2), now, ids, guard }),
      ).rejects.toThrow('lease gone');
    });
    expect(refused.length).toBe(3);
    expect(isRollback(refused[2]![0]!)).toBe(true);
    expect(await snapshotOf(repo)).toEqual(before);

    const held = {
      statement: completeOutboxStatement({ id: row!.id, attempts: row!.attempts }, now),
      lost: () => new Error('lease gone'),
    };
    await runStep({ db: store.db, repositoryId: repo, inputs: openedAndQueued(2), now, ids, guard: held });
    const completed = await store.db
      .selectFrom('outbox')
      .select('done_at')
      .where('id', '=', row!.id)
      .executeTakeFirst();
    expect(completed?.done_at?.getTime()).toBe(now.getTime());
  });

  it('after a statement sent with others fails, keeps nothing and leaves the connection usable', async () => {
    const repo = await freshRepo();
    const ids = createCountingIds();
    await runStep({ db: store.db, repositoryId: repo, inputs: openedAndQueued(1), now, ids });
    const before = await snapshotOf(repo);
    // The state's save is the first of the writes sent with COMMIT: those after it fail too, and
    // COMMIT ends the transaction as a rollback.
    await sql`CREATE FUNCTION refuse_state() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'state refused'; END $$`.execute(store.db);
    await sql`CREATE TRIGGER refuse_state BEFORE UPDATE ON queue_state FOR EACH ROW EXECUTE FUNCTION refuse_state()`.execute(
      store.db,
    );
    try {
      const refused = await trips.capture(async () => {
        await expect(
          runStep({ db: store.db, repositoryId: repo, inputs: openedAndQueued(2), now, ids }),
        ).rejects.toThrow('state refused');
      });
      expect(refused.at(-1)!.length).toBeGreaterThan(1);
      expect(isCommit(refused.at(-1)!.at(-1)!)).toBe(true);
    } finally {
      await sql`DROP TRIGGER refuse_state ON queue_state`.execute(store.db);
      await sql`DROP FUNCTION refuse_state()`.execute(store.db);
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
