import { sql } from 'kysely';
import type { Queryable } from './database.ts';

/** One repository's queue gauges, as the engine keeps them in its state (app/queue/gauges.ts). */
export interface RepositoryQueueGauges {
  repositoryId: string;
  owner: string;
  name: string;
  /** Pull requests waiting or embarked, by the engine's composite key (base, partition, queue rule, priority rule). */
  sizes: Record<string, number>;
  /** Running checks, by (base, partition, queue rule). */
  running: Record<string, number>;
}

/**
 * The queue gauges of the repositories with something queued or running, over every instance,
 * at most `limit` of them (in id order). Only the small `gauges` part of each state's core row
 * is sent: the pull requests' rows are not read, so the cost follows the number of repositories,
 * not the queues' length.
 */
export async function readQueueGauges(
  db: Queryable,
  params: { limit: number },
): Promise<RepositoryQueueGauges[]> {
  const result = await sql<{
    repository_id: string;
    owner: string;
    name: string;
    gauges: { sizes?: Record<string, number>; running?: Record<string, number> } | null;
  }>`SELECT q.repository_id, r.owner, r.name, q.state -> 'gauges' AS gauges
     FROM queue_state q JOIN repositories r ON r.id = q.repository_id
     WHERE coalesce(q.state -> 'gauges' -> 'sizes', '{}'::jsonb) <> '{}'::jsonb
        OR coalesce(q.state -> 'gauges' -> 'running', '{}'::jsonb) <> '{}'::jsonb
     ORDER BY q.repository_id
     LIMIT ${Math.max(1, Math.floor(params.limit))}`.execute(db);
  return result.rows.map((row) => ({
    repositoryId: String(row.repository_id),
    owner: row.owner,
    name: row.name,
    sizes: row.gauges?.sizes ?? {},
    running: row.gauges?.running ?? {},
  }));
}
