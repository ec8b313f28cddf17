import { isDeepStrictEqual } from 'node:util';
import type { RawBuilder } from 'kysely';
import { defaultConfig } from '../config/config.schema.ts';
import type { IdSource } from '../queue/ids.ts';
import type { QueueInput } from '../queue/inputs.ts';
import { initialState, queueStateSchema } from '../queue/state.schema.ts';
import type { QueueState } from '../queue/state.ts';
import { type Db, executeTogether, type Tx } from './database.ts';
import { runEngine } from './engine-run.ts';
import { appendEvents, type EventToAppend } from './events.ts';
import { type Enqueued, enqueueEffectsStatement } from './outbox.ts';
import { enginePauseStatement } from './pauses.ts';
import { loadQueueStateStatement, type StoredStateRow, saveQueueStateStatements } from './queue-state.ts';
import { queueStateCacheOf } from './queue-state-cache.ts';
import { assembleState } from './queue-state-entries.ts';
import { lockRepositoryStatement } from './repository-lock.ts';
import { asWriteConflict, DEFAULT_LOCK_TIMEOUT_MS } from './repository-transaction.ts';
import { reportCommittedStep } from './step-observer.ts';
import { saveTimersStatement } from './timers.ts';
import {
  completeDeliveriesStatement,
  type DeliveryLease,
  DeliveryLeaseLostError,
} from './webhook-deliveries.ts';

