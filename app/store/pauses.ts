import { type RawBuilder, sql } from 'kysely';
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

/**
 * The pause the engine decided itself (merge integrity: app/queue/integrity.ts), as a statement
 * of its step: the pause row is what the API reads and deletes, so an engine pause must have one.
 * Null when the engine's events of the step hold no pause.
 */
export function enginePauseStatement(
  repositoryId: string,
  events: readonly { type: string; metadata: unknown }[],
  now: Date,
): RawBuilder<unknown> | null {
  const event = events.findLast((e) => e.type === 'queue.pause.create' || e.type === 'queue.pause.update');
  if (event === undefined) return null;
  const metadata = event.metadata as { reason: string; created_by?: Actor; updated_by?: Actor };
  const by = metadata.created_by ?? metadata.updated_by!;
  return sql`
    insert into pauses (repository_id, reason, paused_at, paused_by, updated_at)
    values (${repositoryId}, ${metadata.reason}, ${now}, ${JSON.stringify(by)}, ${now})
    on conflict (repository_id) do update set reason = excluded.reason, updated_at = excluded.updated_at`;
}
