import { sql } from 'kysely';
import type { BatchSizeResponse } from '../../shared/schemas/stats-response.schema.ts';
import type { Queryable } from '../store/database.ts';
import type { GroupKeys } from '../store/projection/projection-rows.ts';
import { loadBucketed } from './bucketed.ts';
import { groupRowsByKeys } from './group-rows.ts';
import type { StatsParams } from './stats-params.ts';

/**
 * Batch sizes: one checks run per batch start (the checks_start events of one batch id at one
 * instant count once), its size the number of pull requests tested together.
 */
export async function loadBatchSize(db: Queryable, params: StatsParams): Promise<BatchSizeResponse> {
  const { rows, width } = await loadBucketed<
    GroupKeys & { max: number; min: number; sum: number; count: number }
  >(db, params, {
    table: 'stats_batches',
    time: 'at',
    columns: sql`1 AS n, size AS size_sum, size AS size_max, size AS size_min`,
    days: { table: 'stats_batch_days', columns: sql`n, size_sum, size_max, size_min` },
    aggregates: sql`max(size_max)::float8 AS max, min(size_min)::float8 AS min, sum(size_sum)::float8 AS sum,
        sum(n)::int AS count`,
  });
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
