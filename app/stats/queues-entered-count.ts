import { sql } from 'kysely';
import type { QueuesEnteredCountResponse } from '../../shared/schemas/stats-response.schema.ts';
import type { Queryable } from '../store/database.ts';
import { groupRowsByKeys } from './group-rows.ts';
import type { GroupKeys } from './projection-rows.ts';
import { bucketSql, type StatsParams, whereSql, widthOf } from './stats-params.ts';

/** Queue entries (action.queue.enter) by interval. */
export async function loadQueuesEnteredCount(
  db: Queryable,
  params: StatsParams,
): Promise<QueuesEnteredCountResponse> {
  const width = widthOf(params);
  const { rows } = await sql<GroupKeys & { bucket: string; entered: number }>`
    SELECT base_ref, partition_name, queue_name, priority_rule_name, ${bucketSql('at', width)} AS bucket,
      count(*)::int AS entered
    FROM stats_enters WHERE ${whereSql(params)}
    GROUP BY 1, 2, 3, 4, 5`.execute(db);
  return {
    groups: groupRowsByKeys({
      rows,
      width,
      toBucket: (r, b) => ({ ...b, entered: r.entered }),
    }),
  };
}
