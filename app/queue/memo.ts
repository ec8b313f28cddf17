import type { CheckedHeadlines, LaneHeadlines, SessionHeadline } from './check-runs.ts';
import type { LaneOrder } from './ordering.ts';
import type { RecordLink } from './record-history.ts';
import type { SummaryMemo } from './sessions-summary.ts';
import type { Lane, Session } from './state.ts';

/*
 * Every cache of the engine, and its only module-level mutable state: test/queue/architecture.test.ts
 * fails on module-level mutable state anywhere else in app/queue. Each cache maps an immutable
 * state object (a record, a session, a lane) to an answer derived from it, so an entry is right
 * for as long as its key lives, whichever step made it; they save work and never change an
 * output (invariants.property.test.ts: a step from a state loaded from storage gives the same
 * outputs as a step from the same state kept in memory). A new cache is declared here.
 */

/** Answers remembered per immutable object; a WeakMap, so an entry goes with its key. */
export interface Memo<K extends object, V> {
  get(key: K): V | undefined;
  set(key: K, value: V): unknown;
}

/** One remembered answer: the latest one given, to bring up to date rather than recompute. */
export interface LatestAnswer<V> {
  get(): V | null;
  set(value: V): void;
}

/** A version of a record (sessions, published check runs) → the version it was copied from and the keys changed (record-history.ts). */
export const recordParents: Memo<object, RecordLink> = new WeakMap<object, RecordLink>();

/** A sessions record → its summary, and the counts it was made from (sessions-summary.ts). */
export const sessionsSummaries: Memo<object, SummaryMemo> = new WeakMap<object, SummaryMemo>();

/** A session → the gauge keys it counts in (sessions-summary.ts). */
export const sessionSizeKeys: Memo<Session, string[]> = new WeakMap<Session, string[]>();

/** A sessions record → the sessions of each lane in queue order (ordering.ts). */
export const laneOrders: Memo<object, LaneOrder> = new WeakMap<object, LaneOrder>();

let latestOrder: LaneOrder | null = null;

/** The lane order computed last, brought up to date when a step changed a few sessions (ordering.ts). */
export const latestLaneOrder: LatestAnswer<LaneOrder> = {
  get: () => latestOrder,
  set: (order) => {
    latestOrder = order;
  },
};

/** A session → the headline of its check run (what its title shows), and what it depended on (check-runs.ts). */
export const headlines: Memo<Session, SessionHeadline> = new WeakMap<Session, SessionHeadline>();

/** A lane → the headlines of its pull requests' check runs, and the lane order they were made from (check-runs.ts). */
export const laneHeadlines: Memo<Lane, LaneHeadlines> = new WeakMap<Lane, LaneHeadlines>();

/** A published check runs record → the headlines it was checked against (check-runs.ts). */
export const checkedHeadlines: Memo<object, CheckedHeadlines> = new WeakMap<object, CheckedHeadlines>();
