import { sql } from 'kysely';
import type { QueuesEnteredCountResponse } from '../../shared/schemas/stats-response.schema.ts';
import type { Queryable } from '../store/database.ts';
import type { GroupKeys } from '../store/projection/projection-rows.ts';
import { loadBucketed } from './bucketed.ts';
import { groupRowsByKeys } from './group-rows.ts';
import type { StatsParams } from './stats-params.ts';

/** Queue entries (action.queue.enter) by interval. */
export async function loadQueuesEnteredCount(
  db: Queryable,
  params: StatsParams,
): Promise<QueuesEnteredCountResponse> {
  const { rows, width } = await loadBucketed<GroupKeys & { entered: number }>(db, params, {
    table: 'stats_enters',
    time: 'at',
    columns: sql`1 AS n`,
    days: { table: 'stats_enter_days', columns: sql`n` },
    aggregates: sql`sum(n)::int AS entered`,
  });
  return {
    groups: groupRowsByKeys({ rows, width, toBucket: (r, b) => ({ ...b, entered: r.entered }) }),
  };
}
