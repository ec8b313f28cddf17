import { sql } from 'kysely';
import type { AverageQueueTimeResponse } from '../../shared/schemas/stats-response.schema.ts';
import type { Queryable } from '../store/database.ts';
import { sessionCapacityMicros } from '../store/projection/day-cells.ts';
import type { GroupKeys } from '../store/projection/projection-rows.ts';
import { loadBucketed } from './bucketed.ts';
import { groupRowsByKeys } from './group-rows.ts';
import type { StatsParams } from './stats-params.ts';

/**
 * Idle time of the sessions that left, bucketed by leave: means of the capacity wait (queued
 * until the first checks start), of seconds_waiting_for_schedule and of
 * seconds_waiting_for_freeze; queue_time is the sum of the three means.
 */
export async function loadAverageQueueTime(
  db: Queryable,
  params: StatsParams,
): Promise<AverageQueueTimeResponse> {
  const { rows, width } = await loadBucketed<
    GroupKeys & { capacity: number; schedule: number; freeze: number; count: number }
  >(db, params, {
    table: 'stats_sessions',
    time: 'left_at',
    // Per session, as its day cell has them (day-cells.ts); r is the session row.
    columns: sql`1 AS n, ${sessionCapacityMicros} AS capacity_us, coalesce(r.seconds_schedule, 0) AS schedule_s,
      coalesce(r.seconds_freeze, 0) AS freeze_s`,
    days: { table: 'stats_session_days', columns: sql`n, capacity_us, schedule_s, freeze_s` },
    aggregates: sql`sum(capacity_us)::float8 / 1e6::float8 AS capacity,
      sum(schedule_s)::float8 AS schedule, sum(freeze_s)::float8 AS freeze, sum(n)::int AS count`,
  });
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
