import { sql } from 'kysely';
import type { BatchSizeResponse } from '../../shared/schemas/stats-response.schema.ts';
import type { Queryable } from '../store/database.ts';
import { groupRowsByKeys } from './group-rows.ts';
import type { GroupKeys } from './projection-rows.ts';
import { bucketSql, type StatsParams, whereSql, widthOf } from './stats-params.ts';

/**
 * Batch sizes: one checks run per batch start (the checks_start events of one batch id at one
 * instant count once), its size the number of pull requests tested together.
 */
export async function loadBatchSize(db: Queryable, params: StatsParams): Promise<BatchSizeResponse> {
  const width = widthOf(params);
  const { rows } = await sql<
    GroupKeys & { bucket: string; max: number; min: number; sum: number; count: number }
  >`
    SELECT base_ref, partition_name, queue_name, priority_rule_name, ${bucketSql('at', width)} AS bucket,
      max(size)::int AS max, min(size)::int AS min, sum(size)::int AS sum, count(*)::int AS count
    FROM stats_batches WHERE ${whereSql(params)}
    GROUP BY 1, 2, 3, 4, 5`.execute(db);
  return {
    groups: groupRowsByKeys({
      rows,
      width,
      toBucket: (r, b) => ({
        ...b,
        avg_batch_size: r.sum / r.count,
        max_batch_size: r.max,
        min_batch_size: r.min,
        sum_batch_size: r.sum,
        count_batch_size: r.count,
      }),
    }),
  };
}
