import { queueStateSchema } from '../queue/state.schema.ts';
import type { QueueState } from '../queue/state.ts';
import type { Queryable, Store } from '../store/database.ts';
import { loadQueueStateStatement } from '../store/queue-state.ts';
import { queueStateCacheOf } from '../store/queue-state-cache.ts';
import { assembleState } from '../store/queue-state-entries.ts';

/**
 * A repository's engine state as the API reads it, or null before the engine first ran for it.
 * The state this process keeps for the repository (queue-state-cache.ts: the one its last step
 * committed, or one this function parsed) is used while the stored row is still at its version,
 * so a read asks the database for the version alone; otherwise the stored state is loaded and
 * parsed, not trusted (an inconsistent one throws: a 500), and kept unless a newer one is kept
 * meanwhile. The state is shared: do not mutate it. `via`: the transaction of a write that decides
 * on the state under the repository's lock (the API's read connections otherwise).
 */
export async function readQueueState(
  store: Store,
  repositoryId: string,
  via: Queryable = store.readDb,
): Promise<QueueState | null> {
  const cache = queueStateCacheOf(store.db);
  const kept = cache.latest(repositoryId);
  const { rows } = await loadQueueStateStatement(repositoryId, kept?.version ?? null).execute(via);
  const row = rows[0];
  if (row === undefined) return null;
  if (row.state === null && kept !== undefined) return kept.state;
  const state = queueStateSchema.parse(assembleState(row.state!, row.entries!));
  const latest = cache.latest(repositoryId);
  if (latest === undefined || BigInt(latest.version) < BigInt(row.version)) {
    cache.set(repositoryId, row.version, state);
  }
  return state;
}
