import { isDeepStrictEqual } from 'node:util';
import type { NewEvent } from '../../shared/schemas/event.schema.ts';
import { defaultConfig } from '../config/config.schema.ts';
import type { Effect } from '../queue/effects.ts';
import type { IdSource } from '../queue/ids.ts';
import type { QueueInput } from '../queue/inputs.ts';
import { initialState, queueStateSchema } from '../queue/state.schema.ts';
import type { QueueState } from '../queue/state.ts';
import { step } from '../queue/step.ts';
import type { Db, Tx } from './database.ts';
import { appendEvents, type EventToAppend } from './events.ts';
import { type Enqueued, enqueueEffects } from './outbox.ts';
import { loadQueueState, loadQueueStateVersion, saveQueueState } from './queue-state.ts';
import { queueStateCacheOf } from './queue-state-cache.ts';
import { inRepositoryTransaction } from './repository-transaction.ts';
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
 * 1. `within`'s writes; 2. load the state (the initial one when none); 3. `step` each input;
 * 4. save the state (unless unchanged); 5. append the events; 6. enqueue the effects, wake-ups
 * as timers. Without inputs only step 1 runs. The returned state is shared: do not mutate it.
 */
export async function runStep(request: StepRequest): Promise<StepOutcome> {
  const { db, repositoryId, now, ids } = request;
  const cache = queueStateCacheOf(db);
  let committed: { version: string; state: QueueState } | null = null;
  const outcome = await inRepositoryTransaction(db, repositoryId, async (tx) => {
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
    let state = loaded;
    const events: NewEvent[] = [];
    const effects: Effect[] = [];
    for (const input of inputs) {
      const result = step(state, input, { now, ids });
      state = result.state;
      events.push(...result.events);
      effects.push(...result.effects);
    }

    // Unchanged parts of a state keep their objects, so comparing costs about the changed part.
    if (!isDeepStrictEqual(state, loaded)) {
      // Against the stored state (none yet: everything is written), only what changed is written.
      const previous = version === null ? null : loaded;
      committed = { version: await saveQueueState(tx, repositoryId, state, now, previous), state };
    } else if (version !== null) {
      committed = { version, state: loaded };
    }
    const eventIds = await appendEvents(
      tx,
      repositoryId,
      events.map((e) => toAppend(e, now)),
    );
    const wakeUps = effects.flatMap((e) =>
      e.type === 'schedule_wake_up' ? [{ key: e.key, at: new Date(e.at) }] : [],
    );
    await saveTimers(tx, { repositoryId, timers: wakeUps });
    const enqueued = await enqueueEffects(tx, {
      repositoryId,
      effects: effects.filter((e) => e.type !== 'schedule_wake_up'),
      now,
    });
    return { state, enqueued, wakeUps, eventIds };
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

function toAppend(event: NewEvent, now: Date): EventToAppend {
  return {
    type: event.type,
    receivedAt: event.received_at ? new Date(event.received_at) : now,
    trigger: event.trigger,
    pullRequest: event.pull_request,
    baseRef: event.base_ref,
    metadata: event.metadata as Record<string, unknown>,
  };
}
