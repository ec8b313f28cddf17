import { sql } from 'kysely';
import {
  CHECK_OUTCOMES,
  type CheckOutcome,
  type CheckOutcomeCounts,
  type MergeQueueChecksOutcomeResponse,
  type QueuesChecksOutcomeCountResponse,
} from '../../shared/schemas/stats-response.schema.ts';
import type { Queryable } from '../store/database.ts';
import type { GroupKeys } from '../store/projection/projection-rows.ts';
import { loadBucketed } from './bucketed.ts';
import { compareKeyLists, groupKeys, groupRowsByKeys, keyList } from './group-rows.ts';
import { type StatsParams, whereSql } from './stats-params.ts';

const outcomeRank = new Map<string, number>(CHECK_OUTCOMES.map((o, i) => [o, i]));

/** Checks outcomes (checks_end: SUCCESS or the abort code) by interval, one bucket per outcome. */
export async function loadQueuesChecksOutcomeCount(
  db: Queryable,
  params: StatsParams,
): Promise<QueuesChecksOutcomeCountResponse> {
  const { rows, width } = await loadBucketed<GroupKeys & { outcome: CheckOutcome; count: number }>(
    db,
    params,
    {
      table: 'stats_checks',
      time: 'at',
      extra: ['outcome'],
      columns: sql`1 AS n`,
      days: { table: 'stats_check_days', columns: sql`n` },
      aggregates: sql`sum(n)::int AS count`,
    },
  );
  return {
    groups: groupRowsByKeys({
      rows: rows.filter((r) => outcomeRank.has(r.outcome)),
      width,
      toBucket: (r, b) => ({ ...b, check_outcome: r.outcome, count: r.count }),
      order: (a, b) => (outcomeRank.get(a.check_outcome) ?? 0) - (outcomeRank.get(b.check_outcome) ?? 0),
    }),
  };
}

function zeroCounts(): CheckOutcomeCounts {
  return Object.fromEntries(CHECK_OUTCOMES.map((o) => [o, 0])) as CheckOutcomeCounts;
}

/** Checks outcomes over the whole period (not bucketed): every outcome key, zeros included. */
export async function loadMergeQueueChecksOutcome(
  db: Queryable,
  params: StatsParams,
): Promise<MergeQueueChecksOutcomeResponse> {
  const { rows } = await sql<GroupKeys & { outcome: CheckOutcome; count: number }>`
    SELECT base_ref, partition_name, queue_name, priority_rule_name, outcome, count(*)::int AS count
    FROM stats_checks WHERE ${whereSql(params)}
    GROUP BY 1, 2, 3, 4, 5`.execute(db);
  const groups = new Map<string, { keys: GroupKeys; stats: CheckOutcomeCounts }>();
  for (const r of rows) {
    if (!outcomeRank.has(r.outcome)) continue;
    const id = keyList(r).join('\u0000');
    let g = groups.get(id);
    if (!g) {
      g = { keys: groupKeys(r), stats: zeroCounts() };
      groups.set(id, g);
    }
    g.stats[r.outcome] += r.count;
  }
  return {
    groups: [...groups.values()]
      .sort((a, b) => compareKeyLists(keyList(a.keys), keyList(b.keys)))
      .map((g) => ({ ...g.keys, stats: g.stats })),
  };
}
