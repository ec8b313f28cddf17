import { sql } from 'kysely';
import type { Queryable } from './database.ts';

/**
 * Engine state per repository, stored as JSON. The engine's own schema parses (and rejects)
 * what is loaded; the store only keeps it.
 */
export async function loadQueueState(db: Queryable, repositoryId: string): Promise<unknown | null> {
  const row = await db
    .selectFrom('queue_state')
    .select(['state'])
    .where('repository_id', '=', repositoryId)
    .executeTakeFirst();
  return row ? row.state : null;
}

/** The row's version (grows by one at each save), or null when the engine never ran for the repository. */
export async function loadQueueStateVersion(db: Queryable, repositoryId: string): Promise<string | null> {
  const row = await db
    .selectFrom('queue_state')
    .select(['version'])
    .where('repository_id', '=', repositoryId)
    .executeTakeFirst();
  return row ? row.version : null;
}

/** Saves the state; returns the row's new version. */
export async function saveQueueState(
  db: Queryable,
  repositoryId: string,
  state: unknown,
  now: Date,
): Promise<string> {
  const row = await db
    .insertInto('queue_state')
    .values({ repository_id: repositoryId, state: JSON.stringify(state), version: 1, updated_at: now })
    .onConflict((oc) =>
      oc.column('repository_id').doUpdateSet((eb) => ({
        state: eb.ref('excluded.state'),
        version: sql<string>`queue_state.version + 1`,
        updated_at: eb.ref('excluded.updated_at'),
      })),
    )
    .returning('version')
    .executeTakeFirstOrThrow();
  return row.version;
}
