import { sql } from 'kysely';
import type { Queryable, Tx } from './database.ts';

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

export interface ClaimedDelivery {
  deliveryId: string;
  event: string;
  orderingKey: string;
  payload: string;
  /** Claims so far, this one included: the lease's token. */
  attempts: number;
}

/** The claim that holds a delivery. */
export interface DeliveryLease {
  deliveryId: string;
  attempts: number;
  /** Set once a committed transaction completed the delivery: there is nothing left to mark. */
  completed?: boolean;
}

/**
 * Leases up to `limit` deliveries, at most one per ordering key: each key's oldest unprocessed
 * delivery, when due and not leased (the outbox's claim, app/store/outbox.ts, for the inbox).
 * The heads are found by skipping from key to key through the pending index (one probe per
 * key, however long the backlog), and rows by that index or the primary key: `seq` has no index
 * of its own, and processed rows stay for a week.
 */
export async function claimDeliveries(
  db: Queryable,
  params: { limit: number; leaseMs: number; now: Date },
): Promise<ClaimedDelivery[]> {
  const now = params.now.toISOString();
  const leasedUntil = new Date(params.now.getTime() + params.leaseMs).toISOString();
  const result = await sql<{
    delivery_id: string;
    event: string;
    ordering_key: string;
    payload: string;
    attempts: number;
    seq: string;
  }>`
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
    )
    UPDATE webhook_deliveries SET attempts = webhook_deliveries.attempts + 1, leased_until = ${leasedUntil}::timestamptz
    WHERE webhook_deliveries.delivery_id IN (
      SELECT d.delivery_id FROM heads h
      JOIN webhook_deliveries d ON d.ordering_key = h.ordering_key AND d.seq = h.seq
      WHERE d.processed_at IS NULL
        AND d.available_at <= ${now}::timestamptz
        AND (d.leased_until IS NULL OR d.leased_until <= ${now}::timestamptz)
      ORDER BY d.seq
      LIMIT ${params.limit}
      FOR UPDATE OF d SKIP LOCKED
    )
    RETURNING delivery_id, event, ordering_key, payload, attempts, seq`.execute(db);
  return result.rows
    .sort((a, b) => Number(BigInt(a.seq) - BigInt(b.seq)))
    .map((r) => ({
      deliveryId: r.delivery_id,
      event: r.event,
      orderingKey: r.ordering_key,
      payload: r.payload,
      attempts: r.attempts,
    }));
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
