import type { RunningSpeculativeChecksResponse } from '../../shared/schemas/stats-response.schema.ts';
import type { Queryable } from '../store/database.ts';
import { loadGaugeBuckets } from './gauge-buckets.ts';
import { groupRows } from './group-rows.ts';
import type { StatsParams } from './stats-params.ts';

/** Running speculative checks (action.queue.checks.change), time-weighted; no priority rule. */
export async function loadRunningSpeculativeChecks(
  db: Queryable,
  params: StatsParams,
): Promise<RunningSpeculativeChecksResponse> {
  const { rows, width } = await loadGaugeBuckets(
    db,
    { ...params, filters: { ...params.filters, priorityRuleName: undefined } },
    'r',
  );
  return {
    groups: groupRows({
      rows,
      width,
      keysOf: (r) => [r.base_ref, r.partition_name, r.queue_name],
      toBucket: (r, b) => ({
        ...b,
        avg_running_checks: r.avg,
        max_running_checks: r.max,
        min_running_checks: r.min,
      }),
      makeGroup: (r, stats) => ({
        base_ref: r.base_ref,
        partition_name: r.partition_name,
        queue_name: r.queue_name,
        stats,
      }),
    }),
  };
}
