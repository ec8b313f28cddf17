import { sql } from 'kysely';
import type { NewEvent } from '../../shared/schemas/event.schema.ts';
import type { Queryable, Tx } from './database.ts';
import type { EventToAppend } from './projection/event-to-append.ts';
import { insertEventsWithProjections } from './projection/projection.ts';

// Defined beside the projections, which derive their rows from it (so they need not import this file).
export type { EventToAppend } from './projection/event-to-append.ts';

/** An event as the engine or an import gives it (shared/schemas), as appended: `now` when it has no time of its own. */
export function toEventToAppend(event: NewEvent, now: Date): EventToAppend {
  return {
    type: event.type,
    receivedAt: event.received_at ? new Date(event.received_at) : now,
    trigger: event.trigger,
    pullRequest: event.pull_request,
    baseRef: event.base_ref,
    metadata: event.metadata as Record<string, unknown>,
  };
}

export interface StoredEvent extends EventToAppend {
  id: string;
  repositoryId: string;
}

export interface EventFilters {
  pullRequest?: number | undefined;
  baseRef?: string | undefined;
  types?: readonly string[] | undefined;
  receivedFrom?: Date | undefined;
  receivedTo?: Date | undefined;
}

/** A keyset position: rows strictly older (`before`) or newer (`after`) than an id, or the oldest page. */
export type EventPageStart =
  | { kind: 'newest' }
  | { kind: 'before'; id: string }
  | { kind: 'after'; id: string }
  | { kind: 'oldest' };

export interface Page<E> {
  events: E[];
  hasNewer: boolean;
  hasOlder: boolean;
}

export type EventPage = Page<StoredEvent>;

// Rows per INSERT: one parameter per column through unnest, so the size is not bound by
// the protocol's parameter limit, only by memory.
const APPEND_CHUNK = 5_000;

/**
 * Appends events in the caller's transaction, in the given order (ids increase with it).
 * The caller holds the repository lock, so ids also increase in commit order per repository.
 * The statistics projections of the events are written by the same statement (one round trip
 * per chunk; app/stats/projection.ts).
 */
export async function appendEvents(
  tx: Tx,
  repositoryId: string,
  events: readonly EventToAppend[],
): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < events.length; i += APPEND_CHUNK) {
    const chunk = events.slice(i, i + APPEND_CHUNK);
    for (const id of await insertEventsWithProjections(
      tx,
      repositoryId,
      chunk,
      insertStatement(repositoryId, chunk),
    )) {
      ids.push(id);
    }
  }
  return ids;
}

function insertStatement(repositoryId: string, chunk: readonly EventToAppend[]) {
  // The metadata travel as one JSON array, zipped with the other columns (ROWS FROM): one
  // JSON.stringify and one parse, rather than a text array of JSON texts the client escapes
  // and the server unescapes.
  return sql`
    INSERT INTO events (repository_id, type, received_at, trigger, pull_request, base_ref, metadata)
    SELECT ${repositoryId}::bigint, t.type, t.received_at, t.trigger, t.pull_request, t.base_ref, t.metadata
    FROM ROWS FROM (
      unnest(${chunk.map((e) => e.type)}::text[]),
      unnest(${chunk.map((e) => e.receivedAt.toISOString())}::timestamptz[]),
      unnest(${chunk.map((e) => e.trigger)}::text[]),
      unnest(${chunk.map((e) => e.pullRequest)}::int4[]),
      unnest(${chunk.map((e) => e.baseRef)}::text[]),
      jsonb_array_elements(${JSON.stringify(chunk.map((e) => e.metadata))}::jsonb)
    ) WITH ORDINALITY AS t(type, received_at, trigger, pull_request, base_ref, metadata, n)
    ORDER BY t.n
    RETURNING id`;
}

function filterSql(repositoryId: string, filters: EventFilters) {
  // `= ANY(ARRAY[..])`, not `=`: with an equality the planner drops repository_id from the ORDER BY
  // and may walk the primary key backwards through other repositories' newer rows; a range keeps
  // the index but forces sorts and loses the pull_request index (decision 0001). Orders below
  // match the (repository_id, id DESC) index's directions.
  const parts = [sql`repository_id = ANY(ARRAY[${repositoryId}]::bigint[])`];
  if (filters.pullRequest !== undefined) parts.push(sql`pull_request = ${filters.pullRequest}`);
  if (filters.baseRef !== undefined) parts.push(sql`base_ref = ${filters.baseRef}`);
  if (filters.types !== undefined && filters.types.length > 0) {
    parts.push(
      filters.types.length === 1
        ? sql`type = ${filters.types[0]}`
        : sql`type = ANY(${[...filters.types]}::text[])`,
    );
  }
  if (filters.receivedFrom !== undefined)
    parts.push(sql`received_at >= ${filters.receivedFrom.toISOString()}`);
  if (filters.receivedTo !== undefined) parts.push(sql`received_at <= ${filters.receivedTo.toISOString()}`);
  return sql.join(parts, sql` AND `);
}

interface EventRow {
  id: string;
  repository_id: string;
  type: string;
  received_at: Date;
  trigger: string;
  pull_request: number | null;
  base_ref: string | null;
  metadata: Record<string, unknown>;
}

