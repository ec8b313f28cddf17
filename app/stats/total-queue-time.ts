import { sql } from 'kysely';
import type { TotalQueueTimeResponse } from '../../shared/schemas/stats-response.schema.ts';
import type { Queryable } from '../store/database.ts';
import { groupRowsByKeys } from './group-rows.ts';
import type { GroupKeys } from './projection-rows.ts';
import { queueSeconds } from './session-times.ts';
import { bucketSql, type StatsParams, whereSql, widthOf } from './stats-params.ts';

/** Time in queue (leave − queued_at) of the sessions that left, bucketed by leave. */
export async function loadTotalQueueTime(
  db: Queryable,
  params: StatsParams,
): Promise<TotalQueueTimeResponse> {
  const width = widthOf(params);
  const { rows } = await sql<
    GroupKeys & { bucket: string; max: number; min: number; sum: number; count: number }
  >`
    SELECT base_ref, partition_name, queue_name, priority_rule_name, ${bucketSql('left_at', width)} AS bucket,
      max(q)::float8 AS max, min(q)::float8 AS min, sum(q)::float8 AS sum, count(*)::int AS count
    FROM (SELECT *, ${queueSeconds} AS q FROM stats_sessions WHERE ${whereSql(params, { time: 'left_at' })}) s
    GROUP BY 1, 2, 3, 4, 5`.execute(db);
  return {
    groups: groupRowsByKeys({
      rows,
      width,
      toBucket: (r, b) => ({
        ...b,
        avg_queue_time: r.sum / r.count,
        max_queue_time: r.max,
        min_queue_time: r.min,
        sum_queue_time: r.sum,
        count_queue_time: r.count,
      }),
    }),
  };
}
