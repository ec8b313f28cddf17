import { sql } from 'kysely';
import type { Db, Queryable } from '../store/database.ts';
import type { EventToAppend } from '../store/events.ts';
import { inRepositoryTransaction } from '../store/repository-transaction.ts';
import { deriveProjectionRows, type GroupKeys, type ProjectionRows } from './projection-rows.ts';

/*
 * Writes the statistics projections (migrations/0002) for appended events, in the caller's
 * transaction, one INSERT per table through unnest. `rebuildStatsProjections` replays the
 * event log through the same code.
 */

const iso = (d: Date | null) => (d === null ? null : d.toISOString());

function keyArrays(rows: readonly GroupKeys[]) {
  return {
    base: rows.map((r) => r.base_ref),
    partition: rows.map((r) => r.partition_name),
    queue: rows.map((r) => r.queue_name),
    priority: rows.map((r) => r.priority_rule_name),
  };
}

async function saveRows(db: Queryable, repositoryId: string, rows: ProjectionRows): Promise<void> {
  const repo = sql`${repositoryId}::bigint`;
  if (rows.enters.length > 0) {
    const k = keyArrays(rows.enters);
    await sql`
      INSERT INTO stats_enters (repository_id, at, base_ref, partition_name, queue_name, priority_rule_name)
      SELECT ${repo}, t.* FROM unnest(
        ${rows.enters.map((r) => r.at.toISOString())}::timestamptz[],
        ${k.base}::text[], ${k.partition}::text[], ${k.queue}::text[], ${k.priority}::text[])
        AS t`.execute(db);
  }
  if (rows.merges.length > 0) {
    // Arrays of arrays cannot be unnested row by row: the partition names travel as JSON.
    await sql`
      INSERT INTO stats_merges (repository_id, at, base_ref, partition_names, queue_name, priority_rule_name)
      SELECT ${repo}, t.at, t.base_ref,
        ARRAY(SELECT jsonb_array_elements_text(t.names)), t.queue_name, t.priority_rule_name
      FROM unnest(
        ${rows.merges.map((r) => r.at.toISOString())}::timestamptz[],
        ${rows.merges.map((r) => r.base_ref)}::text[],
        ${rows.merges.map((r) => JSON.stringify(r.partition_names))}::jsonb[],
        ${rows.merges.map((r) => r.queue_name)}::text[],
        ${rows.merges.map((r) => r.priority_rule_name)}::text[])
        AS t(at, base_ref, names, queue_name, priority_rule_name)`.execute(db);
  }
  if (rows.checks.length > 0) {
    const k = keyArrays(rows.checks);
    await sql`
      INSERT INTO stats_checks (repository_id, at, base_ref, partition_name, queue_name, priority_rule_name, outcome, runtime)
      SELECT ${repo}, t.* FROM unnest(
        ${rows.checks.map((r) => r.at.toISOString())}::timestamptz[],
        ${k.base}::text[], ${k.partition}::text[], ${k.queue}::text[], ${k.priority}::text[],
        ${rows.checks.map((r) => r.outcome)}::text[],
        ${rows.checks.map((r) => r.runtime)}::float8[]) AS t`.execute(db);
  }
  if (rows.batches.length > 0) {
    const k = keyArrays(rows.batches);
    await sql`
      INSERT INTO stats_batches (repository_id, at, run_key, base_ref, partition_name, queue_name, priority_rule_name, size)
      SELECT ${repo}, t.* FROM unnest(
        ${rows.batches.map((r) => r.at.toISOString())}::timestamptz[],
        ${rows.batches.map((r) => r.run_key)}::text[],
        ${k.base}::text[], ${k.partition}::text[], ${k.queue}::text[], ${k.priority}::text[],
        ${rows.batches.map((r) => r.size)}::int4[]) AS t
      ON CONFLICT (repository_id, run_key) DO NOTHING`.execute(db);
  }
  if (rows.bisections.length > 0) {
    const k = keyArrays(rows.bisections);
    await sql`
      INSERT INTO stats_bisections (repository_id, at, kind, base_ref, partition_name, queue_name, priority_rule_name,
        depth, size_before_split, culprit_found, max_failure_reached)
      SELECT ${repo}, t.* FROM unnest(
        ${rows.bisections.map((r) => r.at.toISOString())}::timestamptz[],
        ${rows.bisections.map((r) => r.kind)}::"char"[],
        ${k.base}::text[], ${k.partition}::text[], ${k.queue}::text[], ${k.priority}::text[],
        ${rows.bisections.map((r) => r.depth)}::int4[],
        ${rows.bisections.map((r) => r.size_before_split)}::int4[],
        ${rows.bisections.map((r) => r.culprit_found)}::bool[],
        ${rows.bisections.map((r) => r.max_failure_reached)}::bool[]) AS t`.execute(db);
  }
  if (rows.gauges.length > 0) {
    const k = keyArrays(rows.gauges);
    await sql`
      WITH t AS (
        SELECT * FROM unnest(
          ${rows.gauges.map((r) => r.event_id)}::int8[],
          ${rows.gauges.map((r) => r.at.toISOString())}::timestamptz[],
          ${rows.gauges.map((r) => r.kind)}::"char"[],
          ${k.base}::text[], ${k.partition}::text[], ${k.queue}::text[], ${k.priority}::text[],
          ${rows.gauges.map((r) => r.value)}::int4[])
          AS t(event_id, at, kind, base_ref, partition_name, queue_name, priority_rule_name, value)
      ), keys AS (
        INSERT INTO stats_gauge_keys (repository_id, kind, base_ref, partition_name, queue_name, priority_rule_name)
        SELECT DISTINCT ${repo}, kind, base_ref, partition_name, queue_name, priority_rule_name FROM t
        ON CONFLICT DO NOTHING
      )
      INSERT INTO stats_gauges (repository_id, event_id, at, kind, base_ref, partition_name, queue_name, priority_rule_name, value)
      SELECT ${repo}, t.* FROM t`.execute(db);
  }
  if (rows.sessions.length > 0) {
    const s = rows.sessions;
    const key = (f: keyof GroupKeys) => s.map((r) => r.keys?.[f] ?? null);
    await sql`
      INSERT INTO stats_sessions AS s (repository_id, session_key, base_ref, partition_name, queue_name,
        priority_rule_name, queued_at, first_checks_at, left_at, merged, exit_code, seconds_freeze,
        seconds_schedule, retries, max_retry_attempt, last_checks_outcome)
      SELECT ${repo}, t.* FROM unnest(
        ${s.map((r) => r.session_key)}::text[],
        ${key('base_ref')}::text[], ${key('partition_name')}::text[], ${key('queue_name')}::text[],
        ${key('priority_rule_name')}::text[],
        ${s.map((r) => iso(r.queued_at))}::timestamptz[],
        ${s.map((r) => iso(r.first_checks_at))}::timestamptz[],
        ${s.map((r) => iso(r.left_at))}::timestamptz[],
        ${s.map((r) => r.merged)}::bool[],
        ${s.map((r) => r.exit_code)}::text[],
        ${s.map((r) => r.seconds_freeze)}::int4[],
        ${s.map((r) => r.seconds_schedule)}::int4[],
        ${s.map((r) => r.retries)}::int4[],
        ${s.map((r) => r.max_retry_attempt)}::int4[],
        ${s.map((r) => r.last_checks_outcome)}::text[]) AS t
      ON CONFLICT (repository_id, session_key) DO UPDATE SET
        base_ref = CASE WHEN EXCLUDED.left_at IS NOT NULL OR s.left_at IS NULL
          THEN COALESCE(EXCLUDED.base_ref, s.base_ref) ELSE s.base_ref END,
        partition_name = CASE WHEN EXCLUDED.left_at IS NOT NULL OR s.left_at IS NULL
          THEN COALESCE(EXCLUDED.partition_name, s.partition_name) ELSE s.partition_name END,
        queue_name = CASE WHEN EXCLUDED.left_at IS NOT NULL OR s.left_at IS NULL
          THEN COALESCE(EXCLUDED.queue_name, s.queue_name) ELSE s.queue_name END,
        priority_rule_name = CASE WHEN EXCLUDED.left_at IS NOT NULL OR s.left_at IS NULL
          THEN COALESCE(EXCLUDED.priority_rule_name, s.priority_rule_name) ELSE s.priority_rule_name END,
        queued_at = CASE WHEN EXCLUDED.left_at IS NOT NULL
          THEN COALESCE(EXCLUDED.queued_at, s.queued_at) ELSE COALESCE(s.queued_at, EXCLUDED.queued_at) END,
        first_checks_at = LEAST(s.first_checks_at, EXCLUDED.first_checks_at),
        left_at = CASE WHEN EXCLUDED.left_at IS NOT NULL THEN EXCLUDED.left_at ELSE s.left_at END,
        merged = CASE WHEN EXCLUDED.left_at IS NOT NULL THEN EXCLUDED.merged ELSE s.merged END,
        exit_code = CASE WHEN EXCLUDED.left_at IS NOT NULL THEN EXCLUDED.exit_code ELSE s.exit_code END,
        seconds_freeze = CASE WHEN EXCLUDED.left_at IS NOT NULL THEN EXCLUDED.seconds_freeze ELSE s.seconds_freeze END,
        seconds_schedule = CASE WHEN EXCLUDED.left_at IS NOT NULL THEN EXCLUDED.seconds_schedule ELSE s.seconds_schedule END,
        retries = s.retries + EXCLUDED.retries,
        max_retry_attempt = GREATEST(s.max_retry_attempt, EXCLUDED.max_retry_attempt),
        last_checks_outcome = COALESCE(EXCLUDED.last_checks_outcome, s.last_checks_outcome)`.execute(db);
  }
}

