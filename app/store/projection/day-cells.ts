import { type RawBuilder, sql } from 'kysely';
import type { Queryable } from '../database.ts';

/*
 * Day cells (migrations/0008): per repository, UTC day and group keys (and outcome or exit
 * code), partial aggregates of one projection table's rows — counts, sums, maxima, minima —
 * that combine across days. A statistic whose buckets are a day or more reads the whole days
 * of its period from the cells and only the partial days at its ends from the rows
 * (bucketed.ts). A cell stands for every row of its day and group, so a long period reads a
 * small fraction of the rows (figures in docs/decisions/0008).
 *
 * Cells are maintained by the projection statement (projection.ts) from the rows it writes:
 * insert-only tables add their new rows; a session adds itself to its leave's cell when it
 * first leaves, and a session changed after it left has its old and new cells recomputed from
 * the session rows. Durations are summed in integer microseconds, so a cell is the same
 * whatever the order and grouping of the appends (rebuild = incremental), and migration 0008
 * computes the same cells from the rows (test/stats/stats-day-cells.property.int.test.ts).
 */

export type DayTable =
  | 'stats_enter_days'
  | 'stats_merge_days'
  | 'stats_check_days'
  | 'stats_batch_days'
  | 'stats_session_days';

/** One value of a cell: its aggregate over rows (alias `r`) and how two cells combine. */
interface CellValue {
  name: string;
  type: 'integer' | 'bigint';
  /** Per-row SQL expression, aggregated with `combine` (sum / max / min). */
  of: string;
  combine: 'sum' | 'max' | 'min';
}

export interface CellSpec {
  table: DayTable;
  /** Time column of the rows: a row belongs to the cell of its day. */
  time: 'at' | 'left_at';
  /** Key columns of the cell besides repository and day, with their per-row SQL expression. */
  keys: readonly { name: string; of: string }[];
  values: readonly CellValue[];
}

// Cell SQL is plain text made once: it has no parameters but the repository, and building
// it as query nodes on every append cost more than the rest of the statement's JavaScript.
const groupKeys = (partition: 'partition_name' | 'partition_names') =>
  ['base_ref', partition, 'queue_name', 'priority_rule_name'].map((name) => ({ name, of: `r.${name}` }));
const count: CellValue = { name: 'n', type: 'integer', of: '1', combine: 'sum' };

/** Microseconds of a float8 of seconds (durations are whole microseconds). */
const micros = (seconds: string) => `round(${seconds} * 1e6::float8)::int8`;

/*
 * Per-session figures, the session statistics' per-row values (rows aliased r): time in
 * queue, capacity wait, and the retry figures of a session with retries.
 */
const queueMicros = `greatest(0, ${micros(`date_part('epoch', r.left_at - coalesce(r.queued_at, r.left_at))`)})`;
const capacityMicros = `greatest(0, ${micros(
  `date_part('epoch', least(coalesce(r.first_checks_at, r.left_at), r.left_at) - coalesce(r.queued_at, r.left_at))`,
)})`;
const retried = 'r.retries > 0';
const recovered = `CASE WHEN ${retried} AND r.last_checks_outcome = 'SUCCESS' THEN 1 ELSE 0 END`;
const notRecovered = `CASE WHEN ${retried} AND r.last_checks_outcome IN ('CHECKS_FAILED', 'CHECKS_TIMEOUT') THEN 1 ELSE 0 END`;
const depth = `CASE WHEN ${retried} THEN r.max_retry_attempt ELSE 0 END`;
/** The exit code of a cell: '' for a leave without a known code. */
const exitCode = `coalesce(r.exit_code, '')`;

export const sessionQueueMicros = sql.raw<number>(queueMicros);
export const sessionCapacityMicros = sql.raw<number>(capacityMicros);
export const sessionRecovered = sql.raw<number>(recovered);
export const sessionNotRecovered = sql.raw<number>(notRecovered);
export const sessionDepth = sql.raw<number>(depth);

