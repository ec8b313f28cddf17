import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../app/config/config.schema.ts';
import type { QueueInput } from '../../app/queue/inputs.ts';
import { initialState } from '../../app/queue/state.schema.ts';
import type { QueueState } from '../../app/queue/state.ts';
import { step } from '../../app/queue/step.ts';
import type { Store } from '../../app/store/database.ts';
import { appendEvents } from '../../app/store/events.ts';
import { savePause } from '../../app/store/pauses.ts';
import { loadQueueState, loadQueueStateVersion, saveQueueState } from '../../app/store/queue-state.ts';
import { queueStateCacheOf } from '../../app/store/queue-state-cache.ts';
import { ensureRepository } from '../../app/store/repositories.ts';
import { runStep } from '../../app/store/step-transaction.ts';
import { loadTimers } from '../../app/store/timers.ts';
import { saveDelivery } from '../../app/store/webhook-deliveries.ts';
import { createCountingIds } from '../queue/support/scenario.ts';
import { buildLargeState, LARGE_STATE_TIME } from '../support/large-state.ts';
import { openedAndQueued, pauseSet } from '../support/queue-inputs.ts';
import { openTestStore } from '../support/test-store.ts';

let store: Store;
let repoCount = 0;
const now = new Date('2026-11-02T09:00:00.000Z');

beforeAll(async () => {
  store = await openTestStore();
});

afterAll(async () => {
  await store?.close();
});

async function freshRepo(): Promise<string> {
  repoCount += 1;
  return (await ensureRepository(store.db, { owner: 'acme', name: `step-${repoCount}` })).id;
}

async function eventsOf(repositoryId: string) {
  return store.db
    .selectFrom('events')
    .select(['id', 'type', 'pull_request', 'received_at', 'metadata'])
    .where('repository_id', '=', repositoryId)
    .orderBy('id')
    .execute();
}

async function outboxOf(repositoryId: string) {
  return store.db
    .selectFrom('outbox')
    .select(['id', 'key', 'effect', 'done_at', 'attempts'])
    .where('repository_id', '=', repositoryId)
    .orderBy('id')
    .execute();
}

/** What the pure engine gives for the same inputs, ids and time. */
function replay(inputs: QueueInput[], from: QueueState = initialState(defaultConfig)) {
  const ids = createCountingIds();
  let state = from;
  const events = [];
  const effects = [];
  for (const input of inputs) {
    const result = step(state, input, { now, ids });
    state = result.state;
    events.push(...result.events);
    effects.push(...result.effects);
  }
  return { state, events, effects };
}

/** Everything a step can write for a repository, to compare before and after a failed one. */
async function snapshotOf(repositoryId: string) {
  return {
    version: await loadQueueStateVersion(store.db, repositoryId),
    state: await loadQueueState(store.db, repositoryId),
    events: await eventsOf(repositoryId),
    outbox: await outboxOf(repositoryId),
    timers: await loadTimers(store.db, repositoryId),
  };
}

