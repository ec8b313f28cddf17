import { sql } from 'kysely';
import {
  EXIT_REASONS,
  type ExitReason,
  type QueuesPrExitReasonsResponse,
} from '../../shared/schemas/stats-response.schema.ts';
import type { Queryable } from '../store/database.ts';
import { groupRowsByKeys } from './group-rows.ts';
import type { GroupKeys } from './projection-rows.ts';
import { bucketSql, type StatsParams, whereSql, widthOf } from './stats-params.ts';

const reasonRank = new Map<string, number>(EXIT_REASONS.map((r, i) => [r, i]));

/**
 * Sessions that left, by exit reason (PR_MERGED, or the leave reason's code), bucketed by
 * leave; each session once. A leave whose reason starts with no known code is not counted.
 */
export async function loadQueuesPrExitReasons(
  db: Queryable,
  params: StatsParams,
): Promise<QueuesPrExitReasonsResponse> {
  const width = widthOf(params);
  const { rows } = await sql<GroupKeys & { bucket: string; exit_code: ExitReason; count: number }>`
    SELECT base_ref, partition_name, queue_name, priority_rule_name, ${bucketSql('left_at', width)} AS bucket,
      exit_code, count(*)::int AS count
    FROM stats_sessions WHERE ${whereSql(params, { time: 'left_at' })} AND exit_code IS NOT NULL
    GROUP BY 1, 2, 3, 4, 5, 6`.execute(db);
  return {
    groups: groupRowsByKeys({
      rows: rows.filter((r) => reasonRank.has(r.exit_code)),
      width,
      toBucket: (r, b) => ({ ...b, exit_reason: r.exit_code, count: r.count }),
      order: (a, b) => (reasonRank.get(a.exit_reason) ?? 0) - (reasonRank.get(b.exit_reason) ?? 0),
    }),
  };
}