export const ENTER_CELLS: CellSpec = {
  table: 'stats_enter_days',
  time: 'at',
  keys: groupKeys('partition_name'),
  values: [count],
};

export const MERGE_CELLS: CellSpec = {
  table: 'stats_merge_days',
  time: 'at',
  keys: groupKeys('partition_names'),
  values: [count],
};

export const CHECK_CELLS: CellSpec = {
  table: 'stats_check_days',
  time: 'at',
  keys: [...groupKeys('partition_name'), { name: 'outcome', of: 'r.outcome' }],
  values: [
    count,
    {
      name: 'runtime_n',
      type: 'integer',
      of: 'CASE WHEN r.runtime IS NULL THEN 0 ELSE 1 END',
      combine: 'sum',
    },
    { name: 'runtime_us', type: 'bigint', of: `coalesce(${micros('r.runtime')}, 0)`, combine: 'sum' },
  ],
};

export const BATCH_CELLS: CellSpec = {
  table: 'stats_batch_days',
  time: 'at',
  keys: groupKeys('partition_name'),
  values: [
    count,
    { name: 'size_sum', type: 'bigint', of: 'r.size', combine: 'sum' },
    { name: 'size_max', type: 'integer', of: 'r.size', combine: 'max' },
    { name: 'size_min', type: 'integer', of: 'r.size', combine: 'min' },
  ],
};

export const SESSION_CELLS: CellSpec = {
  table: 'stats_session_days',
  time: 'left_at',
  keys: [...groupKeys('partition_name'), { name: 'exit_code', of: exitCode }],
  values: [
    count,
    { name: 'capacity_us', type: 'bigint', of: capacityMicros, combine: 'sum' },
    { name: 'schedule_s', type: 'bigint', of: 'coalesce(r.seconds_schedule, 0)', combine: 'sum' },
    { name: 'freeze_s', type: 'bigint', of: 'coalesce(r.seconds_freeze, 0)', combine: 'sum' },
    { name: 'queue_us', type: 'bigint', of: queueMicros, combine: 'sum' },
    { name: 'queue_us_max', type: 'bigint', of: queueMicros, combine: 'max' },
    { name: 'queue_us_min', type: 'bigint', of: queueMicros, combine: 'min' },
    { name: 'retries', type: 'bigint', of: 'r.retries', combine: 'sum' },
    { name: 'with_retries', type: 'integer', of: `CASE WHEN ${retried} THEN 1 ELSE 0 END`, combine: 'sum' },
    { name: 'recovered', type: 'integer', of: recovered, combine: 'sum' },
    { name: 'not_recovered', type: 'integer', of: notRecovered, combine: 'sum' },
    { name: 'depth_sum', type: 'bigint', of: depth, combine: 'sum' },
    { name: 'depth_max', type: 'integer', of: depth, combine: 'max' },
  ],
};

export const DAY_CELL_TABLES: readonly DayTable[] = [
  ENTER_CELLS.table,
  MERGE_CELLS.table,
  CHECK_CELLS.table,
  BATCH_CELLS.table,
  SESSION_CELLS.table,
];

export const dayOf = (time: RawBuilder<unknown>) =>
  sql`date_bin('1 day'::interval, ${time}, 'epoch'::timestamptz)`;

/** The SQL texts of a cell table: column list, per-cell select list after the repository, GROUP BY, merge. */
function cellTexts(spec: CellSpec) {
  const keyNames = spec.keys.map((k) => k.name);
  const merge = spec.values.map((v) =>
    v.combine === 'sum'
      ? `${v.name} = d.${v.name} + excluded.${v.name}`
      : `${v.name} = ${v.combine === 'max' ? 'greatest' : 'least'}(d.${v.name}, excluded.${v.name})`,
  );
  return {
    columns: ['repository_id', 'day', ...keyNames, ...spec.values.map((v) => v.name)].join(', '),
    select: [
      `date_bin('1 day'::interval, r.${spec.time}, 'epoch'::timestamptz) AS day`,
      ...spec.keys.map((k) => `${k.of} AS ${k.name}`),
      ...spec.values.map((v) => `${v.combine}(${v.of})::${v.type} AS ${v.name}`),
    ].join(', '),
    groupBy: `GROUP BY ${spec.keys.map((_, i) => String(i + 3)).join(', ')}, 2`,
    conflict: `ON CONFLICT (repository_id, day, ${keyNames.join(', ')}) DO UPDATE SET ${merge.join(', ')}`,
  };
}

