import { type RawBuilder, sql } from 'kysely';
import { PREPARED_MARK, type Queryable, type Tx } from './database.ts';

/** GitHub redelivers a webhook under the same `X-GitHub-Delivery` id; seven days covers its retries. */
export const DELIVERY_RETENTION_MS = 7 * 24 * 3600 * 1000;

export interface NewDelivery {
  deliveryId: string;
  event: string;
  /** Deliveries with the same key are processed one at a time, in arrival order. */
  orderingKey: string;
  /** The raw JSON body. */
  payload: string;
  now: Date;
}

/** Stores a delivery for processing; false when this id was seen already (a redelivery). */
export async function saveDelivery(db: Queryable, delivery: NewDelivery): Promise<boolean> {
  const row = await db
    .insertInto('webhook_deliveries')
    .values({
      delivery_id: delivery.deliveryId,
      event: delivery.event,
      ordering_key: delivery.orderingKey,
      payload: delivery.payload,
      received_at: delivery.now,
      available_at: delivery.now,
    })
    .onConflict((oc) => oc.column('delivery_id').doNothing())
    .returning('delivery_id')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Stores deliveries in one statement, in the given order (their arrival order: `seq` grows with
 * it); returns the ids stored, without those seen already (redeliveries). An id twice in the
 * list is stored once, for its first occurrence.
 *
 * The bodies go as one JSON array, not as a text[]: the driver writes an array parameter as an
 * array literal, escaping every quote of every body in JavaScript, which cost more than the rest
 * of the statement's parameters together; JSON.stringify escapes them natively (figures in
 * docs/decisions/0035-webhook-path-profile.md).
 */
export async function saveDeliveries(
  db: Queryable,
  deliveries: readonly NewDelivery[],
): Promise<Set<string>> {
  if (deliveries.length === 0) return new Set();
  const result = await sql<{ delivery_id: string }>`${sql.raw(PREPARED_MARK)}
    INSERT INTO webhook_deliveries (delivery_id, event, ordering_key, payload, received_at, available_at)
    SELECT t.delivery_id, t.event, t.ordering_key, t.payload, t.received_at, t.received_at
    FROM ROWS FROM (unnest(${deliveries.map((d) => d.deliveryId)}::text[]),
      unnest(${deliveries.map((d) => d.event)}::text[]), unnest(${deliveries.map((d) => d.orderingKey)}::text[]),
      json_array_elements_text(${JSON.stringify(deliveries.map((d) => d.payload))}::json),
      unnest(${deliveries.map((d) => d.now.toISOString())}::timestamptz[]))
      WITH ORDINALITY AS t(delivery_id, event, ordering_key, payload, received_at, n)
    ORDER BY t.n
    ON CONFLICT (delivery_id) DO NOTHING
    RETURNING delivery_id`.execute(db);
  return new Set(result.rows.map((r) => r.delivery_id));
}

export interface ClaimedDelivery {
  deliveryId: string;
  event: string;
  orderingKey: string;
  payload: string;
  /** Claims so far, this one included: the lease's token. */
  attempts: number;
  /** When it was stored (the metrics' lag is measured from it). */
  receivedAt: Date;
}

/** The claim that holds a delivery. */
export interface DeliveryLease {
  deliveryId: string;
  attempts: number;
  /** Set once a committed transaction completed the delivery: there is nothing left to mark. */
  completed?: boolean;
}

/**
 * Leases deliveries of up to `limit` ordering keys: each key's oldest unprocessed delivery, when
 * due and not leased (the outbox's claim, app/store/outbox.ts, for the inbox), and with
 * `perKey` > 1 up to that many of the key's deliveries in arrival order — the ones right behind
 * it that are claimable too, so that a repository's backlog is applied in one step transaction
 * (group commit). A key's run stops at its first delivery that is not claimable (leased, or
 * locked by another claim). The heads are found by skipping from key to key through the pending
 * index (one probe per key, however long the backlog), and rows by that index or the primary
 * key: `seq` has no index of its own, and processed rows stay for a week. Returned in arrival
 * order (a key's deliveries consecutive in it, in their order).
 */
