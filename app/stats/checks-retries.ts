import { sql } from 'kysely';
import type { ChecksRetriesResponse } from '../../shared/schemas/stats-response.schema.ts';
import type { Queryable } from '../store/database.ts';
import { sessionDepth, sessionNotRecovered, sessionRecovered } from '../store/projection/day-cells.ts';
import type { GroupKeys } from '../store/projection/projection-rows.ts';
import { loadBucketed } from './bucketed.ts';
import { groupRowsByKeys } from './group-rows.ts';
import type { StatsParams } from './stats-params.ts';

interface Row extends GroupKeys {
  total_retries: number;
  with_retries: number;
  recovered: number;
  not_recovered: number;
  sum_depth: number;
  max_depth: number;
}

/**
 * Checks retries of the sessions that left, bucketed by leave. A retry is a checks_end
 * aborted with CHECKS_RETRIED; a session with retries recovered when its last checks_end
 * passed (SUCCESS), did not when it failed (CHECKS_FAILED / CHECKS_TIMEOUT); its retry depth
 * is the highest retry_attempt of its checks_end events.
 */
export async function loadChecksRetries(db: Queryable, params: StatsParams): Promise<ChecksRetriesResponse> {
  const { rows, width } = await loadBucketed<Row>(db, params, {
    table: 'stats_sessions',
    time: 'left_at',
    // Per session, as its day cell has them (day-cells.ts); r is the session row.
    columns: sql`r.retries, CASE WHEN r.retries > 0 THEN 1 ELSE 0 END AS with_retries,
      ${sessionRecovered} AS recovered, ${sessionNotRecovered} AS not_recovered,
      ${sessionDepth} AS depth_sum, ${sessionDepth} AS depth_max`,
    days: {
      table: 'stats_session_days',
      columns: sql`retries, with_retries, recovered, not_recovered, depth_sum, depth_max`,
    },
    aggregates: sql`sum(retries)::int AS total_retries, sum(with_retries)::int AS with_retries,
      sum(recovered)::int AS recovered, sum(not_recovered)::int AS not_recovered,
      sum(depth_sum)::int AS sum_depth, max(depth_max)::int AS max_depth`,
  });
  return {
    groups: groupRowsByKeys({
      rows,
      width,
      toBucket: (r, b) => ({
        ...b,
        total_retries: r.total_retries,
        sessions_with_retries: r.with_retries,
        recovered: r.recovered,
        not_recovered: r.not_recovered,
        recovery_rate: r.with_retries > 0 ? r.recovered / r.with_retries : null,
        avg_retry_depth: r.with_retries > 0 ? r.sum_depth / r.with_retries : null,
        max_retry_depth: r.max_depth,
      }),
    }),
  };
}
