import { sql } from 'kysely';
import {
  EXIT_REASONS,
  type ExitReason,
  type QueuesPrExitReasonsResponse,
} from '../../shared/schemas/stats-response.schema.ts';
import type { Queryable } from '../store/database.ts';
import type { GroupKeys } from '../store/projection/projection-rows.ts';
import { loadBucketed } from './bucketed.ts';
import { groupRowsByKeys } from './group-rows.ts';
import type { StatsParams } from './stats-params.ts';

const reasonRank = new Map<string, number>(EXIT_REASONS.map((r, i) => [r, i]));

/**
 * Sessions that left, by exit reason (PR_MERGED, or the leave reason's code), bucketed by
 * leave; each session once. A leave whose reason starts with no known code is not counted.
 */
export async function loadQueuesPrExitReasons(
  db: Queryable,
  params: StatsParams,
): Promise<QueuesPrExitReasonsResponse> {
  const { rows, width } = await loadBucketed<GroupKeys & { exit_code: ExitReason; count: number }>(
    db,
    params,
    {
      table: 'stats_sessions',
      time: 'left_at',
      where: sql`exit_code IS NOT NULL`,
      extra: ['exit_code'],
      columns: sql`1 AS n`,
      // A cell's exit code is '' for leaves without a known code.
      days: { table: 'stats_session_days', columns: sql`n`, where: sql`exit_code <> ''` },
      aggregates: sql`sum(n)::int AS count`,
    },
  );
  return {
    groups: groupRowsByKeys({
      rows: rows.filter((r) => reasonRank.has(r.exit_code)),
      width,
      toBucket: (r, b) => ({ ...b, exit_reason: r.exit_code, count: r.count }),
      order: (a, b) => (reasonRank.get(a.exit_reason) ?? 0) - (reasonRank.get(b.exit_reason) ?? 0),
    }),
  };
}