export async function claimDeliveries(
  db: Queryable,
  params: { limit: number; leaseMs: number; now: Date; perKey?: number },
): Promise<ClaimedDelivery[]> {
  const now = params.now.toISOString();
  const leasedUntil = new Date(params.now.getTime() + params.leaseMs).toISOString();
  const perKey = Math.max(1, params.perKey ?? 1);
  const result = await sql<ClaimedRow>`${sql.raw(PREPARED_MARK)}
    WITH RECURSIVE heads AS (
      (SELECT ordering_key, seq FROM webhook_deliveries
       WHERE processed_at IS NULL
       ORDER BY ordering_key, seq LIMIT 1)
      UNION ALL
      SELECT next.ordering_key, next.seq FROM heads h CROSS JOIN LATERAL (
        SELECT ordering_key, seq FROM webhook_deliveries
        WHERE processed_at IS NULL AND ordering_key > h.ordering_key
        ORDER BY ordering_key, seq LIMIT 1
      ) next
    ),
    due AS MATERIALIZED (
      SELECT h.ordering_key FROM heads h
      JOIN webhook_deliveries d ON d.ordering_key = h.ordering_key AND d.seq = h.seq
      WHERE d.processed_at IS NULL
        AND d.available_at <= ${now}::timestamptz
        AND (d.leased_until IS NULL OR d.leased_until <= ${now}::timestamptz)
      ORDER BY d.seq
      LIMIT ${params.limit}
    ),
    runs AS MATERIALIZED (
      SELECT r.delivery_id, r.rank FROM due CROSS JOIN LATERAL (
        ${rankRun(sql`ordering_key = due.ordering_key`, now, perKey)}
      ) r
      WHERE r.claimable
    ),
    ${leaseRuns(now, leasedUntil)}`.execute(db);
  return keepRuns(db, result.rows);
}

interface ClaimedRow {
  delivery_id: string;
  event: string;
  ordering_key: string;
  payload: string;
  attempts: number;
  received_at: Date | string;
  seq: string;
  rank: string;
}

/** Claimed rows in arrival order; a key's run ends at its first gap (a delivery another claim holds), the ones after it go back. */
async function keepRuns(db: Queryable, rows: ClaimedRow[]): Promise<ClaimedDelivery[]> {
  rows.sort((a, b) => Number(BigInt(a.seq) - BigInt(b.seq)));
  const next = new Map<string, number>();
  const claimed: ClaimedDelivery[] = [];
  const released: DeliveryLease[] = [];
  for (const r of rows) {
    const expected = next.get(r.ordering_key) ?? 1;
    const lease = {
      deliveryId: r.delivery_id,
      event: r.event,
      orderingKey: r.ordering_key,
      payload: r.payload,
      attempts: r.attempts,
      receivedAt: new Date(r.received_at),
    };
    if (Number(r.rank) === expected) {
      next.set(r.ordering_key, expected + 1);
      claimed.push(lease);
    } else {
      next.set(r.ordering_key, Number.POSITIVE_INFINITY);
      released.push(lease);
    }
  }
  if (released.length > 0) await releaseDeliveries(db, released);
  return claimed;
}

/**
 * Gives back claimed deliveries that were not attempted (they wait behind one that failed):
 * their lease ends and the claim does not count as an attempt. Leases lost meanwhile are left alone.
 */
export async function releaseDeliveries(db: Queryable, leases: readonly DeliveryLease[]): Promise<void> {
  if (leases.length === 0) return;
  await sql`
    UPDATE webhook_deliveries d SET leased_until = NULL, attempts = d.attempts - 1
    FROM unnest(${leases.map((l) => l.deliveryId)}::text[], ${leases.map((l) => l.attempts)}::int[]) AS l(id, attempts)
    WHERE d.delivery_id = l.id AND d.attempts = l.attempts AND d.processed_at IS NULL`.execute(db);
}

/** The delivery was claimed again elsewhere after this lease ran out: its inputs must not apply twice. */
export class DeliveryLeaseLostError extends Error {
  constructor(deliveryId: string) {
    super(`delivery ${deliveryId}: lease lost, another claim applies it`);
    this.name = 'DeliveryLeaseLostError';
  }
}

/**
 * Marks claimed deliveries processed in one statement, in the transaction that applies them;
 * returns the ids marked (a delivery whose lease was lost, or that is done already, is not).
 */
export async function completeDeliveries(
  tx: Tx | Queryable,
  leases: readonly DeliveryLease[],
  params: { now: Date },
): Promise<Set<string>> {
  if (leases.length === 0) return new Set();
  const result = await completeDeliveriesStatement(leases, params).execute(tx);
  return new Set(result.rows.map((r) => r.delivery_id));
}

