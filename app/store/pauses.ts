import type { Actor } from '../../shared/schemas/event-parts.schema.ts';
import type { Queryable } from './database.ts';

export interface PauseRecord {
  reason: string;
  pausedAt: Date;
  pausedBy: Actor;
}

export async function loadPause(db: Queryable, repositoryId: string): Promise<PauseRecord | null> {
  const row = await db
    .selectFrom('pauses')
    .select(['reason', 'paused_at', 'paused_by'])
    .where('repository_id', '=', repositoryId)
    .executeTakeFirst();
  return row
    ? { reason: row.reason, pausedAt: row.paused_at, pausedBy: row.paused_by as unknown as Actor }
    : null;
}

/** Sets the reason; `paused_at` is kept when already paused (docs/api.md, "Pause"). */
export async function savePause(
  db: Queryable,
  repositoryId: string,
  pause: { reason: string; by: Actor; now: Date },
): Promise<PauseRecord> {
  const row = await db
    .insertInto('pauses')
    .values({
      repository_id: repositoryId,
      reason: pause.reason,
      paused_at: pause.now,
      paused_by: JSON.stringify(pause.by),
      updated_at: pause.now,
    })
    .onConflict((oc) =>
      oc.column('repository_id').doUpdateSet((eb) => ({
        reason: eb.ref('excluded.reason'),
        updated_at: eb.ref('excluded.updated_at'),
      })),
    )
    .returning(['reason', 'paused_at', 'paused_by'])
    .executeTakeFirstOrThrow();
  return { reason: row.reason, pausedAt: row.paused_at, pausedBy: row.paused_by as unknown as Actor };
}

export async function deletePause(db: Queryable, repositoryId: string): Promise<boolean> {
  const result = await db.deleteFrom('pauses').where('repository_id', '=', repositoryId).executeTakeFirst();
  return result.numDeletedRows > 0n;
}
