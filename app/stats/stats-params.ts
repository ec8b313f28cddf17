import { type RawBuilder, sql } from 'kysely';
import { bucketWidthSeconds } from '../../shared/stats/buckets.ts';

/** What every bucketed statistics query needs: repository, resolved period, filters. */
export interface StatsParams {
  repositoryId: string;
  /** Period, both ends inclusive. */
  start: Date;
  end: Date;
  filters: StatsFilters;
  /**
   * Nothing is known after this instant (now): gauges, which carry their last value forward,
   * are not extended past it. Absent: the period's end.
   */
  until?: Date | undefined;
}

/** Values of one filter are OR-ed, different filters AND-ed; absent or empty = no filter. */
export interface StatsFilters {
  baseRef?: readonly string[] | undefined;
  partitionName?: readonly string[] | undefined;
  queueName?: readonly string[] | undefined;
  priorityRuleName?: readonly string[] | undefined;
}

export function widthOf(params: StatsParams): number {
  return bucketWidthSeconds(params.start, params.end);
}

function anyOf(column: RawBuilder<unknown>, values: readonly string[] | undefined) {
  if (values === undefined || values.length === 0) return null;
  return sql`${column} = ANY(${[...values]}::text[])`;
}

/** A time range: from (inclusive) to `to`, inclusive unless `toExcluded`. */
export interface TimeRange {
  from: Date;
  to: Date;
  toExcluded?: boolean;
}

/**
 * The WHERE clause of a projection read: repository, `at` within the period (or `range`) and
 * the filters on the group key columns. `partitionNames`: the table has a `partition_names`
 * array (merges).
 */
export function whereSql(
  params: StatsParams,
  options: {
    alias?: string;
    time?: string | null;
    range?: TimeRange;
    partitionNames?: boolean;
    priority?: boolean;
  } = {},
) {
  const col = (name: string) => sql.ref(options.alias ? `${options.alias}.${name}` : name);
  const f = params.filters;
  const parts = [sql`${col('repository_id')} = ${params.repositoryId}::bigint`];
  if (options.time !== null) {
    const time = col(options.time ?? 'at');
    const range = options.range ?? { from: params.start, to: params.end };
    parts.push(sql`${time} >= ${range.from.toISOString()}::timestamptz`);
    parts.push(sql`${time} ${range.toExcluded ? sql`<` : sql`<=`} ${range.to.toISOString()}::timestamptz`);
  }
  const optional = [
    anyOf(col('base_ref'), f.baseRef),
    options.partitionNames
      ? f.partitionName && f.partitionName.length > 0
        ? sql`${col('partition_names')} && ${[...f.partitionName]}::text[]`
        : null
      : anyOf(col('partition_name'), f.partitionName),
    anyOf(col('queue_name'), f.queueName),
    options.priority === false ? null : anyOf(col('priority_rule_name'), f.priorityRuleName),
  ];
  for (const part of optional) if (part !== null) parts.push(part);
  return sql.join(parts, sql` AND `);
}
