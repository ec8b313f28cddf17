import { sql } from 'kysely';
import type { FailureRateResponse } from '../../shared/schemas/stats-response.schema.ts';
import type { Queryable } from '../store/database.ts';
import { groupRowsByKeys } from './group-rows.ts';
import type { GroupKeys } from './projection-rows.ts';
import { bucketSql, type StatsParams, whereSql, widthOf } from './stats-params.ts';

/** Sessions that left, and those that left for CHECKS_FAILED or CHECKS_TIMEOUT, bucketed by leave. */
export async function loadFailureRate(db: Queryable, params: StatsParams): Promise<FailureRateResponse> {
  const width = widthOf(params);
  const { rows } = await sql<GroupKeys & { bucket: string; total: number; failures: number }>`
    SELECT base_ref, partition_name, queue_name, priority_rule_name, ${bucketSql('left_at', width)} AS bucket,
      count(*)::int AS total,
      count(*) FILTER (WHERE exit_code IN ('CHECKS_FAILED', 'CHECKS_TIMEOUT'))::int AS failures
    FROM stats_sessions WHERE ${whereSql(params, { time: 'left_at' })}
    GROUP BY 1, 2, 3, 4, 5`.execute(db);
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
