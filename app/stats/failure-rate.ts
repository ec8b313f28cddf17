import { sql } from 'kysely';
import type { FailureRateResponse } from '../../shared/schemas/stats-response.schema.ts';
import type { Queryable } from '../store/database.ts';
import type { GroupKeys } from '../store/projection/projection-rows.ts';
import { loadBucketed } from './bucketed.ts';
import { groupRowsByKeys } from './group-rows.ts';
import type { StatsParams } from './stats-params.ts';

/** Sessions that left, and those that left for CHECKS_FAILED or CHECKS_TIMEOUT, bucketed by leave. */
export async function loadFailureRate(db: Queryable, params: StatsParams): Promise<FailureRateResponse> {
  const { rows, width } = await loadBucketed<GroupKeys & { total: number; failures: number }>(db, params, {
    table: 'stats_sessions',
    time: 'left_at',
    columns: sql`1 AS n, exit_code`,
    days: { table: 'stats_session_days', columns: sql`n, exit_code` },
    aggregates: sql`sum(n)::int AS total,
      coalesce(sum(n) FILTER (WHERE exit_code IN ('CHECKS_FAILED', 'CHECKS_TIMEOUT')), 0)::int AS failures`,
  });
  return {
    groups: groupRowsByKeys({
      rows,
      width,
      toBucket: (r, b) => ({
        ...b,
        total: r.total,
        failures: r.failures,
        failure_rate: r.failures / r.total,
      }),
    }),
  };
}