export interface StepRequest {
  db: Db;
  repositoryId: string;
  /** Applied in order, after those `within` returns. */
  inputs: readonly QueueInput[];
  now: Date;
  ids: IdSource;
  /**
   * Runs first, in the same transaction: writes that must commit with the step (the pause row
   * and its events, a claim of due timers). It may return more inputs; throwing rolls
   * everything back.
   */
  within?: (tx: Tx) => Promise<readonly QueueInput[] | undefined>;
  /**
   * Webhook deliveries whose inputs these are: marked processed in the transaction, after
   * `within`; a lease lost meanwhile rolls the step back (DeliveryLeaseLostError), so a delivery
   * applies exactly once.
   */
  deliveries?: readonly DeliveryLease[];
  /**
   * A statement run first in the transaction that must return a row (an outbox row's
   * completion, which returns none when the lease was lost); when it returns none the step
   * rolls back with `lost()`. Unlike `within`, it is sent with the lock, without a round trip
   * of its own.
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

/** A statement of a step, sent with others, and what reads its answer (throwing rolls back). */
interface Planned {
  statement: RawBuilder<unknown>;
  read?: (rows: unknown[]) => void;
}

async function send(tx: Tx, plan: readonly Planned[], options: { commit?: boolean } = {}): Promise<void> {
  if (plan.length === 0 && options.commit !== true) return;
  const answers = await executeTogether(
    tx,
    plan.map((p) => p.statement),
    options,
  );
  for (const [i, p] of plan.entries()) p.read?.(answers[i]!.rows);
}

/**
 * The only place the engine runs (STYLE.md G13). One transaction under the repository's lock:
 * 1. the guard and `within`'s writes; 2. the deliveries marked processed, and the state loaded
 * (the initial one when none); 3. `step` each input; 4. append the events; 5. save the state
 * (unless unchanged), timers and outbox rows. Without inputs only 1 and the deliveries run.
 *
 * Statements that do not wait for each other's answers go together (executeTogether), so a
 * step takes three round trips — BEGIN; the lock, guard, deliveries and state; the writes with
 * COMMIT — and one more when it appends events, plus `within`'s own. The repository's lock is
 * held from the second to the last. The state this process last committed is kept
 * (queue-state-cache.ts): while the stored version is still the one it wrote, the state is
 * neither read nor parsed again. The returned state is shared: do not mutate it.
 */
export async function runStep(request: StepRequest): Promise<StepOutcome> {
  const { db, repositoryId, now, ids, guard, within } = request;
  const deliveries = request.deliveries ?? [];
  const cache = queueStateCacheOf(db);
  let committed: { version: string; state: QueueState } | null = null;
  let outcome: StepOutcome;
  const startedAt = performance.now();
  let stepped: { inputs: readonly QueueInput[]; events: readonly EventToAppend[] } | null = null;
  try {
    outcome = await db.transaction().execute(async (tx) => {
      let stored: StoredStateRow | undefined;
      const kept = cache.latest(repositoryId);
      // What the engine needs, read under the lock (after `within`, when there is one).
      const reads = (withState: boolean): Planned[] => {
        const plan: Planned[] = [];
        if (deliveries.length > 0) {
          plan.push({
            statement: completeDeliveriesStatement(deliveries, { now }),
            read: (rows) => {
              const done = new Set((rows as { delivery_id: string }[]).map((r) => r.delivery_id));
              const lost = deliveries.find((l) => !done.has(l.deliveryId));
              if (lost !== undefined) throw new DeliveryLeaseLostError(lost.deliveryId);
            },
          });
        }
        if (withState) {
          plan.push({
            statement: loadQueueStateStatement(repositoryId, kept?.version ?? null),
            read: (rows) => {
              stored = rows[0] as StoredStateRow | undefined;
            },
          });
        }
        return plan;
      };

      const first: Planned[] = [
        { statement: lockRepositoryStatement(repositoryId, DEFAULT_LOCK_TIMEOUT_MS) },
      ];
      if (guard !== undefined) {
        first.push({
          statement: guard.statement,
          read: (rows) => {
            if (rows.length === 0) throw guard.lost();
          },
        });
      }
      if (within === undefined) first.push(...reads(request.inputs.length > 0));
      await send(tx, first);
      let inputs = request.inputs;
      if (within !== undefined) {
        inputs = [...((await within(tx)) ?? []), ...request.inputs];
        await send(tx, reads(inputs.length > 0));
      }
      if (inputs.length === 0) return { state: null, enqueued: [], wakeUps: [], eventIds: [] };

      const version = stored?.version ?? null;
      const loaded =
        stored === undefined
          ? initialState(defaultConfig)
          : stored.state === null
            ? kept!.state
            : // Parsed, not trusted (STYLE.md G2): an inconsistent stored state stops the step.
              (queueStateSchema.parse(assembleState(stored.state, stored.entries!)) as QueueState);
      const run = runEngine(loaded, inputs, { now, ids });
      const state = run.state;

      const writes: Planned[] = [];
      // Unchanged parts of a state keep their objects, so comparing costs about the changed part.
      if (!isDeepStrictEqual(state, loaded)) {
        // Against the stored state (none yet: everything is written), only what changed is written.
        const saves = saveQueueStateStatements(repositoryId, state, now, version === null ? null : loaded);
        writes.push(...saves.slice(0, -1).map((statement) => ({ statement })));
        writes.push({
          statement: saves.at(-1)!,
          read: (rows) => {
            committed = { version: (rows[0] as { version: string }).version, state };
          },
        });
      } else if (version !== null) {
        committed = { version, state: loaded };
      }
      const pause = enginePauseStatement(repositoryId, run.events, now);
      if (pause !== null) writes.push({ statement: pause });
      const timers = saveTimersStatement({ repositoryId, timers: run.wakeUps });
      if (timers !== null) writes.push({ statement: timers });
      let enqueued: Enqueued[] = [];
      const outbox = enqueueEffectsStatement({ repositoryId, effects: run.effects, now });
      if (outbox !== null) {
        writes.push({
          statement: outbox,
          read: (rows) => {
            enqueued = rows as Enqueued[];
          },
        });
      }
      // On their own: the statistics projections may need statements chosen from the answer.
      const eventIds = await appendEvents(tx, repositoryId, run.events);
      stepped = { inputs, events: run.events };
      // The other writes and COMMIT: nothing is left to check before the transaction ends.
      await send(tx, writes, { commit: true });
      return { state, enqueued, wakeUps: run.wakeUps, eventIds };
    });
  } catch (error) {
    throw asWriteConflict(error);
  }
  // Only once committed: a rolled-back state must never be reused.
  if (committed !== null) {
    const { version, state } = committed;
    cache.set(repositoryId, version, state);
  }
  if (stepped !== null) {
    const { inputs, events } = stepped;
    reportCommittedStep(db, {
      repositoryId,
      inputs,
      events,
      seconds: (performance.now() - startedAt) / 1_000,
    });
  }
  return outcome;
}
