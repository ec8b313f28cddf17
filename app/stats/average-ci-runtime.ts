import { sql } from 'kysely';
import type { AverageCiRuntimeResponse } from '../../shared/schemas/stats-response.schema.ts';
import type { Queryable } from '../store/database.ts';
import type { GroupKeys } from '../store/projection/projection-rows.ts';
import { loadBucketed } from './bucketed.ts';
import { groupRowsByKeys } from './group-rows.ts';
import type { StatsParams } from './stats-params.ts';

/**
 * CI runtime (checks_ended_at − checks_started_at of checks_end events that carry both),
 * bucketed by the checks_end event's time.
 */
export async function loadAverageCiRuntime(
  db: Queryable,
  params: StatsParams,
): Promise<AverageCiRuntimeResponse> {
  // Runtimes are summed in microseconds (exact, as in the day cells).
  const { rows, width } = await loadBucketed<GroupKeys & { sum: number; count: number }>(db, params, {
    table: 'stats_checks',
    time: 'at',
    where: sql`runtime IS NOT NULL`,
    columns: sql`1 AS n, round(runtime * 1e6::float8)::int8 AS us`,
    days: {
      table: 'stats_check_days',
      columns: sql`runtime_n AS n, runtime_us AS us`,
      where: sql`runtime_n > 0`,
    },
    aggregates: sql`sum(us)::float8 / 1e6::float8 AS sum, sum(n)::int AS count`,
  });
  return {
    groups: groupRowsByKeys({
      rows,
      width,
      toBucket: (r, b) => ({ ...b, runtime: r.sum / r.count, sum_runtime: r.sum, count_runtime: r.count }),
    }),
  };
}
