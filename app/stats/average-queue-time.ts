import { sql } from 'kysely';
import type { AverageQueueTimeResponse } from '../../shared/schemas/stats-response.schema.ts';
import type { Queryable } from '../store/database.ts';
import { groupRowsByKeys } from './group-rows.ts';
import type { GroupKeys } from './projection-rows.ts';
import { capacitySeconds } from './session-times.ts';
import { bucketSql, type StatsParams, whereSql, widthOf } from './stats-params.ts';

/**
 * Idle time of the sessions that left, bucketed by leave: means of the capacity wait (queued
 * until the first checks start), of seconds_waiting_for_schedule and of
 * seconds_waiting_for_freeze; queue_time is the sum of the three means.
 */
export async function loadAverageQueueTime(
  db: Queryable,
  params: StatsParams,
): Promise<AverageQueueTimeResponse> {
  const width = widthOf(params);
  const { rows } = await sql<
    GroupKeys & { bucket: string; capacity: number; schedule: number; freeze: number; count: number }
  >`
    SELECT base_ref, partition_name, queue_name, priority_rule_name, ${bucketSql('left_at', width)} AS bucket,
      sum(${capacitySeconds})::float8 AS capacity,
      coalesce(sum(seconds_schedule), 0)::float8 AS schedule,
      coalesce(sum(seconds_freeze), 0)::float8 AS freeze,
      count(*)::int AS count
    FROM stats_sessions WHERE ${whereSql(params, { time: 'left_at' })}
    GROUP BY 1, 2, 3, 4, 5`.execute(db);
  return {
    groups: groupRowsByKeys({
      rows,
      width,
      toBucket: (r, b) => {
        const idle_capacity = r.capacity / r.count;
        const idle_schedule = r.schedule / r.count;
        const idle_freeze = r.freeze / r.count;
        return {
          ...b,
          queue_time: idle_capacity + idle_schedule + idle_freeze,
          idle_capacity,
          idle_schedule,
          idle_freeze,
        };
      },
    }),
  };
}
