import { type RawBuilder, sql } from 'kysely';
import type { Effect } from '../queue/effects.ts';
import type { Queryable, Tx } from './database.ts';

/**
 * The outbox: effects written in the step's transaction, run at least once afterwards.
 *
 * Per repository, rows run one at a time in enqueue order: only the oldest pending row of a
 * repository can be claimed, so a merge never overtakes the preparation before it, on one
 * instance or several. A claim is a lease: `attempts` grows by one and is the lease's token, so
 * when a lease ran out and another instance claimed the row again, the first one can neither
 * complete nor retry it.
 */
export interface OutboxRow {
  id: string;
  repositoryId: string;
  key: string;
  effect: Effect;
  /** Claims so far, this one included: the token to complete or retry with. */
  attempts: number;
  createdAt: Date;
  leasedUntil: Date;
  lastError: string | null;
}

export interface Enqueued {
  id: string;
  key: string;
}

/**
 * Adds effects in order, in the caller's transaction (which holds the repository lock, so ids
 * grow in commit order per repository). An effect whose key is still pending is not added again.
 */
export async function enqueueEffects(
  tx: Tx,
  params: { repositoryId: string; effects: readonly Effect[]; now: Date },
): Promise<Enqueued[]> {
  const statement = enqueueEffectsStatement(params);
  return statement === null ? [] : (await statement.execute(tx)).rows;
}

/** enqueueEffects' statement (null when there is nothing to add), for a caller that sends it with others. */
export function enqueueEffectsStatement(params: {
  repositoryId: string;
  effects: readonly Effect[];
  now: Date;
}): RawBuilder<Enqueued> | null {
  // The same key twice in one step: the first one stands, as it would across steps.
  const byKey = new Map<string, Effect>();
  for (const effect of params.effects) if (!byKey.has(effect.key)) byKey.set(effect.key, effect);
  const effects = [...byKey.values()];
  if (effects.length === 0) return null;
  const now = params.now.toISOString();
  return sql<Enqueued>`
    INSERT INTO outbox (repository_id, key, effect, created_at, available_at)
    SELECT ${params.repositoryId}::bigint, t.key, t.effect, ${now}::timestamptz, ${now}::timestamptz
    FROM unnest(${effects.map((e) => e.key)}::text[], ${effects.map((e) => JSON.stringify(e))}::jsonb[])
      WITH ORDINALITY AS t(key, effect, n)
    ORDER BY t.n
    ON CONFLICT (repository_id, key) WHERE done_at IS NULL DO NOTHING
    RETURNING id, key`;
}

interface ClaimedRow {
  id: string;
  repository_id: string;
  key: string;
  effect: Effect;
  attempts: number;
  created_at: Date;
  leased_until: Date;
  last_error: string | null;
}

/**
 * Leases up to `limit` rows, at most one per repository: each repository's oldest pending row,
 * when it is due and not leased. Rows another transaction is claiming are skipped, not waited
 * for. The lease conditions are on the locked row itself so that PostgreSQL re-checks them
 * against a claim that committed meanwhile.
 */
export async function claimOutbox(
  db: Queryable,
  params: { limit: number; leaseMs: number; now: Date },
): Promise<OutboxRow[]> {
  const now = params.now.toISOString();
  const leasedUntil = new Date(params.now.getTime() + params.leaseMs).toISOString();
  const result = await sql<ClaimedRow>`
    WITH heads AS (
      SELECT DISTINCT ON (repository_id) id FROM outbox
      WHERE done_at IS NULL
      ORDER BY repository_id, id
    )
    UPDATE outbox SET attempts = outbox.attempts + 1, leased_until = ${leasedUntil}::timestamptz
    WHERE outbox.id IN (
      SELECT c.id FROM outbox c JOIN heads h ON h.id = c.id
      WHERE c.done_at IS NULL
        AND c.available_at <= ${now}::timestamptz
        AND (c.leased_until IS NULL OR c.leased_until <= ${now}::timestamptz)
      ORDER BY c.available_at, c.id
      LIMIT ${params.limit}
      FOR UPDATE OF c SKIP LOCKED
    )
    RETURNING id, repository_id, key, effect, attempts, created_at, leased_until, last_error`.execute(db);
  return result.rows
    .map((r) => ({
      id: r.id,
      repositoryId: r.repository_id,
      key: r.key,
      effect: r.effect,
      attempts: r.attempts,
      createdAt: r.created_at,
      leasedUntil: r.leased_until,
      lastError: r.last_error,
    }))
    .sort((a, b) => Number(BigInt(a.id) - BigInt(b.id)));
}

