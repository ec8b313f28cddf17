import { sql } from 'kysely';
import type { AverageCiRuntimeResponse } from '../../shared/schemas/stats-response.schema.ts';
import type { Queryable } from '../store/database.ts';
import { groupRowsByKeys } from './group-rows.ts';
import type { GroupKeys } from './projection-rows.ts';
import { bucketSql, type StatsParams, whereSql, widthOf } from './stats-params.ts';

/**
 * CI runtime (checks_ended_at − checks_started_at of checks_end events that carry both),
 * bucketed by the checks_end event's time.
 */
export async function loadAverageCiRuntime(
  db: Queryable,
  params: StatsParams,
): Promise<AverageCiRuntimeResponse> {
  const width = widthOf(params);
  const { rows } = await sql<GroupKeys & { bucket: string; sum_runtime: number; count_runtime: number }>`
    SELECT base_ref, partition_name, queue_name, priority_rule_name, ${bucketSql('at', width)} AS bucket,
      sum(runtime)::float8 AS sum_runtime, count(*)::int AS count_runtime
    FROM stats_checks WHERE ${whereSql(params)} AND runtime IS NOT NULL
    GROUP BY 1, 2, 3, 4, 5`.execute(db);
  return {
    groups: groupRowsByKeys({
      rows,
      width,
      toBucket: (r, b) => ({
        ...b,
        runtime: r.sum_runtime / r.count_runtime,
        sum_runtime: r.sum_runtime,
        count_runtime: r.count_runtime,
      }),
    }),
  };
}
