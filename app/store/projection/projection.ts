import { type RawBuilder, sql } from 'kysely';
import { type Db, PREPARED_MARK, type Queryable } from '../database.ts';
import { inRepositoryTransaction } from '../repository-transaction.ts';
import {
  addToCells,
  BATCH_CELLS,
  CHECK_CELLS,
  DAY_CELL_TABLES,
  dayOf,
  ENTER_CELLS,
  MERGE_CELLS,
  recomputeSessionCells,
  SESSION_CELLS,
  type SessionCellId,
} from './day-cells.ts';
import type { EventToAppend } from './event-to-append.ts';
import {
  blockIdKey,
  type GaugeBlockId,
  type GaugeBlockRow,
  type GaugeReading,
  gaugeBlockRows,
  summarizeBlock,
} from './gauge-blocks.ts';
import {
  deriveProjectionRows,
  type GaugeRow,
  type GroupKeys,
  type ProjectionRows,
} from './projection-rows.ts';

/*
 * Writes the statistics projections (migrations/0002, 0003) of appended events in the same
 * statement as the events themselves (events.ts hands its INSERT in): one round trip per
 * append, one INSERT per table through unnest as data-modifying CTEs (a second statement only
 * for gauge blocks that received readings out of time order). Rows refer to their event by
 * position in the append, and the statement finds the id in the array of the ids the INSERT
 * drew (by subscript: a join would be planned for the 10 rows a prepared statement assumes,
 * and 5,000-event appends made it quadratic). `rebuildStatsProjections` replays the event log
 * through the same code, the ids given.
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

/** The events' ids: drawn by an INSERT of the events (RETURNING id, in their order), or known. */
type EventIds = { insert: RawBuilder<unknown> } | { known: readonly string[] };

/**
 * The projection writes for one append, as data-modifying CTEs of one statement (one round
 * trip; the tables are disjoint, so no CTE needs another's writes), after the `ids` CTE (and
 * the events' INSERT when appending). The `blocks` CTE merges gauge blocks whose stored
 * readings all come before the new ones and returns them; the others are recomputed by
 * {@link recomputeGaugeBlocks}. The statement returns one row: the events' ids in order (when
 * inserted) and the merged blocks (JSON).
 */