const texts = new Map(
  [ENTER_CELLS, MERGE_CELLS, CHECK_CELLS, BATCH_CELLS, SESSION_CELLS].map((spec) => [spec, cellTexts(spec)]),
);

function textsOf(spec: CellSpec) {
  const t = texts.get(spec);
  if (!t) throw new Error(`unknown cell table ${spec.table}`);
  return t;
}

/** `SELECT repository, day, keys, aggregates FROM <source> GROUP BY …` for rows aliased `r`. */
function cellsOf(spec: CellSpec, repositoryId: string, source: RawBuilder<unknown>) {
  const t = textsOf(spec);
  return sql`SELECT ${repositoryId}::bigint AS repository_id, ${sql.raw(t.select)} FROM ${source} ${sql.raw(t.groupBy)}`;
}

/**
 * Adds the rows of `source` (a FROM item whose rows are aliased `r`: the rows a projection
 * CTE just wrote) to their day cells.
 */
export function addToCells(spec: CellSpec, repositoryId: string, source: RawBuilder<unknown>) {
  const t = textsOf(spec);
  return sql`INSERT INTO ${sql.raw(spec.table)} AS d (${sql.raw(t.columns)})
    ${cellsOf(spec, repositoryId, source)}
    ${sql.raw(t.conflict)}`;
}

/** A session cell: day (epoch ms), base ref, partition, queue rule, priority rule, exit code. */
export type SessionCellId = [number, string, string, string, string, string];

/**
 * Recomputes session cells from the session rows (after sessions changed once they had left):
 * the cells are dropped, then made again from the rows that are in them now.
 */
export async function recomputeSessionCells(
  db: Queryable,
  repositoryId: string,
  cells: readonly SessionCellId[],
): Promise<void> {
  const unique = [...new Map(cells.map((c) => [JSON.stringify(c), c])).values()];
  const column = (i: number) => unique.map((c) => c[i]);
  const list = sql`unnest(
    ${column(0).map((ms) => new Date(ms as number).toISOString())}::timestamptz[],
    ${column(1)}::text[], ${column(2)}::text[], ${column(3)}::text[], ${column(4)}::text[], ${column(5)}::text[])
    AS c(day, base_ref, partition_name, queue_name, priority_rule_name, exit_code)`;
  await sql`DELETE FROM stats_session_days d USING ${list}
    WHERE d.repository_id = ${repositoryId}::bigint AND d.day = c.day AND d.base_ref = c.base_ref
      AND d.partition_name = c.partition_name AND d.queue_name = c.queue_name
      AND d.priority_rule_name = c.priority_rule_name AND d.exit_code = c.exit_code`.execute(db);
  await sql`INSERT INTO stats_session_days (${sql.raw(textsOf(SESSION_CELLS).columns)})
    ${cellsOf(
      SESSION_CELLS,
      repositoryId,
      sql`${list} JOIN stats_sessions r ON r.repository_id = ${repositoryId}::bigint
        AND r.left_at >= c.day AND r.left_at < c.day + interval '1 day' AND r.base_ref = c.base_ref
        AND r.partition_name = c.partition_name AND r.queue_name = c.queue_name
        AND r.priority_rule_name = c.priority_rule_name AND ${sql.raw(exitCode)} = c.exit_code`,
    )}`.execute(db);
}
