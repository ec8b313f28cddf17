import { isDeepStrictEqual } from 'node:util';
import { type RawBuilder, sql } from 'kysely';
import type pg from 'pg';
import { type Db, oneTripPoolOf } from './database.ts';
import { runEngine } from './engine-run.ts';
import { appendEventsStatement } from './events.ts';
import { inlineParameters } from './inline-parameters.ts';
import { type Enqueued, enqueueEffectsStatement } from './outbox.ts';
import { saveQueueStateStatements } from './queue-state.ts';
import type { QueueStateCache } from './queue-state-cache.ts';
import { lockRepositoryStatement } from './repository-lock.ts';
import { asWriteConflict, DEFAULT_LOCK_TIMEOUT_MS } from './repository-transaction.ts';
import type { StepOutcome, StepRequest } from './step-transaction.ts';
import { saveTimersStatement } from './timers.ts';
import {
  type CompletedForStepRow,
  completeDeliveriesForStepStatement,
  readCompletedForStep,
} from './webhook-deliveries.ts';

/**
 * runStep in two round trips instead of one per statement (five to eight): the engine steps
 * from the state this process last committed (the cache), then one simple-query message opens
 * the transaction, takes the repository's lock and sends every write — the guard, the
 * deliveries' completion with a read of the stored version, the state, events, timers and
 * outbox rows — and a second one commits, once the answers show the stored version was the one
 * stepped from and every lease held. Each round trip cost a turn of a busy event loop
 * (bench:webhooks). The writes are those of runStep's transaction, under the same lock.
 *
 * Returns null, having written nothing, when this path does not apply: a store without
 * oneTripSteps (PGlite by default), `within` writes, no
 * state kept, another writer moved the version on, the engine threw, or a write needs
 * statements chosen from the answers (statistics readings out of order, a very large append).
 * runStep then runs as before.
 */
export async function runStepInOneTrip(
  request: StepRequest,
  cache: QueueStateCache,
): Promise<StepOutcome | null> {
  const { db, repositoryId, now } = request;
  const pool = oneTripPoolOf(db);
  if (request.within !== undefined || pool === undefined) return null;
  const deliveries = request.deliveries ?? [];
  const kept = request.inputs.length > 0 ? cache.latest(repositoryId) : undefined;
  if (request.inputs.length > 0 && kept === undefined) return null;

  const plan: Planned[] = [{ statement: lockRepositoryStatement(repositoryId, DEFAULT_LOCK_TIMEOUT_MS) }];
  const guard = request.guard;
  if (guard !== undefined) {
    plan.push({
      statement: guard.statement,
      check: (result) => {
        if (result.rows.length === 0) throw guard.lost();
      },
    });
  }
  // The version stored when the lock is held: the cached state is current only if it matches.
  let storedVersion: string | null = null;
  if (deliveries.length > 0) {
    plan.push({
      statement: completeDeliveriesForStepStatement(deliveries, { repositoryId, now }),
      check: (result) => {
        storedVersion = readCompletedForStep(
          result.rows[0] as CompletedForStepRow | undefined,
          deliveries,
        ).version;
      },
    });
  }

  if (kept === undefined) {
    if (plan.length === 1) return emptyOutcome();
    await runInTransaction(db, pool, plan, () => true);
    return emptyOutcome();
  }

  if (deliveries.length === 0) {
    plan.push({
      statement: sql`SELECT version FROM queue_state WHERE repository_id = ${repositoryId}::bigint`,
      check: (result) => {
        storedVersion = (result.rows[0] as { version: string } | undefined)?.version ?? null;
      },
    });
  }
  let run: ReturnType<typeof runEngine>;
  try {
    run = runEngine(kept.state, request.inputs, { now, ids: request.ids });
  } catch {
    // Stepped from the stored state instead, where it throws again if it must (and rolls back).
    return null;
  }
  const changed = !isDeepStrictEqual(run.state, kept.state);
  let committedVersion = kept.version;
  if (changed) {
    const saves = saveQueueStateStatements(repositoryId, run.state, now, kept.state);
    plan.push(...saves.slice(0, -1).map((s) => ({ statement: s })));
    plan.push({
      statement: saves.at(-1)!,
      check: (result) => {
        committedVersion = (result.rows[0] as { version: string }).version;
      },
    });
  }
  let eventIds: string[] = [];
  let followUpNeeded = false;
  if (run.events.length > 0) {
    const append = appendEventsStatement(repositoryId, run.events);
    if (append === null) return null;
    plan.push({
      statement: append.statement,
      check: (result) => {
        const ids = append.idsOf(result.rows[0]);
        if (ids === null) followUpNeeded = true;
        else eventIds = ids;
      },
    });
  }
  const timers = saveTimersStatement({ repositoryId, timers: run.wakeUps });
  if (timers !== null) plan.push({ statement: timers });
  let enqueued: Enqueued[] = [];
  const outbox = enqueueEffectsStatement({ repositoryId, effects: run.effects, now });
  if (outbox !== null) {
    plan.push({
      statement: outbox,
      check: (result) => {
        enqueued = result.rows as Enqueued[];
      },
    });
  }

  const committed = await runInTransaction(
    db,
    pool,
    plan,
    () => storedVersion === kept.version && !followUpNeeded,
  );
  if (!committed) {
    if (storedVersion !== kept.version) cache.forget(repositoryId);
    return null;
  }
  cache.set(repositoryId, committedVersion, run.state);
  return { state: run.state, enqueued, wakeUps: run.wakeUps, eventIds };
}

interface Planned {
  statement: RawBuilder<unknown>;
  /** Reads the statement's answer; throwing rolls the transaction back. */
  check?: (result: pg.QueryResult) => void;
}

function emptyOutcome(): StepOutcome {
  return { state: null, enqueued: [], wakeUps: [], eventIds: [] };
}

/**
 * BEGIN and the statements in one message; then COMMIT when the checks pass and `commit()`
 * says so, ROLLBACK otherwise (and after any error). Returns whether it committed.
 */
async function runInTransaction(
  db: Db,
  pool: pg.Pool,
  plan: readonly Planned[],
  commit: () => boolean,
): Promise<boolean> {
  const texts = plan.map((p) => {
    const compiled = p.statement.compile(db);
    return inlineParameters(compiled.sql, compiled.parameters);
  });
  const client = await pool.connect();
  // Sent BEGIN and not yet COMMIT or ROLLBACK: a failed statement leaves the transaction aborted until it ends.
  let open = false;
  let broken: Error | undefined;
  try {
    open = true;
    const results = (await client.query(`BEGIN;\n${texts.join(';\n')}`)) as unknown as pg.QueryResult[];
    // results[0] answers BEGIN.
    for (const [i, p] of plan.entries()) p.check?.(results[i + 1]!);
    const ending = commit() ? 'COMMIT' : 'ROLLBACK';
    await client.query(ending);
    open = false;
    return ending === 'COMMIT';
  } catch (error) {
    if (open) {
      await client.query('ROLLBACK').catch((rollback: Error) => {
        broken = rollback;
      });
    }
    throw asWriteConflict(error);
  } finally {
    client.release(broken);
  }
}
