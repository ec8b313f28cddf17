import { isDeepStrictEqual } from 'node:util';

/**
 * The parts of the engine state that grow with the queue: one stored row per pull request,
 * session and published check run, so a step writes the few entries it changed instead of the
 * whole state (1.2 MB for 1,000 queued pull requests: 43–64 ms per step as one jsonb value,
 * see test/bench/step-transaction.bench.ts). The rest, the core, stays one small value.
 */
export const ENTRY_COLLECTIONS = ['pullRequests', 'sessions', 'checkRuns'] as const;

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

function splittable(state: Json): boolean {
  return ENTRY_COLLECTIONS.every((c) => state[c] === undefined || isRecord(state[c]));
}

/**
 * What to write to go from `previous` (the state stored now, or null when unknown) to `next`.
 * Entries are compared by identity first: the engine keeps the objects of what it did not
 * change, so the comparison costs about the changed part.
 */
export function diffStates(previous: unknown, next: unknown): StateChanges {
  if (!isRecord(next)) throw new TypeError('the engine state must be an object');
  if (!isRecord(previous) || !splittable(previous) || !splittable(next)) {
    // A collection that is not an object (a state the engine will refuse): all of it in the core.
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
    for (const [key, value] of Object.entries(after)) {
      const old = before[key];
      if (old === value || (old !== undefined && isDeepStrictEqual(old, value))) continue;
      upserts.push({ collection, key, value: JSON.stringify(value) });
    }
    for (const key of Object.keys(before)) {
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
    if (state[collection] !== undefined) continue;
    const record: Json = {};
    collections.set(collection, record);
    state[collection] = record;
  }
  for (const [collection, key, value] of entries) {
    const record = collections.get(collection);
    if (record !== undefined) record[key] = value;
  }
  return state;
}
