import { isDeepStrictEqual } from 'node:util';

/**
 * The parts of the engine state that grow with the queue: one stored row per pull request,
 * session, published check run and lane, so a step writes the few entries it changed instead of
 * the whole state, which grows with the queue. The rest, the core, stays one small value. Lanes
 * are entries too (keyed by their index): they would be most of the core, rewritten at nearly
 * every step though a step changes one or two of them. Figures in decision 0003.
 */
export const ENTRY_COLLECTIONS = ['pullRequests', 'sessions', 'checkRuns', 'lanes'] as const;

/** Collections that are arrays (their entries keyed by index) rather than records. */
const ARRAY_COLLECTIONS: ReadonlySet<string> = new Set(['lanes']);

export interface StateEntry {
  collection: string;
  key: string;
  /** The entry's JSON text. */
  value: string;
}

/** What a save writes: the core when it changed, entries added or changed, entries gone. */
export interface StateChanges {
  /** The core's JSON text, or null when it is unchanged. */
  core: string | null;
  /** Every stored entry is replaced by `upserts` (no previous state to compare with). */
  replaceAll: boolean;
  upserts: StateEntry[];
  deletes: { collection: string; key: string }[];
}

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The state without its entry collections. */
function coreOf(state: Json): Json {
  const core: Json = {};
  for (const [key, value] of Object.entries(state)) {
    if (!(ENTRY_COLLECTIONS as readonly string[]).includes(key)) core[key] = value;
  }
  return core;
}

function isCollection(collection: string, value: unknown): boolean {
  return ARRAY_COLLECTIONS.has(collection) ? Array.isArray(value) : isRecord(value);
}

function splittable(state: Json): boolean {
  return ENTRY_COLLECTIONS.every((c) => state[c] === undefined || isCollection(c, state[c]));
}

/**
 * What to write to go from `previous` (the state stored now, or null when unknown) to `next`.
 * Entries are compared by identity first: the engine keeps the objects of what it did not
 * change, so the comparison costs about the changed part.
 */
export function diffStates(previous: unknown, next: unknown): StateChanges {
  if (!isRecord(next)) throw new TypeError('the engine state must be an object');
  if (!isRecord(previous) || !splittable(previous) || !splittable(next)) {
    // A collection of the wrong kind (a state the engine will refuse): all of it in the core.
    if (!splittable(next)) return { core: JSON.stringify(next), replaceAll: true, upserts: [], deletes: [] };
    const upserts: StateEntry[] = [];
    for (const collection of ENTRY_COLLECTIONS) {
      for (const [key, value] of Object.entries((next[collection] as Json | undefined) ?? {})) {
        upserts.push({ collection, key, value: JSON.stringify(value) });
      }
    }
    return { core: JSON.stringify(coreOf(next)), replaceAll: true, upserts, deletes: [] };
  }

  const coreChanged = Object.keys({ ...previous, ...next }).some(
    (key) =>
      !(ENTRY_COLLECTIONS as readonly string[]).includes(key) &&
      previous[key] !== next[key] &&
      !isDeepStrictEqual(previous[key], next[key]),
  );
  const upserts: StateEntry[] = [];
  const deletes: { collection: string; key: string }[] = [];
  for (const collection of ENTRY_COLLECTIONS) {
    const before = (previous[collection] as Json | undefined) ?? {};
    const after = (next[collection] as Json | undefined) ?? {};
    if (before === after) continue;
    // for…in, not Object.entries: a merge changes three collections of a thousand entries each,
    // and their [key, value] pairs were most of what a save allocated.
    for (const key in after) {
      const value = after[key];
      const old = before[key];
      if (old === value || (old !== undefined && isDeepStrictEqual(old, value))) continue;
      upserts.push({ collection, key, value: JSON.stringify(value) });
    }
    for (const key in before) {
      if (!Object.hasOwn(after, key)) deletes.push({ collection, key });
    }
  }
  return { core: coreChanged ? JSON.stringify(coreOf(next)) : null, replaceAll: false, upserts, deletes };
}

/** The state as stored: the core with its entries put back, in the order they were stored. */
export function assembleState(core: Json, entries: readonly [string, string, unknown][]): Json {
  const state: Json = { ...core };
  const collections = new Map<string, Json>();
  for (const collection of ENTRY_COLLECTIONS) {
    // Written before the collection had entries of its own: the core still holds it.
    if (state[collection] !== undefined) continue;
    collections.set(collection, {});
  }
  for (const [collection, key, value] of entries) {
    const record = collections.get(collection);
    if (record !== undefined) record[key] = value;
  }
  for (const [collection, record] of collections) {
    state[collection] = ARRAY_COLLECTIONS.has(collection)
      ? Object.keys(record)
          .sort((a, b) => Number(a) - Number(b))
          .map((key) => record[key])
      : record;
  }
  return state;
}
