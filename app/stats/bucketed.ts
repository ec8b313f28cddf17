import { type RawBuilder, sql } from 'kysely';
import type { Queryable } from '../store/database.ts';
import type { DayTable } from '../store/projection/day-cells.ts';
import { type StatsParams, type TimeRange, whereSql, widthOf } from './stats-params.ts';

/*
 * The query every bucketed statistic shares: rows of one projection table within the period
 * and filters, each in its epoch-aligned bucket (date_bin), aggregated per group keys, extra
 * columns and bucket. With buckets of a day or more and day cells for the table
 * (day-cells.ts), the whole days of the period come from the cells and only its partial first
 * and last days from the rows: each row or cell gives the same partial columns (`columns`,
 * `days.columns`), and the aggregates combine them (sum of counts, max of maxima, …).
 *
 * The bucket is computed in a subquery behind OFFSET 0, so that the planner estimates the
 * groups from a default instead of from the time column, where every value is distinct: it
 * would then expect one group per row and sort them (to disk over long periods) rather than hash
 * a few thousand groups, which is much slower (figures in docs/decisions/0008).
 */

export type ProjectionTable =
  | 'stats_enters'
  | 'stats_merges'
  | 'stats_checks'
  | 'stats_batches'
  | 'stats_bisections'
  | 'stats_sessions';

export interface BucketedQuery {
  table: ProjectionTable;
  /** Time column that places a row in a bucket. */
  time: 'at' | 'left_at';
  /** The table has `partition_names` (merges) instead of `partition_name`. */
  partitionNames?: boolean;
  /** More conditions on the rows. */
  where?: RawBuilder<unknown>;
  /** Columns grouped on besides the keys and the bucket (an outcome, a kind). */
  extra?: readonly string[];
  /** Per-row select list (columns, `expr AS name`) the aggregates read. */
  columns?: RawBuilder<unknown>;
  /** Aggregates over the rows of a group, with names. */
  aggregates: RawBuilder<unknown>;
  /**
   * The table's day cells: per-cell select list giving the columns `columns` gives per row
   * (the extra columns are cell keys too), and conditions on cells matching `where`.
   */
  days?: { table: DayTable; columns: RawBuilder<unknown>; where?: RawBuilder<unknown> };
}

const DAY_MS = 86_400_000;

/** Rows of (group keys, extra columns, bucket start in epoch seconds, aggregates); the width (s). */
export async function loadBucketed<R>(
  db: Queryable,
  params: StatsParams,
  q: BucketedQuery,
): Promise<{ rows: (R & { bucket: string })[]; width: number }> {
  const width = widthOf(params);
  const groups = sql.join(
    [
      'base_ref',
      q.partitionNames ? 'partition_names' : 'partition_name',
      'queue_name',
      'priority_rule_name',
      ...(q.extra ?? []),
    ].map((c) => sql.ref(c)),
  );
  const bucketOf = (time: string) =>
    sql`date_bin(make_interval(secs => ${width}::int), ${sql.ref(time)}, 'epoch'::timestamptz) AS bucket_start`;
  const rowsIn = (range: TimeRange) => sql`
    SELECT ${groups}, ${bucketOf(q.time)} ${q.columns ? sql`, ${q.columns}` : sql``}
    FROM ${sql.table(q.table)} r
    WHERE ${whereSql(params, { time: q.time, range, partitionNames: q.partitionNames })}
      ${q.where ? sql`AND ${q.where}` : sql``}`;

  // Whole days [first, last) from the cells when a day lies in a single bucket; rows for the rest.
  const start = params.start.getTime();
  const end = params.end.getTime();
  const first = Math.ceil(start / DAY_MS) * DAY_MS;
  const last = Math.floor(end / DAY_MS) * DAY_MS;
  const parts: RawBuilder<unknown>[] = [];
  if (q.days && width % 86_400 === 0 && first < last) {
    const days = q.days;
    if (start < first) parts.push(rowsIn({ from: params.start, to: new Date(first), toExcluded: true }));
    parts.push(sql`
      SELECT ${groups}, ${bucketOf('day')}, ${days.columns}
      FROM ${sql.table(days.table)}
      WHERE ${whereSql(params, {
        time: 'day',
        range: { from: new Date(first), to: new Date(last), toExcluded: true },
        partitionNames: q.partitionNames,
      })}
        ${days.where ? sql`AND ${days.where}` : sql``}`);
    parts.push(rowsIn({ from: new Date(last), to: params.end }));
  } else {
    parts.push(rowsIn({ from: params.start, to: params.end }));
  }
  const { rows } = await sql<R & { bucket: string }>`
    SELECT ${groups}, extract(epoch FROM bucket_start)::int8 AS bucket, ${q.aggregates}
    FROM (${sql.join(parts, sql` UNION ALL `)} OFFSET 0) r
    GROUP BY ${groups}, bucket_start`.execute(db);
  return { rows, width };
}
