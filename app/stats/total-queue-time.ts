import { sql } from 'kysely';
import type { TotalQueueTimeResponse } from '../../shared/schemas/stats-response.schema.ts';
import type { Queryable } from '../store/database.ts';
import { sessionQueueMicros } from '../store/projection/day-cells.ts';
import type { GroupKeys } from '../store/projection/projection-rows.ts';
import { loadBucketed } from './bucketed.ts';
import { groupRowsByKeys } from './group-rows.ts';
import type { StatsParams } from './stats-params.ts';

/** Time in queue (leave − queued_at) of the sessions that left, bucketed by leave. */
export async function loadTotalQueueTime(
  db: Queryable,
  params: StatsParams,
): Promise<TotalQueueTimeResponse> {
  // Per session, as its day cell has them (day-cells.ts); r is the session row.
  const { rows, width } = await loadBucketed<
    GroupKeys & { max: number; min: number; sum: number; count: number }
  >(db, params, {
    table: 'stats_sessions',
    time: 'left_at',
    columns: sql`1 AS n, ${sessionQueueMicros} AS queue_us, ${sessionQueueMicros} AS queue_us_max,
        ${sessionQueueMicros} AS queue_us_min`,
    days: { table: 'stats_session_days', columns: sql`n, queue_us, queue_us_max, queue_us_min` },
    aggregates: sql`sum(queue_us)::float8 / 1e6::float8 AS sum, max(queue_us_max)::float8 / 1e6::float8 AS max,
        min(queue_us_min)::float8 / 1e6::float8 AS min, sum(n)::int AS count`,
  });
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
