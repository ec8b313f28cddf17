import { type RawBuilder, sql } from 'kysely';
import type { Db } from './database.ts';
import { DAY_CELL_TABLES } from './projection/day-cells.ts';
import { GAUGE_BLOCK_WIDTHS } from './projection/gauge-blocks.ts';

/*
 * Retention of the event log and the statistics projections: what lies before the cut-off (the
 * start of the UTC day `retentionDays` before now) is deleted, for every repository. One cut-off
 * for the events and every projection, on a day boundary, so that a day cell or gauge block goes
 * exactly when all of its rows do, and `trainyard stats rebuild` makes the same projections of
 * the events kept (but for a session in the queue at the cut-off: its events before it are gone).
 *
 * Gauges are the exception: the value of a gauge at an instant is its last reading at or before
 * it, so per series the reading in force at the cut-off (and its event) is kept, and a period
 * starting after the cut-off still carries the right value in. When that value is 0 it goes too:
 * no reading reads as 0. A session goes with its leave (`left_at`); one still in the queue stays.
 *
 * Deletes go in batches of a bounded number of rows, each statement its own transaction, with a
 * bounded number of batches per run: a run never holds locks, or PGlite (in process) the event
 * loop, for long, and a backlog (a first run on a year of data) is worked off over several runs.
 */

/** The default, and the window `time_to_merge` covers (app/stats/time-to-merge.ts). */
export const DEFAULT_RETENTION_DAYS = 90;
/**
 * Rows one statement deletes at most: enough to work a backlog off, few enough that a statement
 * holds no locks, nor PGlite the event loop, for long (decision 0027).
 */
export const RETENTION_BATCH_ROWS = 5_000;
/**
 * Statements that delete rows, at most, in one run: 500,000 rows an hour, far more than the
 * busiest repositories append, so a backlog shrinks run after run.
 */
export const RETENTION_BATCHES_PER_RUN = 100;

export interface RetentionOptions {
  now: Date;
  retentionDays?: number;
  batchRows?: number;
  maxBatches?: number;
}

export interface RetentionRun {
  cutoff: Date;
  /** Rows deleted, per table (only tables with deletions). */
  deleted: Record<string, number>;
  /** False when the run stopped at its batch bound with rows possibly left to delete. */
  complete: boolean;
}

const DAY_MS = 86_400_000;

/** The start of the UTC day `retentionDays` before `now`: everything before it goes. */
export function retentionCutoff(now: Date, retentionDays: number): Date {
  return new Date(Math.floor((now.getTime() - retentionDays * DAY_MS) / DAY_MS) * DAY_MS);
}

const ROW_TABLES = ['stats_enters', 'stats_merges', 'stats_checks', 'stats_batches', 'stats_bisections'];

/**
 * Deletes the events and statistics rows older than the retention, in every repository, at
 * most `maxBatches` statements of `batchRows` rows; the next run goes on where this one stopped.
 */
export async function pruneRetention(db: Db, options: RetentionOptions): Promise<RetentionRun> {
  const cutoff = retentionCutoff(options.now, options.retentionDays ?? DEFAULT_RETENTION_DAYS);
  const limit = options.batchRows ?? RETENTION_BATCH_ROWS;
  const maxBatches = options.maxBatches ?? RETENTION_BATCHES_PER_RUN;
  const deleted: Record<string, number> = {};
  let batches = 0;

  /** Runs `statement` until it deletes fewer than `limit` rows: false when out of batches first. */
  const drain = async (table: string, statement: RawBuilder<unknown>) => {
    for (;;) {
      if (batches >= maxBatches) return false;
      const result = await statement.execute(db);
      const n = Number(result.numAffectedRows ?? 0n);
      if (n > 0) {
        batches += 1;
        deleted[table] = (deleted[table] ?? 0) + n;
      }
      if (n < limit) return true;
    }
  };

  const repositories = await db.selectFrom('repositories').select('id').orderBy('id').execute();
  for (const { id } of repositories) {
    for (const [table, statement] of await repositorySteps(db, id, cutoff, limit)) {
      if (!(await drain(table, statement))) return { cutoff, deleted, complete: false };
    }
  }
  return { cutoff, deleted, complete: true };
}