function projectionStatement(
  repositoryId: string,
  eventIds: EventIds,
  rows: ProjectionRows,
  blocks: readonly GaugeBlockRow[],
) {
  const repo = sql`${repositoryId}::bigint`;
  // ids.a: the events' ids in their order (the INSERT draws them in the order it inserts).
  const ctes: RawBuilder<unknown>[] =
    'insert' in eventIds
      ? [sql`ev AS (${eventIds.insert})`, sql`ids AS (SELECT array_agg(id ORDER BY id) AS a FROM ev)`]
      : [sql`ids AS (SELECT ${eventIds.known}::int8[] AS a)`];
  // The id of the event at position t.n (from 1).
  const idOfRow = sql`((SELECT ids.a FROM ids)[t.n])`;
  if (rows.enters.length > 0) {
    const k = keyArrays(rows.enters);
    ctes.push(sql`enters AS (
      INSERT INTO stats_enters (repository_id, at, base_ref, partition_name, queue_name, priority_rule_name)
      SELECT ${repo}, t.* FROM unnest(
        ${rows.enters.map((r) => r.at.toISOString())}::timestamptz[],
        ${k.base}::text[], ${k.partition}::text[], ${k.queue}::text[], ${k.priority}::text[])
        AS t
      RETURNING at, base_ref, partition_name, queue_name, priority_rule_name)`);
    ctes.push(sql`enter_days AS (${addToCells(ENTER_CELLS, repositoryId, sql`enters r`)})`);
  }
  if (rows.merges.length > 0) {
    // Arrays of arrays cannot be unnested row by row: the partition names travel as JSON.
    ctes.push(sql`merges AS (
      INSERT INTO stats_merges (repository_id, at, base_ref, partition_names, queue_name, priority_rule_name)
      SELECT ${repo}, t.at, t.base_ref,
        ARRAY(SELECT jsonb_array_elements_text(t.names)), t.queue_name, t.priority_rule_name
      FROM unnest(
        ${rows.merges.map((r) => r.at.toISOString())}::timestamptz[],
        ${rows.merges.map((r) => r.base_ref)}::text[],
        ${rows.merges.map((r) => JSON.stringify(r.partition_names))}::jsonb[],
        ${rows.merges.map((r) => r.queue_name)}::text[],
        ${rows.merges.map((r) => r.priority_rule_name)}::text[])
        AS t(at, base_ref, names, queue_name, priority_rule_name)
      RETURNING at, base_ref, partition_names, queue_name, priority_rule_name)`);
    ctes.push(sql`merge_days AS (${addToCells(MERGE_CELLS, repositoryId, sql`merges r`)})`);
  }
  if (rows.checks.length > 0) {
    const k = keyArrays(rows.checks);
    ctes.push(sql`checks AS (
      INSERT INTO stats_checks (repository_id, at, base_ref, partition_name, queue_name, priority_rule_name, outcome, runtime)
      SELECT ${repo}, t.* FROM unnest(
        ${rows.checks.map((r) => r.at.toISOString())}::timestamptz[],
        ${k.base}::text[], ${k.partition}::text[], ${k.queue}::text[], ${k.priority}::text[],
        ${rows.checks.map((r) => r.outcome)}::text[],
        ${rows.checks.map((r) => r.runtime)}::float8[]) AS t
      RETURNING at, base_ref, partition_name, queue_name, priority_rule_name, outcome, runtime)`);
    ctes.push(sql`check_days AS (${addToCells(CHECK_CELLS, repositoryId, sql`checks r`)})`);
  }
  if (rows.batches.length > 0) {
    const k = keyArrays(rows.batches);
    ctes.push(sql`batches AS (
      INSERT INTO stats_batches (repository_id, at, run_key, base_ref, partition_name, queue_name, priority_rule_name, size)
      SELECT ${repo}, t.at, coalesce(t.run_key, 'event:' || ${idOfRow}), t.base_ref, t.partition_name,
        t.queue_name, t.priority_rule_name, t.size
      FROM unnest(
        ${rows.batches.map((r) => r.at.toISOString())}::timestamptz[],
        ${rows.batches.map((r) => r.run_key)}::text[],
        ${rows.batches.map((r) => r.n)}::int4[],
        ${k.base}::text[], ${k.partition}::text[], ${k.queue}::text[], ${k.priority}::text[],
        ${rows.batches.map((r) => r.size)}::int4[])
        AS t(at, run_key, n, base_ref, partition_name, queue_name, priority_rule_name, size)
      ON CONFLICT (repository_id, run_key) DO NOTHING
      RETURNING at, base_ref, partition_name, queue_name, priority_rule_name, size)`);
    // Only the runs inserted: a run already stored is already in its cell.
    ctes.push(sql`batch_days AS (${addToCells(BATCH_CELLS, repositoryId, sql`batches r`)})`);
  }
  if (rows.bisections.length > 0) {
    const k = keyArrays(rows.bisections);
    ctes.push(sql`bisections AS (
      INSERT INTO stats_bisections (repository_id, at, kind, base_ref, partition_name, queue_name, priority_rule_name,
        depth, size_before_split, culprit_found, max_failure_reached)
      SELECT ${repo}, t.* FROM unnest(
        ${rows.bisections.map((r) => r.at.toISOString())}::timestamptz[],
        ${rows.bisections.map((r) => r.kind)}::"char"[],
        ${k.base}::text[], ${k.partition}::text[], ${k.queue}::text[], ${k.priority}::text[],
        ${rows.bisections.map((r) => r.depth)}::int4[],
        ${rows.bisections.map((r) => r.size_before_split)}::int4[],
        ${rows.bisections.map((r) => r.culprit_found)}::bool[],
        ${rows.bisections.map((r) => r.max_failure_reached)}::bool[]) AS t)`);
  }
  if (rows.gauges.length > 0) {
    const k = keyArrays(rows.gauges);
    // The series seen in this append, once each (stats_gauge_keys).
    const series = new Map<string, GaugeRow>();
    for (const g of rows.gauges) {
      series.set(
        JSON.stringify([g.kind, g.base_ref, g.partition_name, g.queue_name, g.priority_rule_name]),
        g,
      );
    }
    const s = [...series.values()];
    const sk = keyArrays(s);
    ctes.push(sql`gauges AS (
      INSERT INTO stats_gauges (repository_id, event_id, at, kind, base_ref, partition_name, queue_name, priority_rule_name, value)
      SELECT ${repo}, ${idOfRow}, t.at, t.kind, t.base_ref, t.partition_name, t.queue_name, t.priority_rule_name, t.value
      FROM unnest(
        ${rows.gauges.map((r) => r.n)}::int4[],
        ${rows.gauges.map((r) => r.at.toISOString())}::timestamptz[],
        ${rows.gauges.map((r) => r.kind)}::"char"[],
        ${k.base}::text[], ${k.partition}::text[], ${k.queue}::text[], ${k.priority}::text[],
        ${rows.gauges.map((r) => r.value)}::int4[])
        AS t(n, at, kind, base_ref, partition_name, queue_name, priority_rule_name, value))`);
    ctes.push(sql`gauge_keys AS (
      INSERT INTO stats_gauge_keys (repository_id, kind, base_ref, partition_name, queue_name, priority_rule_name)
      SELECT ${repo}, t.* FROM unnest(
        ${s.map((r) => r.kind)}::"char"[],
        ${sk.base}::text[], ${sk.partition}::text[], ${sk.queue}::text[], ${sk.priority}::text[]) AS t
      ON CONFLICT DO NOTHING)`);
  }
  if (rows.sessions.length > 0) {
    const s = rows.sessions;
    const key = (f: keyof GroupKeys) => s.map((r) => r.keys?.[f] ?? null);
    // The sessions of this append that had already left, as they were (the statement's
    // snapshot): their cells are recomputed after it, the others added to.
    ctes.push(sql`left_before AS (
      SELECT r.session_key, r.left_at, r.base_ref, r.partition_name, r.queue_name, r.priority_rule_name, r.exit_code
      FROM stats_sessions r
      WHERE r.repository_id = ${repo} AND r.left_at IS NOT NULL
        AND r.session_key = ANY(${s.flatMap((r) => (r.session_key === null ? [] : [r.session_key]))}::text[]))`);
    ctes.push(sql`sessions AS (
      INSERT INTO stats_sessions AS s (repository_id, session_key, base_ref, partition_name, queue_name,
        priority_rule_name, queued_at, first_checks_at, left_at, merged, exit_code, seconds_freeze,
        seconds_schedule, retries, max_retry_attempt, last_checks_outcome)
      SELECT ${repo}, coalesce(t.session_key, 'event:' || ${idOfRow}), t.base_ref, t.partition_name,
        t.queue_name, t.priority_rule_name, t.queued_at, t.first_checks_at, t.left_at, t.merged, t.exit_code,
        t.seconds_freeze, t.seconds_schedule, t.retries, t.max_retry_attempt, t.last_checks_outcome
      FROM unnest(
        ${s.map((r) => r.session_key)}::text[],
        ${s.map((r) => r.n)}::int4[],
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
        ${s.map((r) => r.last_checks_outcome)}::text[])
        AS t(session_key, n, base_ref, partition_name, queue_name, priority_rule_name, queued_at, first_checks_at,
          left_at, merged, exit_code, seconds_freeze, seconds_schedule, retries, max_retry_attempt, last_checks_outcome)
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
        last_checks_outcome = COALESCE(EXCLUDED.last_checks_outcome, s.last_checks_outcome)
      RETURNING session_key, base_ref, partition_name, queue_name, priority_rule_name, queued_at, first_checks_at,
        left_at, exit_code, seconds_freeze, seconds_schedule, retries, max_retry_attempt, last_checks_outcome)`);
    ctes.push(
      sql`session_days AS (${addToCells(
        SESSION_CELLS,
        repositoryId,
        sql`sessions r WHERE r.left_at IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM left_before o WHERE o.session_key = r.session_key)`,
      )})`,
    );
  }
  if (blocks.length > 0) {
    // A stored block whose last reading is not after the new first one (new readings have
    // higher ids, so they follow it) extends: the stored last value holds until the new
    // first reading. Otherwise the row is left alone, not returned, and recomputed.
    ctes.push(sql`blocks AS (${blockUpsert(
      repositoryId,
      blocks,
      sql`
      area_to_last = b.area_to_last + EXCLUDED.area_to_last + b.last_value::int8
        * round((extract(epoch FROM EXCLUDED.first_at) - extract(epoch FROM b.last_at)) * 1000)::int8,
      last_at = EXCLUDED.last_at,
      max_value = greatest(b.max_value, EXCLUDED.max_value),
      min_value = least(b.min_value, EXCLUDED.min_value),
      last_value = EXCLUDED.last_value
      WHERE EXCLUDED.first_at >= b.last_at`,
    )}
      RETURNING kind, width, block_start, base_ref, partition_name, queue_name, priority_rule_name)`);
  }
  const cellId = (alias: string) => {
    const c = (column: string) => sql.ref(`${alias}.${column}`);
    return sql`json_build_array((extract(epoch FROM ${dayOf(c('left_at'))}) * 1000)::int8, ${c('base_ref')},
      ${c('partition_name')}, ${c('queue_name')}, ${c('priority_rule_name')}, coalesce(${c('exit_code')}, ''))`;
  };
  return sql<{ ids: string[] | null; merged: BlockIdJson[] | null; redo: SessionCellId[] | null }>`${sql.raw(
    PREPARED_MARK,
  )}
    WITH ${sql.join(ctes, sql`, `)}
    SELECT ${'insert' in eventIds ? sql`(SELECT ids.a::text[] FROM ids)` : sql`NULL::text[]`} AS ids,
      ${
        blocks.length > 0
          ? sql`(SELECT json_agg(json_build_array(kind, width, (extract(epoch FROM block_start) * 1000)::int8,
              base_ref, partition_name, queue_name, priority_rule_name)) FROM blocks)`
          : sql`NULL::json`
      } AS merged,
      ${
        rows.sessions.length > 0
          ? sql`(SELECT json_agg(c) FROM (
              SELECT ${cellId('o')} AS c FROM left_before o
              UNION ALL
              SELECT ${cellId('r')} FROM sessions r JOIN left_before o ON o.session_key = r.session_key
              WHERE r.left_at IS NOT NULL) cells)`
          : sql`NULL::json`
      } AS redo`;
}

