import { sql } from 'kysely';
import type { Queryable } from '../store/database.ts';
import type { GroupKeys } from './projection-rows.ts';
import { type StatsParams, whereSql, widthOf } from './stats-params.ts';

/*
 * Time-weighted gauges (queue size, running checks) by interval, from stats_gauges readings.
 * The value at an instant is the last reading at or before it (0 before the first one). A
 * bucket is measured over its part of the period, [max(bucket start, start_at),
 * min(bucket end, end_at)]: avg is the time-weighted mean over that span (the value in force
 * at its start carried in), max/min cover the value in force at the span's start and every
 * reading in it. A zero-length span (start_at = end_at, or end_at on a bucket's first second)
 * has avg = the value in force. A bucket is reported when it holds a reading or a value > 0.
 */

export interface GaugeBucketRow extends GroupKeys {
  bucket: string;
  avg: number;
  max: number;
  min: number;
}

interface RawRow extends GroupKeys {
  bucket: string;
  wsum: number;
  span: number;
  max: number;
  min: number;
  at_start: number | null;
  has_reading: boolean;
}

export async function loadGaugeBuckets(
  db: Queryable,
  params: StatsParams,
  kind: 'q' | 'r',
): Promise<{ rows: GaugeBucketRow[]; width: number }> {
  const width = widthOf(params);
  const priority = kind === 'q';
  const start = params.start.toISOString();
  const end = params.end.toISOString();
  const W = sql`${width}::float8`;
  const S = sql`extract(epoch FROM ${start}::timestamptz)::float8`;
  const E = sql`extract(epoch FROM ${end}::timestamptz)::float8`;
  const { rows } = await sql<RawRow>`
    WITH keys AS (
      SELECT base_ref, partition_name, queue_name, priority_rule_name FROM stats_gauge_keys
      WHERE ${whereSql(params, { time: null, priority })} AND kind = ${kind}
    ), points AS (
      SELECT k.base_ref, k.partition_name, k.queue_name, k.priority_rule_name,
        ${start}::timestamptz AS at, 0::bigint AS event_id, coalesce(c.value, 0) AS value,
        coalesce(c.at = ${start}::timestamptz, false) AS real
      FROM keys k LEFT JOIN LATERAL (
        SELECT g.value, g.at FROM stats_gauges g
        WHERE g.repository_id = ${params.repositoryId}::bigint AND g.kind = ${kind}
          AND g.base_ref = k.base_ref AND g.partition_name = k.partition_name
          AND g.queue_name = k.queue_name AND g.priority_rule_name = k.priority_rule_name
          AND g.at <= ${start}::timestamptz
        ORDER BY g.at DESC, g.event_id DESC LIMIT 1
      ) c ON true
      UNION ALL
      SELECT base_ref, partition_name, queue_name, priority_rule_name, at, event_id, value, true
      FROM stats_gauges
      WHERE ${whereSql(params, { priority })} AND kind = ${kind} AND at > ${start}::timestamptz
    ), intervals AS (
      SELECT base_ref, partition_name, queue_name, priority_rule_name, value, real,
        extract(epoch FROM at)::float8 AS s,
        extract(epoch FROM coalesce(lead(at) OVER w, ${end}::timestamptz))::float8 AS e,
        lead(at) OVER w IS NULL AS is_last
      FROM points
      WINDOW w AS (PARTITION BY base_ref, partition_name, queue_name, priority_rule_name ORDER BY at, event_id)
    ), pieces AS (
      SELECT i.*, b::float8 * ${W} AS bs,
        greatest(b::float8 * ${W}, ${S}) AS a, least((b + 1)::float8 * ${W}, ${E}) AS z
      FROM intervals i, generate_series(
        floor(i.s / ${W})::bigint,
        CASE WHEN i.e > i.s THEN ceil(i.e / ${W})::bigint - 1 ELSE floor(i.s / ${W})::bigint END) AS b
    )
    SELECT base_ref, partition_name, queue_name, priority_rule_name, bs::bigint AS bucket,
      sum(value * greatest(0, least(e, z) - greatest(s, a)))::float8 AS wsum,
      max(z - a)::float8 AS span,
      max(value)::int AS max, min(value)::int AS min,
      max(value) FILTER (WHERE s <= a AND (e > a OR is_last))::int AS at_start,
      bool_or(real AND s >= bs) AS has_reading
    FROM pieces
    GROUP BY 1, 2, 3, 4, 5`.execute(db);
  return {
    width,
    rows: rows
      .filter((r) => r.has_reading || r.max > 0)
      .map((r) => ({
        base_ref: r.base_ref,
        partition_name: r.partition_name,
        queue_name: r.queue_name,
        priority_rule_name: r.priority_rule_name,
        bucket: r.bucket,
        avg: r.span > 0 ? r.wsum / r.span : (r.at_start ?? r.max),
        max: r.max,
        min: r.min,
      })),
  };
}