/** The deletions of one repository, in order, as (table, statement deleting at most `limit` rows). */
async function repositorySteps(
  db: Db,
  repositoryId: string,
  cutoff: Date,
  limit: number,
): Promise<[string, RawBuilder<unknown>][]> {
  const r = sql`${repositoryId}::bigint`;
  const c = cutoff.toISOString();
  const kept = await gaugeEventsInForce(db, r, c);
  return [
    // Readings before the one in force at the cut-off; then that one when it is 0 — only once
    // none is left before it (the steps run in order, a run stops at its bound), or an older
    // reading would be taken for the value in force.
    ['stats_gauges', deleteGaugeReadings(r, c, limit, 'older')],
    ['stats_gauges', deleteGaugeReadings(r, c, limit, 'zero')],
    ...ROW_TABLES.map((t): [string, RawBuilder<unknown>] => [
      t,
      deleteBefore(t, r, sql`at < ${c}::timestamptz`, limit),
    ]),
    ['stats_sessions', deleteBefore('stats_sessions', r, sql`left_at < ${c}::timestamptz`, limit)],
    ...DAY_CELL_TABLES.map((t): [string, RawBuilder<unknown>] => [
      t,
      deleteBefore(t, r, sql`day < ${c}::timestamptz`, limit),
    ]),
    // Per kind and width, so each statement reads one range of the primary key; a block goes
    // when it ends by the cut-off.
    ...(['q', 'r'] as const).flatMap((kind) =>
      GAUGE_BLOCK_WIDTHS.map((width): [string, RawBuilder<unknown>] => [
        'stats_gauge_blocks',
        deleteBefore(
          'stats_gauge_blocks',
          r,
          sql`kind = ${kind} AND width = ${width}::int4
            AND block_start <= ${new Date(cutoff.getTime() - width * 1000).toISOString()}::timestamptz`,
          limit,
        ),
      ]),
    ),
    [
      'events',
      sql`DELETE FROM events WHERE id = ANY(ARRAY(
        SELECT id FROM events
        WHERE repository_id = ${r} AND received_at < ${c}::timestamptz AND id <> ALL(${kept}::int8[])
        LIMIT ${limit}))`,
    ],
  ];
}

/**
 * At most `limit` rows of a projection table of the repository matching `where`. The tables
 * without a key are addressed by ctid (a TID scan); the inner query uses the table's time index.
 */
function deleteBefore(
  table: string,
  repository: RawBuilder<unknown>,
  where: RawBuilder<unknown>,
  limit: number,
) {
  const t = sql.table(table);
  return sql`DELETE FROM ${t} WHERE ctid = ANY(ARRAY(
    SELECT ctid FROM ${t} WHERE repository_id = ${repository} AND ${where} LIMIT ${limit}))`;
}

/** Per gauge series of the repository, its last reading before the cut-off: the value in force there. */
function inForce(repository: RawBuilder<unknown>, cutoff: string) {
  return sql`in_force AS (
    SELECT k.kind, k.base_ref, k.partition_name, k.queue_name, k.priority_rule_name, l.at, l.event_id, l.value
    FROM stats_gauge_keys k CROSS JOIN LATERAL (
      SELECT g.at, g.event_id, g.value FROM stats_gauges g
      WHERE g.repository_id = k.repository_id AND g.kind = k.kind AND g.base_ref = k.base_ref
        AND g.partition_name = k.partition_name AND g.queue_name = k.queue_name
        AND g.priority_rule_name = k.priority_rule_name AND g.at < ${cutoff}::timestamptz
      ORDER BY g.at DESC, g.event_id DESC LIMIT 1) l
    WHERE k.repository_id = ${repository})`;
}

/**
 * `older`: readings before the one in force at the cut-off, in its series; `zero`: the readings
 * in force that are 0 (or less).
 */
function deleteGaugeReadings(
  repository: RawBuilder<unknown>,
  cutoff: string,
  limit: number,
  which: 'older' | 'zero',
) {
  const match =
    which === 'older'
      ? sql`g.at <= f.at AND (g.at, g.event_id) < (f.at, f.event_id)`
      : sql`f.value <= 0 AND g.at = f.at AND g.event_id = f.event_id`;
  // `g.at` < cut-off as well, though implied: it puts the start of the index scan at the cut-off
  // rather than at the series' newest reading.
  return sql`WITH ${inForce(repository, cutoff)}
    DELETE FROM stats_gauges WHERE ctid = ANY(ARRAY(
      SELECT g.ctid FROM in_force f JOIN stats_gauges g ON g.repository_id = ${repository} AND g.kind = f.kind
        AND g.base_ref = f.base_ref AND g.partition_name = f.partition_name AND g.queue_name = f.queue_name
        AND g.priority_rule_name = f.priority_rule_name AND g.at < ${cutoff}::timestamptz AND ${match}
      LIMIT ${limit}))`;
}

/** The events of the readings in force at the cut-off, kept so that a rebuild carries their value in. */
async function gaugeEventsInForce(
  db: Db,
  repository: RawBuilder<unknown>,
  cutoff: string,
): Promise<string[]> {
  const { rows } = await sql<{ event_id: string }>`WITH ${inForce(repository, cutoff)}
    SELECT event_id::text AS event_id FROM in_force WHERE value > 0`.execute(db);
  return rows.map((row) => row.event_id);
}
