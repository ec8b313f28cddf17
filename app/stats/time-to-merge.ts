import { sql } from 'kysely';
import type { TimeToMergeResponse } from '../../shared/schemas/stats-response.schema.ts';
import type { Queryable } from '../store/database.ts';
import { DEFAULT_KEY } from '../store/projection/projection-rows.ts';
import { DEFAULT_RETENTION_DAYS } from '../store/retention.ts';
import { compareText } from './group-rows.ts';

/**
 * The window of time to merge: the default retention of events (docs/operations.md), whatever
 * retention is configured.
 */
const RETENTION_DAYS = DEFAULT_RETENTION_DAYS;

export interface TimeToMergeParams {
  repositoryId: string;
  at: Date;
  branch?: string | undefined;
}

interface Row {
  partition_name: string;
  queue_name: string;
  mean: number | null;
  median: number | null;
}

/**
 * Time to merge of the merged sessions that left within the retention window ending at `at`
 * (leave − queued_at − seconds waiting for freeze − seconds waiting for schedule, at least 0),
 * per partition and queue rule: mean and median. Every partition seen in the window lists every
 * queue rule — the configured ones (engine state's configuration, in its order) then the
 * others seen — with nulls where no session merged.
 */
export async function loadTimeToMerge(
  db: Queryable,
  params: TimeToMergeParams,
): Promise<TimeToMergeResponse> {
  const from = new Date(params.at.getTime() - RETENTION_DAYS * 86_400_000).toISOString();
  const to = params.at.toISOString();
  const branch = params.branch === undefined ? sql`true` : sql`base_ref = ${params.branch}`;
  // merge_seconds: the time to merge above, null unless merged (migration 0007); the
  // unmerged sessions still make their group seen. Groups are hashed and each one's median
  // taken from its array: an ordered-set aggregate with GROUP BY would sort every session by
  // group first (figures in docs/decisions/0008-day-cells-for-long-periods.md).
  const { rows } = await sql<Row>`
    SELECT partition_name, queue_name, avg(merge_seconds)::float8 AS mean,
      (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY t)
        FROM unnest(array_agg(merge_seconds) FILTER (WHERE merge_seconds IS NOT NULL)) AS t)::float8 AS median
    FROM stats_sessions
    WHERE repository_id = ${params.repositoryId}::bigint AND left_at >= ${from}::timestamptz
      AND left_at <= ${to}::timestamptz AND ${branch}
    GROUP BY 1, 2`.execute(db);
  const { rows: config } = await sql<{ name: string }>`
    SELECT r.value ->> 'name' AS name
    FROM queue_state q, jsonb_array_elements(
      CASE WHEN jsonb_typeof(q.state -> 'config' -> 'queue_rules') = 'array'
        THEN q.state -> 'config' -> 'queue_rules' ELSE '[]'::jsonb END) WITH ORDINALITY AS r(value, n)
    WHERE q.repository_id = ${params.repositoryId}::bigint AND r.value ->> 'name' IS NOT NULL
    ORDER BY r.n`.execute(db);

  const configured = config.map((c) => c.name);
  const seen = [...new Set(rows.map((r) => r.queue_name))]
    .filter((q) => !configured.includes(q))
    .sort(compareText);
  const queues = [...configured, ...seen];
  const partitions = [...new Set(rows.map((r) => r.partition_name))].sort(compareText);
  if (partitions.length === 0 && queues.length > 0) partitions.push(DEFAULT_KEY);
  const figures = new Map(rows.map((r) => [`${r.partition_name}\u0000${r.queue_name}`, r]));
  return partitions.map((partition_name) => ({
    partition_name,
    queues: queues.map((queue_name) => {
      const r = figures.get(`${partition_name}\u0000${queue_name}`);
      return { queue_name, time_to_merge: { mean: r?.mean ?? null, median: r?.median ?? null } };
    }),
  }));
}
