import { sql } from 'kysely';
import type { BatchBisectionResponse } from '../../shared/schemas/stats-response.schema.ts';
import type { Queryable } from '../store/database.ts';
import type { GroupKeys } from '../store/projection/projection-rows.ts';
import { loadBucketed } from './bucketed.ts';
import { groupKeys, groupRows, keyList } from './group-rows.ts';
import type { StatsParams } from './stats-params.ts';

interface Row extends GroupKeys {
  kind: 's' | 'e';
  count: number;
  sum_depth: number;
  max_depth: number;
  sum_size: number;
  culprits: number;
  max_reached: number;
}

/** Bisection splits started (every batch_bisection_start) and bisections completed, by interval. */
export async function loadBatchBisection(
  db: Queryable,
  params: StatsParams,
): Promise<BatchBisectionResponse> {
  const { rows, width } = await loadBucketed<Row>(db, params, {
    table: 'stats_bisections',
    time: 'at',
    extra: ['kind'],
    columns: sql`depth, size_before_split, culprit_found, max_failure_reached`,
    aggregates: sql`count(*)::int AS count,
      coalesce(sum(depth), 0)::int AS sum_depth, coalesce(max(depth), 0)::int AS max_depth,
      coalesce(sum(size_before_split), 0)::int AS sum_size,
      count(*) FILTER (WHERE culprit_found)::int AS culprits,
      count(*) FILTER (WHERE max_failure_reached)::int AS max_reached`,
  });
  return {
    started: groupRows({
      rows: rows.filter((r) => r.kind === 's'),
      width,
      keysOf: keyList,
      toBucket: (r, b) => ({
        ...b,
        bisection_count: r.count,
        avg_depth: r.sum_depth / r.count,
        max_depth: r.max_depth,
        avg_batch_size_before_split: r.sum_size / r.count,
      }),
      makeGroup: (r, stats) => ({ ...groupKeys(r), stats }),
    }),
    completed: groupRows({
      rows: rows.filter((r) => r.kind === 'e'),
      width,
      keysOf: keyList,
      toBucket: (r, b) => ({
        ...b,
        bisection_completed_count: r.count,
        culprit_found_count: r.culprits,
        max_failure_reached_count: r.max_reached,
      }),
      makeGroup: (r, stats) => ({ ...groupKeys(r), stats }),
    }),
  };
}