describe('runStep', () => {
  it('saves the state, appends the events in order and enqueues the effects in order, in one step', async () => {
    const repo = await freshRepo();
    const inputs = openedAndQueued(1);
    const outcome = await runStep({
      db: store.db,
      repositoryId: repo,
      inputs,
      now,
      ids: createCountingIds(),
    });
    const expected = replay(inputs);

    expect(outcome.state).toEqual(expected.state);
    expect(await loadQueueState(store.db, repo)).toEqual(JSON.parse(JSON.stringify(expected.state)));
    const events = await eventsOf(repo);
    expect(events.map((e) => [e.type, e.pull_request])).toEqual(
      expected.events.map((e) => [e.type, e.pull_request]),
    );
    expect(events.map((e) => e.id)).toEqual(outcome.eventIds);
    expect(events.every((e) => e.received_at.getTime() === now.getTime())).toBe(true);
    expect(events.map((e) => e.metadata)).toEqual(expected.events.map((e) => e.metadata));

    const rows = await outboxOf(repo);
    expect(rows.map((r) => r.key)).toEqual(expected.effects.map((e) => e.key));
    expect(rows.map((r) => r.effect)).toEqual(JSON.parse(JSON.stringify(expected.effects)));
    expect(outcome.enqueued).toEqual(rows.map((r) => ({ id: r.id, key: r.key })));
    expect(rows.every((r) => r.done_at === null && r.attempts === 0)).toBe(true);
  });

  it('turns schedule_wake_up into a timer, not an outbox row', async () => {
    const repo = await freshRepo();
    const ids = createCountingIds();
    const queued = await runStep({ db: store.db, repositoryId: repo, inputs: openedAndQueued(1), now, ids });
    const batch = queued.state!.lanes[0]!.batches[0]!;
    const prepared: QueueInput = {
      type: 'test_branch_prepared',
      batchId: batch.id,
      attempt: 1,
      sha: 'test-sha-1',
      draftPullRequest: 77,
    };
    const outcome = await runStep({ db: store.db, repositoryId: repo, inputs: [prepared], now, ids });

    // The first deadline: the stall doctor's, 1.5 × the default 10-minute CI duration (the
    // checks_timeout comes an hour after the start).
    const at = new Date(now.getTime() + 15 * 60_000);
    expect(outcome.wakeUps).toEqual([{ key: 'schedule_wake_up:queue', at }]);
    expect(await loadTimers(store.db, repo)).toEqual([
      { repositoryId: repo, key: 'schedule_wake_up:queue', dueAt: at },
    ]);
    const keys = (await outboxOf(repo)).map((r) => r.key);
    expect(keys.some((k) => k.startsWith('schedule_wake_up'))).toBe(false);
  });

  it('keeps nothing when `within` throws after writing', async () => {
    const repo = await freshRepo();
    await runStep({
      db: store.db,
      repositoryId: repo,
      inputs: openedAndQueued(1),
      now,
      ids: createCountingIds(),
    });
    const before = await snapshotOf(repo);

    const failing = runStep({
      db: store.db,
      repositoryId: repo,
      inputs: openedAndQueued(2),
      now,
      ids: createCountingIds(),
      within: async (tx) => {
        await savePause(tx, repo, { reason: 'x', by: { type: 'user', id: 1, name: 'o' }, now });
        await appendEvents(tx, repo, [
          {
            type: 'queue.pause.create',
            receivedAt: now,
            trigger: 'test',
            pullRequest: null,
            baseRef: null,
            metadata: { reason: 'x', created_by: { type: 'user', id: 1, name: 'o' } },
          },
        ]);
        throw new Error('refused after writing');
      },
    });
    await expect(failing).rejects.toThrow('refused after writing');
    expect(await snapshotOf(repo)).toEqual(before);
    expect(
      await store.db.selectFrom('pauses').selectAll().where('repository_id', '=', repo).execute(),
    ).toEqual([]);
  });

  it('keeps nothing when the engine throws on the second input', async () => {
    const repo = await freshRepo();
    await runStep({
      db: store.db,
      repositoryId: repo,
      inputs: openedAndQueued(1),
      now,
      ids: createCountingIds(),
    });
    const before = await snapshotOf(repo);
    const unknown = { type: 'no_such_input' } as unknown as QueueInput;

    const failing = runStep({
      db: store.db,
      repositoryId: repo,
      inputs: [...openedAndQueued(2), unknown],
      now,
      ids: createCountingIds(),
    });
    await expect(failing).rejects.toThrow(/unknown input/);
    expect(await snapshotOf(repo)).toEqual(before);
  });

  it('keeps nothing when the last write, the outbox insert, fails', async () => {
    const repo = await freshRepo();
    await runStep({
      db: store.db,
      repositoryId: repo,
      inputs: openedAndQueued(1),
      now,
      ids: createCountingIds(),
    });
    const before = await snapshotOf(repo);
    // A real database error at the very end of the transaction, after state, events and timers.
    await sql`CREATE FUNCTION refuse_outbox() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'outbox refused'; END $$`.execute(store.db);
    await sql`CREATE TRIGGER refuse_outbox BEFORE INSERT ON outbox FOR EACH ROW EXECUTE FUNCTION refuse_outbox()`.execute(
      store.db,
    );
    try {
      const failing = runStep({
        db: store.db,
        repositoryId: repo,
        inputs: openedAndQueued(2),
        now,
        ids: createCountingIds(),
      });
      await expect(failing).rejects.toThrow('outbox refused');
    } finally {
      await sql`DROP TRIGGER refuse_outbox ON outbox`.execute(store.db);
      await sql`DROP FUNCTION refuse_outbox()`.execute(store.db);
    }
    expect(await snapshotOf(repo)).toEqual(before);

    // The rolled-back state is not reused: the same step now commits as if it never ran.
    const ids = createCountingIds();
    const outcome = await runStep({ db: store.db, repositoryId: repo, inputs: openedAndQueued(2), now, ids });
    expect(Object.keys(outcome.state!.sessions).sort()).toEqual(['1', '2']);
  });

  it('without inputs commits only what `within` wrote, and the engine does not run', async () => {
    const repo = await freshRepo();
    const outcome = await runStep({
      db: store.db,
      repositoryId: repo,
      inputs: [],
      now,
      ids: createCountingIds(),
      within: async (tx) => {
        await saveDelivery(tx, {
          deliveryId: `delivery-${repo}`,
          event: 'ping',
          orderingKey: 'k',
          payload: '{}',
          now,
        });
        return undefined;
      },
    });
    expect(outcome).toEqual({ state: null, enqueued: [], wakeUps: [], eventIds: [] });
    expect(await loadQueueStateVersion(store.db, repo)).toBeNull();
    expect(await eventsOf(repo)).toEqual([]);
    const delivery = await store.db
      .selectFrom('webhook_deliveries')
      .select('event')
      .where('delivery_id', '=', `delivery-${repo}`)
      .executeTakeFirst();
    expect(delivery).toEqual({ event: 'ping' });
  });

  it('applies the inputs `within` returns before the given ones', async () => {
    const repo = await freshRepo();
    const [opened, queued] = openedAndQueued(1) as [QueueInput, QueueInput];
    const outcome = await runStep({
      db: store.db,
      repositoryId: repo,
      inputs: [queued],
      now,
      ids: createCountingIds(),
      within: async () => [opened],
    });
    expect(outcome.state).toEqual(replay([opened, queued]).state);
  });

  it('refuses an inconsistent stored state and writes nothing', async () => {
    const repo = await freshRepo();
    const { state } = await runStep({
      db: store.db,
      repositoryId: repo,
      inputs: openedAndQueued(1),
      now,
      ids: createCountingIds(),
    });
    // A batch holding a pull request that is not queued: the engine could never produce it.
    const broken = { ...state!, sessions: {} };
    await saveQueueState(store.db, repo, broken, now);
    const events = await eventsOf(repo);

    const failing = runStep({
      db: store.db,
      repositoryId: repo,
      inputs: [{ type: 'tick' }],
      now,
      ids: createCountingIds(),
    });
    await expect(failing).rejects.toThrow(/not queued/);
    expect(await eventsOf(repo)).toEqual(events);
  });

  it('loads a state another writer saved instead of the one it committed itself', async () => {
    const repo = await freshRepo();
    const ids = createCountingIds();
    const { state } = await runStep({
      db: store.db,
      repositoryId: repo,
      inputs: openedAndQueued(1),
      now,
      ids,
    });
    // Another instance paused the queue meanwhile (its save bumps the row's version).
    const paused: QueueState = {
      ...state!,
      pause: { paused: true, reason: 'elsewhere', since: now.toISOString() },
    };
    await saveQueueState(store.db, repo, paused, now);

    const outcome = await runStep({ db: store.db, repositoryId: repo, inputs: [{ type: 'tick' }], now, ids });
    expect(outcome.state!.pause).toEqual({ paused: true, reason: 'elsewhere', since: now.toISOString() });
  });

  it('reuses the state it committed while the stored version is unchanged, and does not save an unchanged state', async () => {
    const repo = await freshRepo();
    const ids = createCountingIds();
    const first = await runStep({ db: store.db, repositoryId: repo, inputs: openedAndQueued(1), now, ids });
    const version = await loadQueueStateVersion(store.db, repo);
    // Overwrite the JSON without a new version: only a step that reuses its own copy still works.
    await sql`UPDATE queue_state SET state = '{}'::jsonb WHERE repository_id = ${repo}::bigint`.execute(
      store.db,
    );

    const tick = await runStep({ db: store.db, repositoryId: repo, inputs: [{ type: 'tick' }], now, ids });
    expect(tick.state).toEqual(first.state);
    expect(await loadQueueStateVersion(store.db, repo)).toBe(version);
    // The core is gone; only the entries (migrations 0010 and 0011) are left.
    expect(Object.keys((await loadQueueState(store.db, repo)) as object).sort()).toEqual([
      'checkRuns',
      'lanes',
      'pullRequests',
      'sessions',
    ]);

    // Without its copy (another process), the overwritten row is what it gets, and refuses.
    queueStateCacheOf(store.db).forget(repo);
    await expect(
      runStep({ db: store.db, repositoryId: repo, inputs: [{ type: 'tick' }], now, ids }),
    ).rejects.toThrow();
  });

  it('round-trips a large state (1,000 queued pull requests) through the store unchanged', async () => {
    const repo = await freshRepo();
    const large = buildLargeState(1_000);
    await saveQueueState(store.db, repo, large, LARGE_STATE_TIME);
    const change: QueueInput = openedAndQueued(5_000)[0]!;

    const started = performance.now();
    const outcome = await runStep({
      db: store.db,
      repositoryId: repo,
      inputs: [change],
      now: LARGE_STATE_TIME,
      ids: createCountingIds(),
    });
    const coldMs = performance.now() - started;

    const expected = step(large, change, { now: LARGE_STATE_TIME, ids: createCountingIds() }).state;
    expect(outcome.state).toEqual(expected);
    expect(await loadQueueState(store.db, repo)).toEqual(JSON.parse(JSON.stringify(expected)));
    console.info(`${store.backend}: step on a 1,000-PR state without a kept copy: ${coldMs.toFixed(0)} ms`);
  });

  it('serializes two steps of one repository: the second sees the first', async () => {
    const repo = await freshRepo();
    const ids = createCountingIds();
    await Promise.all([
      runStep({ db: store.db, repositoryId: repo, inputs: openedAndQueued(1), now, ids }),
      runStep({ db: store.db, repositoryId: repo, inputs: openedAndQueued(2), now, ids }),
    ]);
    const state = (await loadQueueState(store.db, repo)) as QueueState;
    expect(Object.keys(state.sessions).sort()).toEqual(['1', '2']);
    const enters = (await eventsOf(repo)).filter((e) => e.type === 'action.queue.enter');
    expect(enters.map((e) => e.pull_request).sort()).toEqual([1, 2]);
  });

  it('steps the pause into the engine: pause_set closes the running draft PR', async () => {
    const repo = await freshRepo();
    const ids = createCountingIds();
    await runStep({ db: store.db, repositoryId: repo, inputs: openedAndQueued(1), now, ids });
    const outcome = await runStep({
      db: store.db,
      repositoryId: repo,
      inputs: [pauseSet('deploy')],
      now,
      ids,
    });
    expect(outcome.state!.pause).toMatchObject({ paused: true, reason: 'deploy' });
    const keys = (await outboxOf(repo)).map((r) => r.key);
    expect(keys.some((k) => k.startsWith('close_draft_pr:'))).toBe(true);
  });
});