/** A merged block: kind, width, block start (epoch ms), base ref, partition, queue, priority rule. */
type BlockIdJson = ['q' | 'r', number, number, string, string, string, string];

function blockUpsert(
  repositoryId: string,
  blocks: readonly GaugeBlockRow[],
  onConflict: RawBuilder<unknown>,
) {
  const k = keyArrays(blocks);
  return sql`
    INSERT INTO stats_gauge_blocks AS b (repository_id, kind, width, block_start, base_ref, partition_name,
      queue_name, priority_rule_name, first_at, last_at, area_to_last, max_value, min_value, last_value)
    SELECT ${repositoryId}::bigint, t.* FROM unnest(
      ${blocks.map((r) => r.kind)}::"char"[],
      ${blocks.map((r) => r.width)}::int4[],
      ${blocks.map((r) => r.block_start.toISOString())}::timestamptz[],
      ${k.base}::text[], ${k.partition}::text[], ${k.queue}::text[], ${k.priority}::text[],
      ${blocks.map((r) => r.first_at.toISOString())}::timestamptz[],
      ${blocks.map((r) => r.last_at.toISOString())}::timestamptz[],
      ${blocks.map((r) => r.area_to_last.toString())}::int8[],
      ${blocks.map((r) => r.max_value)}::int4[],
      ${blocks.map((r) => r.min_value)}::int4[],
      ${blocks.map((r) => r.last_value)}::int4[]) AS t
    ON CONFLICT (repository_id, kind, width, block_start, base_ref, partition_name, queue_name, priority_rule_name)
    DO UPDATE SET ${onConflict}`;
}

