import { sql } from 'kysely';
import type { QueuesMergedCountResponse } from '../../shared/schemas/stats-response.schema.ts';
import type { Queryable } from '../store/database.ts';
import { loadBucketed } from './bucketed.ts';
import { groupRows } from './group-rows.ts';
import type { StatsParams } from './stats-params.ts';

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
  const { rows, width } = await loadBucketed<Omit<Row, 'bucket'>>(db, params, {
    table: 'stats_merges',
    time: 'at',
    partitionNames: true,
    columns: sql`1 AS n`,
    days: { table: 'stats_merge_days', columns: sql`n` },
    aggregates: sql`sum(n)::int AS merged`,
  });
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
