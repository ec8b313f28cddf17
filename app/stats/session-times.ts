import { sql } from 'kysely';

/*
 * Per-session durations (seconds) of stats_sessions rows, shared by the session statistics.
 * A session's time in queue is left_at − queued_at; its capacity wait is the time from
 * queued_at to its first checks start (to its leave when checks never started).
 */

export const queueSeconds = sql<number>`greatest(0, extract(epoch FROM (left_at - coalesce(queued_at, left_at))))::float8`;

export const capacitySeconds = sql<number>`greatest(0, extract(epoch FROM (
  least(coalesce(first_checks_at, left_at), left_at) - coalesce(queued_at, left_at))))::float8`;
