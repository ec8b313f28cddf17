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

export async function saveQueueState(
  db: Queryable,
  repositoryId: string,
  state: unknown,
  now: Date,
): Promise<void> {
  await db
    .insertInto('queue_state')
    .values({ repository_id: repositoryId, state: JSON.stringify(state), version: 1, updated_at: now })
    .onConflict((oc) =>
      oc.column('repository_id').doUpdateSet((eb) => ({
        state: eb.ref('excluded.state'),
        version: sql<string>`queue_state.version + 1`,
        updated_at: eb.ref('excluded.updated_at'),
      })),
    )
    .execute();
}
