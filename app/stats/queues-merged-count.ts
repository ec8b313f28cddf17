import { sql } from 'kysely';
import type { QueuesMergedCountResponse } from '../../shared/schemas/stats-response.schema.ts';
import type { Queryable } from '../store/database.ts';
import { groupRows } from './group-rows.ts';
import { bucketSql, type StatsParams, whereSql, widthOf } from './stats-params.ts';

interface Row {
  base_ref: string;
  partition_names: string[];
  queue_name: string;
  priority_rule_name: string;
  bucket: string;
  merged: number;
}

/**
 * Merges (action.queue.merged) by interval, grouped by the merge's partition names (in the
 * event's order); the partition_name filter matches a merge in any of the given partitions.
 */
export async function loadQueuesMergedCount(
  db: Queryable,
  params: StatsParams,
): Promise<QueuesMergedCountResponse> {
  const width = widthOf(params);
  const { rows } = await sql<Row>`
    SELECT base_ref, partition_names, queue_name, priority_rule_name, ${bucketSql('at', width)} AS bucket,
      count(*)::int AS merged
    FROM stats_merges WHERE ${whereSql(params, { partitionNames: true })}
    GROUP BY 1, 2, 3, 4, 5`.execute(db);
  return {
    groups: groupRows({
      rows,
      width,
      // JSON keeps the array's boundaries in the one sort key.
      keysOf: (r) => [r.base_ref, JSON.stringify(r.partition_names), r.queue_name, r.priority_rule_name],
      toBucket: (r, b) => ({ ...b, merged: r.merged }),
      makeGroup: (r, stats) => ({
        base_ref: r.base_ref,
        partition_names: r.partition_names,
        queue_name: r.queue_name,
        priority_rule_name: r.priority_rule_name,
        stats,
      }),
    }),
  };
}