/**
 * Recomputes gauge blocks from all their stored readings: for blocks that received a reading
 * older than one they already held (events appended out of time order).
 */
async function recomputeGaugeBlocks(db: Queryable, repositoryId: string, ids: readonly GaugeBlockId[]) {
  const k = keyArrays(ids);
  const { rows } = await sql<{ i: string; at: Date; event_id: string; value: number }>`
    SELECT t.i, g.at, g.event_id, g.value
    FROM unnest(
      ${ids.map((b) => b.kind)}::"char"[], ${ids.map((b) => b.width)}::int4[],
      ${ids.map((b) => b.block_start.toISOString())}::timestamptz[],
      ${k.base}::text[], ${k.partition}::text[], ${k.queue}::text[], ${k.priority}::text[])
      WITH ORDINALITY AS t(kind, width, block_start, base_ref, partition_name, queue_name, priority_rule_name, i)
    JOIN stats_gauges g ON g.repository_id = ${repositoryId}::bigint AND g.kind = t.kind
      AND g.base_ref = t.base_ref AND g.partition_name = t.partition_name AND g.queue_name = t.queue_name
      AND g.priority_rule_name = t.priority_rule_name
      AND g.at >= t.block_start AND g.at < t.block_start + make_interval(secs => t.width)
    ORDER BY t.i, g.at, g.event_id`.execute(db);
  const readings = ids.map((): GaugeReading[] => []);
  for (const r of rows) readings[Number(r.i) - 1]?.push(r);
  const blocks = ids.map((id, i) => ({ ...id, ...summarizeBlock(readings[i] ?? []) }));
  await blockUpsert(
    repositoryId,
    blocks,
    sql`first_at = EXCLUDED.first_at, last_at = EXCLUDED.last_at, area_to_last = EXCLUDED.area_to_last,
      max_value = EXCLUDED.max_value, min_value = EXCLUDED.min_value, last_value = EXCLUDED.last_value`,
  ).execute(db);
}

