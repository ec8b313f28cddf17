import type { QueueSizeResponse } from '../../shared/schemas/stats-response.schema.ts';
import type { Queryable } from '../store/database.ts';
import { loadGaugeBuckets } from './gauge-buckets.ts';
import { groupRowsByKeys } from './group-rows.ts';
import type { StatsParams } from './stats-params.ts';

/** Queue size (action.queue.change), time-weighted by interval. */
export async function loadQueueSize(db: Queryable, params: StatsParams): Promise<QueueSizeResponse> {
  const { rows, width } = await loadGaugeBuckets(db, params, 'q');
  return {
    groups: groupRowsByKeys({
      rows,
      width,
      toBucket: (r, b) => ({ ...b, avg_size: r.avg, max_size: r.max, min_size: r.min }),
    }),
  };
}
