import { isDeepStrictEqual } from 'node:util';
import type { RawBuilder } from 'kysely';
import { defaultConfig } from '../config/config.schema.ts';
import type { IdSource } from '../queue/ids.ts';
import type { QueueInput } from '../queue/inputs.ts';
import { initialState, queueStateSchema } from '../queue/state.schema.ts';
import type { QueueState } from '../queue/state.ts';
import type { Db, Tx } from './database.ts';
import { runEngine } from './engine-run.ts';
import { appendEvents } from './events.ts';
import { type Enqueued, enqueueEffects } from './outbox.ts';
import { loadQueueState, loadQueueStateVersion, saveQueueState } from './queue-state.ts';
import { queueStateCacheOf } from './queue-state-cache.ts';
import { inRepositoryTransaction } from './repository-transaction.ts';
import { runStepInOneTrip } from './step-in-one-trip.ts';
import { saveTimers } from './timers.ts';
import { completeDeliveriesForStep, type DeliveryLease } from './webhook-deliveries.ts';

export interface StepRequest {
  db: Db;
  repositoryId: string;
  /** Applied in order, after those `within` returns. */
  inputs: readonly QueueInput[];
  now: Date;
  ids: IdSource;
  /**
   * Runs first, in the same transaction: writes that must commit with the step (the pause row
   * and its events, a webhook's delivery id, an outbox row's completion). It may return more
   * inputs; throwing rolls everything back.
   */
  within?: (tx: Tx) => Promise<readonly QueueInput[] | undefined>;
  /**
   * Webhook deliveries whose inputs these are: marked processed in the transaction, after
   * `within` (one statement with the state version's read: a round trip fewer); a lease lost
   * meanwhile rolls the step back (DeliveryLeaseLostError), so a delivery applies exactly once.
   */
  deliveries?: readonly DeliveryLease[];
  /**
   * A statement run first in the transaction that must return a row (an outbox row's
   * completion, which returns none when the lease was lost); when it returns none the step
   * rolls back with `lost()`. Unlike `within`, it lets the step go in one trip (step-in-one-trip.ts).
   */
  guard?: { statement: RawBuilder<unknown>; lost: () => Error };
}

export interface StepOutcome {
  /** The state after the inputs; null when there was no input (the engine did not run). */
  state: QueueState | null;
  /** Outbox rows added (a key still pending is not added again). */
  enqueued: Enqueued[];
  wakeUps: { key: string; at: Date }[];
  /** Ids of the engine's events, in order. */
  eventIds: string[];
}

/**
 * The only place the engine runs (STYLE.md G13). One transaction under the repository's lock:
 * 1. the guard and `within`'s writes; 2. load the state (the initial one when none); 3. `step`
 * each input; 4. save the state (unless unchanged); 5. append the events; 6. enqueue the
 * effects, wake-ups as timers. Without inputs only step 1 runs. When this process kept the state
 * it last committed, the same transaction goes in two round trips (step-in-one-trip.ts). The
 * returned state is shared: do not mutate it.
 */
export async function runStep(request: StepRequest): Promise<StepOutcome> {
  const { db, repositoryId, now } = request;
  const cache = queueStateCacheOf(db);
  // Ids a one-trip attempt drew and did not commit are handed out again first: with a seeded
  // source, a step gives the same ids whichever way it commits.
  const drawn: string[] = [];
  const quick = await runStepInOneTrip({ ...request, ids: recordingIds(request.ids, drawn) }, cache);
  if (quick !== null) return quick;
  const ids = reusingIds(drawn, request.ids);
  let committed: { version: string; state: QueueState } | null = null;
  const outcome = await inRepositoryTransaction(db, repositoryId, async (tx) => {
    if (request.guard !== undefined && (await request.guard.statement.execute(tx)).rows.length === 0) {
      throw request.guard.lost();
    }
    const more = (await request.within?.(tx)) ?? [];
    const inputs = [...more, ...request.inputs];
    const deliveries = request.deliveries ?? [];
    if (inputs.length === 0) {
      if (deliveries.length > 0) await completeDeliveriesForStep(tx, deliveries, { repositoryId, now });
      return { state: null, enqueued: [], wakeUps: [], eventIds: [] };
    }

    const version =
      deliveries.length > 0
        ? (await completeDeliveriesForStep(tx, deliveries, { repositoryId, now })).version
        : await loadQueueStateVersion(tx, repositoryId);
    const loaded =
      version === null ? initialState(defaultConfig) : await loadState(tx, repositoryId, version);
    const run = runEngine(loaded, inputs, { now, ids });
    const state = run.state;

    // Unchanged parts of a state keep their objects, so comparing costs about the changed part.
    if (!isDeepStrictEqual(state, loaded)) {
      // Against the stored state (none yet: everything is written), only what changed is written.
      const previous = version === null ? null : loaded;
      committed = { version: await saveQueueState(tx, repositoryId, state, now, previous), state };
    } else if (version !== null) {
      committed = { version, state: loaded };
    }
    const eventIds = await appendEvents(tx, repositoryId, run.events);
    await saveTimers(tx, { repositoryId, timers: run.wakeUps });
    const enqueued = await enqueueEffects(tx, { repositoryId, effects: run.effects, now });
    return { state, enqueued, wakeUps: run.wakeUps, eventIds };
  });
  // Only once committed: a rolled-back state must never be reused.
  if (committed !== null) {
    const { version, state } = committed;
    cache.set(repositoryId, version, state);
  }
  return outcome;

  async function loadState(tx: Tx, id: string, version: string): Promise<QueueState> {
    const kept = cache.get(id, version);
    if (kept !== undefined) return kept;
    // Parsed, not trusted (STYLE.md G2): an inconsistent stored state stops the step.
    return queueStateSchema.parse(await loadQueueState(tx, id)) as QueueState;
  }
}

function recordingIds(ids: IdSource, drawn: string[]): IdSource {
  return {
    uuid: () => {
      const id = ids.uuid();
      drawn.push(id);
      return id;
    },
  };
}

function reusingIds(drawn: readonly string[], ids: IdSource): IdSource {
  let next = 0;
  return { uuid: () => (next < drawn.length ? drawn[next++]! : ids.uuid()) };
}
