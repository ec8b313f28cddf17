import { sql } from 'kysely';
import type { Queryable } from './database.ts';

/** Work stored and not done yet, over every instance: what the metrics show as backlogs. */
export interface Backlog {
  /** Unprocessed webhook deliveries, counted up to the cap. */
  deliveriesPending: number;
  /** When the oldest of those counted was received; null when none. */
  oldestDeliveryReceivedAt: Date | null;
  /** Outbox rows not done, counted up to the cap. */
  outboxPending: number;
  /** When the oldest of those counted was created; null when none. */
  oldestOutboxCreatedAt: Date | null;
  /** Outbox rows that failed for good since `failedSince`, counted up to the cap. */
  outboxFailed: number;
}

/**
 * Reads the backlogs in one round trip, each through its partial index (pending deliveries,
 * pending outbox rows, failed outbox rows) and at most `cap` rows of each: a scrape costs the
 * same whatever the backlog, and a count at the cap means "at least".
 */
export async function readBacklog(
  db: Queryable,
  params: { cap: number; failedSince: Date },
): Promise<Backlog> {
  const cap = Math.max(1, Math.floor(params.cap));
  const result = await sql<{
    deliveries: string;
    oldest_delivery: Date | string | null;
    outbox: string;
    oldest_outbox: Date | string | null;
    failed: string;
  }>`SELECT d.n AS deliveries, d.oldest AS oldest_delivery, o.n AS outbox, o.oldest AS oldest_outbox,
         f.n AS failed
       FROM (SELECT count(*) AS n, min(received_at) AS oldest FROM (
               SELECT received_at FROM webhook_deliveries WHERE processed_at IS NULL LIMIT ${cap}) s) d,
            (SELECT count(*) AS n, min(created_at) AS oldest FROM (
               SELECT created_at FROM outbox WHERE done_at IS NULL LIMIT ${cap}) s) o,
            (SELECT count(*) AS n FROM (
               SELECT 1 FROM outbox WHERE failed_at IS NOT NULL
                 AND failed_at >= ${params.failedSince.toISOString()}::timestamptz LIMIT ${cap}) s) f`.execute(
    db,
  );
  const row = result.rows[0]!;
  const date = (value: Date | string | null) => (value === null ? null : new Date(value));
  return {
    deliveriesPending: Number(row.deliveries),
    oldestDeliveryReceivedAt: date(row.oldest_delivery),
    outboxPending: Number(row.outbox),
    oldestOutboxCreatedAt: date(row.oldest_outbox),
    outboxFailed: Number(row.failed),
  };
}