/** The claim that holds a row: its id and the attempt count it was leased with. */
export interface OutboxLease {
  id: string;
  attempts: number;
}

/**
 * Marks a claimed row done, in the transaction that records its result. False when the lease
 * was lost (another instance claimed the row again, or it is already done): the caller must
 * then drop its result.
 */
export async function completeOutbox(tx: Tx, lease: OutboxLease, now: Date): Promise<boolean> {
  return (await completeOutboxStatement(lease, now).execute(tx)).rows.length > 0;
}

/** completeOutbox's statement: it returns a row when the lease held (runStep's `guard`). */
export function completeOutboxStatement(lease: OutboxLease, now: Date): RawBuilder<{ id: string }> {
  return sql<{ id: string }>`
    UPDATE outbox SET done_at = ${now.toISOString()}::timestamptz, leased_until = NULL
    WHERE id = ${lease.id}::bigint AND attempts = ${lease.attempts}::int AND done_at IS NULL
    RETURNING id`;
}

/**
 * Marks a claimed row done and failed for good with `error`, in the transaction that records
 * the failure (runStep's `guard`: it returns a row when the lease held). It will not run again.
 */
export function failOutboxStatement(
  lease: OutboxLease,
  now: Date,
  error: string,
): RawBuilder<{ id: string }> {
  const at = now.toISOString();
  return sql<{ id: string }>`
    UPDATE outbox SET done_at = ${at}::timestamptz, failed_at = ${at}::timestamptz, leased_until = NULL,
      last_error = ${error}
    WHERE id = ${lease.id}::bigint AND attempts = ${lease.attempts}::int AND done_at IS NULL
    RETURNING id`;
}

/** An effect that failed for good, as the outbox keeps it. */
export interface FailedOutboxRow {
  id: string;
  key: string;
  effect: Effect;
  failedAt: Date;
  error: string;
}

/** The effects of a repository that failed for good, newest first (at most `limit`). */
export async function listFailedOutbox(
  db: Queryable,
  repositoryId: string,
  limit = 100,
): Promise<FailedOutboxRow[]> {
  const rows = await db
    .selectFrom('outbox')
    .select(['id', 'key', 'effect', 'failed_at', 'last_error'])
    .where('repository_id', '=', repositoryId)
    .where('failed_at', 'is not', null)
    .orderBy('failed_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    id: r.id,
    key: r.key,
    effect: r.effect as unknown as Effect,
    failedAt: r.failed_at!,
    error: r.last_error ?? '',
  }));
}

/** Releases a claimed row for another attempt at `availableAt`; false when the lease was lost. */
export async function retryOutbox(
  db: Queryable,
  lease: OutboxLease,
  params: { error: string; availableAt: Date },
): Promise<boolean> {
  const result = await db
    .updateTable('outbox')
    .set({ available_at: params.availableAt, leased_until: null, last_error: params.error })
    .where('id', '=', lease.id)
    .where('attempts', '=', lease.attempts)
    .where('done_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Rows not done yet, of one repository or all. */
export async function countPendingOutbox(db: Queryable, repositoryId?: string): Promise<number> {
  let query = db
    .selectFrom('outbox')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('done_at', 'is', null);
  if (repositoryId !== undefined) query = query.where('repository_id', '=', repositoryId);
  const row = await query.executeTakeFirstOrThrow();
  return Number(row.n);
}

/** When the next row could be claimed (its retry time or the end of its lease); null: none pending. */
export async function findNextOutboxTime(db: Queryable): Promise<Date | null> {
  const result = await sql<{ at: Date | null }>`
    SELECT min(GREATEST(o.available_at, COALESCE(o.leased_until, o.available_at))) AS at
    FROM (SELECT DISTINCT ON (repository_id) available_at, leased_until FROM outbox
          WHERE done_at IS NULL ORDER BY repository_id, id) o`.execute(db);
  return result.rows[0]?.at ?? null;
}

/** Deletes rows done before `before`; returns how many. */
export async function pruneOutbox(db: Queryable, before: Date): Promise<number> {
  const result = await db.deleteFrom('outbox').where('done_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