/** Writes the projections of `events` (and the events, when `eventIds` inserts them); returns the ids drawn. */
async function saveRows(
  db: Queryable,
  repositoryId: string,
  eventIds: EventIds,
  events: readonly EventToAppend[],
): Promise<string[]> {
  const rows = deriveProjectionRows(events);
  const blocks = gaugeBlockRows(rows.gauges);
  const { rows: result } = await projectionStatement(repositoryId, eventIds, rows, blocks).execute(db);
  const redo = result[0]?.redo ?? [];
  if (redo.length > 0) await recomputeSessionCells(db, repositoryId, redo);
  const merged = result[0]?.merged ?? [];
  if (merged.length < blocks.length) {
    const done = new Set(
      merged.map(([kind, width, start, base_ref, partition_name, queue_name, priority_rule_name]) =>
        blockIdKey({
          kind,
          width,
          block_start: new Date(start),
          base_ref,
          partition_name,
          queue_name,
          priority_rule_name,
        }),
      ),
    );
    await recomputeGaugeBlocks(
      db,
      repositoryId,
      blocks.filter((b) => !done.has(blockIdKey(b))),
    );
  }
  return result[0]?.ids ?? [];
}

/**
 * Runs `insert` — an INSERT of `events` into the log, in their order, RETURNING id — and
 * writes their statistics projections, in one statement; returns the events' ids in order.
 */
export function insertEventsWithProjections(
  db: Queryable,
  repositoryId: string,
  events: readonly EventToAppend[],
  insert: RawBuilder<unknown>,
): Promise<string[]> {
  return saveRows(db, repositoryId, { insert }, events);
}

/** Writes the statistics projections of stored events (their ids given), as appending did. */
export async function projectEvents(
  db: Queryable,
  repositoryId: string,
  events: readonly EventToAppend[],
  ids: readonly string[],
): Promise<void> {
  await saveRows(db, repositoryId, { known: ids }, events);
}

export const STATS_PROJECTION_TABLES = [
  'stats_enters',
  'stats_merges',
  'stats_checks',
  'stats_batches',
  'stats_bisections',
  'stats_gauges',
  'stats_gauge_keys',
  'stats_gauge_blocks',
  'stats_sessions',
  ...DAY_CELL_TABLES,
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
