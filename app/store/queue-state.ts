import { type RawBuilder, sql } from 'kysely';
import { PREPARED_MARK, type Queryable } from './database.ts';
import { assembleState, diffStates, type StateEntry } from './queue-state-entries.ts';

/**
 * Engine state per repository, stored as JSON: a core row (queue_state) and a row per pull
 * request, session and check run (queue_state_entries). The engine's own schema parses (and
 * rejects) what is loaded; the store only keeps it.
 */
export async function loadQueueState(db: Queryable, repositoryId: string): Promise<unknown | null> {
  const row = (await loadQueueStateStatement(repositoryId, null).execute(db)).rows[0];
  return row ? assembleState(row.state!, row.entries!) : null;
}

/** A state row as loadQueueStateStatement reads it. */
export interface StoredStateRow {
  version: string;
  /** Null, as `entries`, when the row is at the version the caller keeps. */
  state: Record<string, unknown> | null;
  entries: [string, string, unknown][] | null;
}

/**
 * loadQueueState's statement, with the row's version, for a step transaction: the state is read
 * only when the row is not at `kept` (the version whose state the caller holds already). One
 * round trip: the entries come as one json array (json, not jsonb: no re-sorting).
 */
export function loadQueueStateStatement(
  repositoryId: string,
  kept: string | null,
): RawBuilder<StoredStateRow> {
  const stale = sql`q.version IS DISTINCT FROM ${kept}::bigint`;
  return sql<StoredStateRow>`${sql.raw(PREPARED_MARK)}
    SELECT q.version, CASE WHEN ${stale} THEN q.state END AS state,
      CASE WHEN ${stale} THEN coalesce((
        SELECT json_agg(json_build_array(e.collection, e.key, e.value) ORDER BY e.seq)
        FROM queue_state_entries e WHERE e.repository_id = q.repository_id
      ), '[]'::json) END AS entries
    FROM queue_state q WHERE q.repository_id = ${repositoryId}::bigint`;
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

/**
 * Saves the state; returns the row's new version. With `previous`, the state stored now (as
 * loaded, or as this process last saved it at the version it read), only what changed is
 * written; without it, everything is.
 */
export async function saveQueueState(
  db: Queryable,
  repositoryId: string,
  state: unknown,
  now: Date,
  previous?: unknown,
): Promise<string> {
  const statements = saveQueueStateStatements(repositoryId, state, now, previous);
  for (const statement of statements.slice(0, -1)) await statement.execute(db);
  const { rows } = await statements.at(-1)!.execute(db);
  return (rows[0] as { version: string }).version;
}

/**
 * saveQueueState's statements, in order, for a caller that sends them with others (a step
 * transaction): the last one returns the new version.
 */
export function saveQueueStateStatements(
  repositoryId: string,
  state: unknown,
  now: Date,
  previous?: unknown,
): RawBuilder<unknown>[] {
  const changes = diffStates(previous ?? null, state);
  const statements: RawBuilder<unknown>[] = [];
  if (changes.replaceAll) {
    statements.push(sql`DELETE FROM queue_state_entries WHERE repository_id = ${repositoryId}::bigint`);
  }
  const upserts = changes.upserts;
  const deletes = changes.deletes;
  // One statement: the entries' deletes and upserts touch different keys, so they do not
  // meet in the snapshot the statement's parts share.
  statements.push(sql<{ version: string }>`
    WITH saved AS (
      INSERT INTO queue_state AS q (repository_id, state, version, updated_at)
      VALUES (${repositoryId}::bigint, coalesce(${changes.core}::jsonb, '{}'::jsonb), 1, ${now})
      ON CONFLICT (repository_id) DO UPDATE SET
        state = coalesce(${changes.core}::jsonb, q.state),
        version = q.version + 1,
        updated_at = excluded.updated_at
      RETURNING q.version
    ), removed AS (
      DELETE FROM queue_state_entries e
      USING unnest(${deletes.map((d) => d.collection)}::text[], ${deletes.map((d) => d.key)}::text[]) AS d (collection, key)
      WHERE e.repository_id = ${repositoryId}::bigint AND e.collection = d.collection AND e.key = d.key
    ), written AS (
      INSERT INTO queue_state_entries (repository_id, collection, key, value)
      SELECT ${repositoryId}::bigint, u.entry ->> 0, u.entry ->> 1, u.entry -> 2
      FROM jsonb_array_elements(${entriesJson(upserts)}::jsonb) WITH ORDINALITY AS u (entry, n)
      ORDER BY u.n
      ON CONFLICT (repository_id, collection, key) DO UPDATE SET value = excluded.value
    )
    SELECT version FROM saved`);
  return statements;
}

/**
 * The entries as one JSON array of [collection, key, value]: their values are JSON texts already,
 * put in as they are, where a text array would have the client escape every quote of every value
 * and the server unescape them (decision 0003).
 */
function entriesJson(entries: readonly StateEntry[]): string {
  return `[${entries.map((e) => `[${JSON.stringify(e.collection)},${JSON.stringify(e.key)},${e.value}]`).join(',')}]`;
}
