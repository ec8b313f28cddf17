import { sql } from 'kysely';
import type { Queryable } from './database.ts';

/** One repository's queue gauges, as the engine keeps them in its state (app/queue/gauges.ts). */
export interface RepositoryQueueGauges {
  repositoryId: string;
  /** The state row's version: it grows at every save of the state. */
  version: string;
  owner: string;
  name: string;
  /**
   * Pull requests waiting or embarked, by the engine's composite key (base, partition, queue
   * rule, priority rule), and running checks by (base, partition, queue rule); null when the
   * row is still at the version the caller knows (not sent again).
   */
  gauges: { sizes: Record<string, number>; running: Record<string, number> } | null;
}

/**
 * The queue gauges of every repository with an engine state (at most `limit`, in id order),
 * over every instance. Only the small `gauges` part of each state's core row is sent, and only
 * for rows whose version differs from the one in `known`: a scrape reads the versions of all
 * and the gauges of the repositories that changed since the last one. The pull requests' rows
 * are never read, so the cost follows the number of repositories, not the queues' length.
 */
export async function readQueueGauges(
  db: Queryable,
  params: { limit: number; known: ReadonlyMap<string, string> },
): Promise<RepositoryQueueGauges[]> {
  const ids = [...params.known.keys()];
  const versions = ids.map((id) => params.known.get(id)!);
  const result = await sql<{
    repository_id: string;
    version: string;
    owner: string;
    name: string;
    gauges: { sizes?: Record<string, number>; running?: Record<string, number> } | null;
    changed: boolean;
  }>`SELECT q.repository_id, q.version, r.owner, r.name,
            k.version IS DISTINCT FROM q.version AS changed,
            CASE WHEN k.version IS DISTINCT FROM q.version THEN q.state -> 'gauges' END AS gauges
     FROM queue_state q
     JOIN repositories r ON r.id = q.repository_id
     LEFT JOIN unnest(${ids}::bigint[], ${versions}::bigint[]) AS k (id, version) ON k.id = q.repository_id
     ORDER BY q.repository_id
     LIMIT ${Math.max(1, Math.floor(params.limit))}`.execute(db);
  return result.rows.map((row) => ({
    repositoryId: String(row.repository_id),
    version: String(row.version),
    owner: row.owner,
    name: row.name,
    gauges: row.changed ? { sizes: row.gauges?.sizes ?? {}, running: row.gauges?.running ?? {} } : null,
  }));
}