const eventColumns = sql`id, repository_id, type, received_at, trigger, pull_request, base_ref, metadata`;

function toStoredEvent(row: EventRow): StoredEvent {
  return {
    id: row.id,
    repositoryId: row.repository_id,
    type: row.type,
    receivedAt: row.received_at,
    trigger: row.trigger,
    pullRequest: row.pull_request,
    baseRef: row.base_ref,
    metadata: row.metadata,
  };
}

/**
 * An event as text for a JSON answer: the metadata as the JSON text PostgreSQL keeps and the
 * time already in ISO 8601, so that a page is spliced into the response without parsing 100
 * metadata objects into JavaScript and stringifying them again.
 */
export interface EventText {
  id: string;
  /** As `Date#toISOString()` writes it: UTC, milliseconds, `Z`. */
  receivedAt: string;
  trigger: string;
  pullRequest: number | null;
  baseRef: string | null;
  type: string;
  /** JSON text of the metadata object (jsonb's output: `", "` and `": "` separators). */
  metadataJson: string;
}

interface EventTextRow {
  id: string;
  received_at: string;
  trigger: string;
  pull_request: number | null;
  base_ref: string | null;
  type: string;
  metadata: string;
}

// to_char's MS truncates to milliseconds, as a JavaScript Date does.
const eventTextColumns = sql`id, to_char(received_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS received_at, trigger, pull_request, base_ref, type, metadata::text AS metadata`;

function toEventText(row: EventTextRow): EventText {
  return {
    id: row.id,
    receivedAt: row.received_at,
    trigger: row.trigger,
    pullRequest: row.pull_request,
    baseRef: row.base_ref,
    type: row.type,
    metadataJson: row.metadata,
  };
}

/**
 * Whether a row lies beyond `id` in a direction. Written as an ordered LIMIT 1 rather than
 * EXISTS: with EXISTS the planner may choose a sequential scan (decision 0001).
 */
async function existsBeyond(
  db: Queryable,
  where: ReturnType<typeof filterSql>,
  beyond: { direction: 'older' | 'newer'; id: string },
) {
  const { rows } = await sql<{ one: number }>`
    SELECT 1 AS one FROM events
    WHERE ${where} AND id ${beyond.direction === 'older' ? sql`<` : sql`>`} ${beyond.id}::bigint
    ORDER BY ${beyond.direction === 'older' ? sql`repository_id, id DESC` : sql`repository_id DESC, id ASC`}
    LIMIT 1`.execute(db);
  return rows.length > 0;
}

/**
 * One page of the log, newest first, by keyset on id. Ordering by (repository_id, id) rather
 * than id alone keeps the planner on the per-repository index: ordered by id, it may walk the
 * primary key backwards through other repositories' newer rows on a large table (decision 0001).
 */
export function listEvents(
  db: Queryable,
  repositoryId: string,
  filters: EventFilters,
  start: EventPageStart,
  limit: number,
): Promise<EventPage> {
  return listPage(db, eventColumns, toStoredEvent, repositoryId, filters, start, limit);
}

/** The same page as {@link listEvents}, as text for a JSON answer ({@link EventText}). */
export function listEventTexts(
  db: Queryable,
  repositoryId: string,
  filters: EventFilters,
  start: EventPageStart,
  limit: number,
): Promise<Page<EventText>> {
  return listPage(db, eventTextColumns, toEventText, repositoryId, filters, start, limit);
}

async function listPage<Row extends { id: string }, E>(
  db: Queryable,
  columns: ReturnType<typeof sql>,
  toEvent: (row: Row) => E,
  repositoryId: string,
  filters: EventFilters,
  start: EventPageStart,
  limit: number,
): Promise<Page<E>> {
  const where = filterSql(repositoryId, filters);
  const ascending = start.kind === 'after' || start.kind === 'oldest';
  const keyset =
    start.kind === 'before'
      ? sql` AND id < ${start.id}::bigint`
      : start.kind === 'after'
        ? sql` AND id > ${start.id}::bigint`
        : sql``;
  const { rows } = await sql<Row>`
    SELECT ${columns}
    FROM events WHERE ${where}${keyset}
    ORDER BY ${ascending ? sql`repository_id DESC, id ASC` : sql`repository_id, id DESC`}
    LIMIT ${limit + 1}`.execute(db);
  const more = rows.length > limit;
  const pageRows = more ? rows.slice(0, limit) : rows;
  if (ascending) pageRows.reverse();
  const newest = pageRows[0]?.id;
  const oldest = pageRows.at(-1)?.id;

  let hasNewer: boolean;
  let hasOlder: boolean;
  if (ascending) {
    hasNewer = more;
    hasOlder = oldest !== undefined && (await existsBeyond(db, where, { direction: 'older', id: oldest }));
  } else {
    hasOlder = more;
    hasNewer =
      start.kind === 'newest' || newest === undefined
        ? false
        : await existsBeyond(db, where, { direction: 'newer', id: newest });
  }
  return { events: pageRows.map(toEvent), hasNewer, hasOlder };
}
