import { sql } from 'kysely';
import type { ChecksRetriesResponse } from '../../shared/schemas/stats-response.schema.ts';
import type { Queryable } from '../store/database.ts';
import { groupRowsByKeys } from './group-rows.ts';
import type { GroupKeys } from './projection-rows.ts';
import { bucketSql, type StatsParams, whereSql, widthOf } from './stats-params.ts';

interface Row extends GroupKeys {
  bucket: string;
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
  const width = widthOf(params);
  const { rows } = await sql<Row>`
    SELECT base_ref, partition_name, queue_name, priority_rule_name, ${bucketSql('left_at', width)} AS bucket,
      sum(retries)::int AS total_retries,
      count(*) FILTER (WHERE retries > 0)::int AS with_retries,
      count(*) FILTER (WHERE retries > 0 AND last_checks_outcome = 'SUCCESS')::int AS recovered,
      count(*) FILTER (WHERE retries > 0 AND last_checks_outcome IN ('CHECKS_FAILED', 'CHECKS_TIMEOUT'))::int
        AS not_recovered,
      coalesce(sum(max_retry_attempt) FILTER (WHERE retries > 0), 0)::int AS sum_depth,
      coalesce(max(max_retry_attempt) FILTER (WHERE retries > 0), 0)::int AS max_depth
    FROM stats_sessions WHERE ${whereSql(params, { time: 'left_at' })}
    GROUP BY 1, 2, 3, 4, 5`.execute(db);
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