/** completeDeliveries' statement, for a caller that sends it with others (a step transaction). */
export function completeDeliveriesStatement(
  leases: readonly DeliveryLease[],
  params: { now: Date },
): RawBuilder<{ delivery_id: string }> {
  return sql<{ delivery_id: string }>`${sql.raw(PREPARED_MARK)}
    UPDATE webhook_deliveries d
    SET processed_at = ${params.now.toISOString()}::timestamptz, leased_until = NULL, payload = NULL, last_error = NULL
    FROM unnest(${leases.map((l) => l.deliveryId)}::text[], ${leases.map((l) => l.attempts)}::int[]) AS l(id, attempts)
    WHERE d.delivery_id = l.id AND d.attempts = l.attempts AND d.processed_at IS NULL
    RETURNING d.delivery_id`;
}

/**
 * Marks a claimed delivery processed, in the transaction that applies it (so a delivery is
 * applied at most once even when a lease runs out): false when the lease was lost or it is
 * done already. `error` records why a delivery was given up.
 */
export async function completeDelivery(
  tx: Tx | Queryable,
  lease: DeliveryLease,
  params: { now: Date; error?: string },
): Promise<boolean> {
  const result = await tx
    .updateTable('webhook_deliveries')
    .set({ processed_at: params.now, leased_until: null, payload: null, last_error: params.error ?? null })
    .where('delivery_id', '=', lease.deliveryId)
    .where('attempts', '=', lease.attempts)
    .where('processed_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Releases a claimed delivery for another attempt at `availableAt`; false when the lease was lost. */
export async function retryDelivery(
  db: Queryable,
  lease: DeliveryLease,
  params: { error: string; availableAt: Date },
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ available_at: params.availableAt, leased_until: null, last_error: params.error })
    .where('delivery_id', '=', lease.deliveryId)
    .where('attempts', '=', lease.attempts)
    .where('processed_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * When the next delivery may be claimed (now or later), or null when none waits. Only each
 * key's oldest counts: the ones behind it wait for it, not for a time.
 */
export async function findNextDeliveryTime(db: Queryable): Promise<Date | null> {
  const result = await sql<{ next: Date | null }>`
    SELECT min(greatest(available_at, coalesce(leased_until, available_at))) AS next FROM (
      SELECT DISTINCT ON (ordering_key) available_at, leased_until FROM webhook_deliveries
      WHERE processed_at IS NULL
      ORDER BY ordering_key, seq
    ) heads`.execute(db);
  const next = result.rows[0]?.next;
  return next ? new Date(next) : null;
}

export async function countPendingDeliveries(db: Queryable): Promise<number> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('processed_at', 'is', null)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Forgets processed deliveries older than the retention; returns how many. */
export async function pruneDeliveries(
  db: Queryable,
  params: { now: Date; retentionMs?: number },
): Promise<number> {
  const before = new Date(params.now.getTime() - (params.retentionMs ?? DELIVERY_RETENTION_MS));
  const result = await db
    .deleteFrom('webhook_deliveries')
    .where('received_at', '<', before)
    .where('processed_at', 'is not', null)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * A key's unprocessed deliveries (those `where` picks), oldest first, at most `limit`: each with
 * its rank and whether it and every one before it can be claimed now (a run stops at the first
 * that cannot: deliveries of a key apply in order).
 */
function rankRun(where: RawBuilder<unknown>, now: string, limit: number): RawBuilder<unknown> {
  return sql`SELECT c.delivery_id, row_number() OVER (ORDER BY c.seq) AS rank,
               bool_and(c.available_at <= ${now}::timestamptz
                        AND (c.leased_until IS NULL OR c.leased_until <= ${now}::timestamptz))
                 OVER (ORDER BY c.seq) AS claimable
        FROM (SELECT delivery_id, seq, available_at, leased_until FROM webhook_deliveries
              WHERE processed_at IS NULL AND ${where}
              ORDER BY seq LIMIT ${limit}) c`;
}

/**
 * The end of a claim: leases the deliveries of the `runs` CTE that are still claimable once
 * locked (another instance's claim skips them) and returns them with their rank.
 */
function leaseRuns(now: string, leasedUntil: string): RawBuilder<unknown> {
  return sql`locked AS (
      SELECT d.delivery_id, runs.rank FROM runs
      JOIN webhook_deliveries d ON d.delivery_id = runs.delivery_id
      WHERE d.processed_at IS NULL
        AND d.available_at <= ${now}::timestamptz
        AND (d.leased_until IS NULL OR d.leased_until <= ${now}::timestamptz)
      FOR UPDATE OF d SKIP LOCKED
    )
    UPDATE webhook_deliveries SET attempts = webhook_deliveries.attempts + 1, leased_until = ${leasedUntil}::timestamptz
    FROM locked
    WHERE webhook_deliveries.delivery_id = locked.delivery_id
    RETURNING webhook_deliveries.delivery_id, event, ordering_key, payload, attempts, received_at, seq, locked.rank`;
}