/** Maintains the statistics projections for events just appended (same transaction). */
export async function projectEvents(
  db: Queryable,
  repositoryId: string,
  events: readonly EventToAppend[],
  ids: readonly string[],
): Promise<void> {
  await saveRows(db, repositoryId, deriveProjectionRows(events, ids));
}

export const STATS_PROJECTION_TABLES = [
  'stats_enters',
  'stats_merges',
  'stats_checks',
  'stats_batches',
  'stats_bisections',
  'stats_gauges',
  'stats_gauge_keys',
  'stats_sessions',
] as const;

const REBUILD_CHUNK = 10_000;

/**
 * Drops and recomputes one repository's projections from its events, in id order, in one
 * transaction holding the repository's writer lock. Returns the number of events replayed.
 */
export async function rebuildStatsProjections(db: Db, repositoryId: string): Promise<number> {
  return inRepositoryTransaction(
    db,
    repositoryId,
    async (tx) => {
      for (const table of STATS_PROJECTION_TABLES) {
        await sql`DELETE FROM ${sql.table(table)} WHERE repository_id = ${repositoryId}::bigint`.execute(tx);
      }
      let after = '0';
      let replayed = 0;
      for (;;) {
        const { rows } = await sql<{
          id: string;
          type: string;
          received_at: Date;
          trigger: string;
          pull_request: number | null;
          base_ref: string | null;
          metadata: Record<string, unknown>;
        }>`
          SELECT id, type, received_at, trigger, pull_request, base_ref, metadata FROM events
          WHERE repository_id = ${repositoryId}::bigint AND id > ${after}::bigint
            AND type LIKE 'action.queue.%'
          ORDER BY id LIMIT ${REBUILD_CHUNK}`.execute(tx);
        if (rows.length === 0) return replayed;
        const events: EventToAppend[] = rows.map((r) => ({
          type: r.type,
          receivedAt: r.received_at,
          trigger: r.trigger,
          pullRequest: r.pull_request,
          baseRef: r.base_ref,
          metadata: r.metadata,
        }));
        await projectEvents(
          tx,
          repositoryId,
          events,
          rows.map((r) => r.id),
        );
        replayed += rows.length;
        after = rows.at(-1)?.id ?? after;
      }
    },
    { lockTimeoutMs: 60_000 },
  );
}
