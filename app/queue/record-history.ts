import { recordParents as parents } from './memo.ts';

/*
 * Which keys changed between two versions of a state record (the sessions, the published check
 * runs). Records are immutable and copied whole at each change, and a step changes a few keys of
 * records of thousands: what is derived from a record (sizes, lane orders, published titles) is
 * brought up to date from an earlier version's answer with the keys changed since, instead of
 * being recomputed from every key. Only facts about immutable objects are kept, so this holds
 * whichever step a state came from; a record with no known history (e.g. loaded) has none.
 */

/** How a version of a record came from an earlier one (kept in memo.ts). */
export interface RecordLink {
  from: object;
  keys: readonly string[];
  depth: number;
}

/**
 * Past this many versions or changed keys, recomputing from every key is as cheap. A link keeps
 * the version it came from alive, so a history is cut after this many versions: at most this many
 * copies of a record are kept (unbounded, a long simulation ran out of memory).
 */
const REACH = 128;

/** `next` is `from` with `keys` set or deleted. */
export function recordDerived(next: object, from: object, keys: readonly string[]): void {
  const depth = (parents.get(from)?.depth ?? 0) + 1;
  if (depth <= REACH) parents.set(next, { from, keys, depth });
}

export interface KnownAncestor<T> {
  /** The version `known` answered for. */
  version: object;
  value: T;
  /** Keys set or deleted since that version. */
  changed: ReadonlySet<string>;
}

/** The latest version of `record`, itself included, for which `known` has an answer, within reach; null if none. */
export function findKnownAncestor<T>(
  record: object,
  known: (version: object) => T | undefined,
): KnownAncestor<T> | null {
  const changed = new Set<string>();
  let version = record;
  for (let hop = 0; hop <= REACH && changed.size <= REACH; hop++) {
    const value = known(version);
    if (value !== undefined) return { version, value, changed };
    const link = parents.get(version);
    if (link === undefined) return null;
    for (const key of link.keys) changed.add(key);
    version = link.from;
  }
  return null;
}
