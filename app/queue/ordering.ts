import type { TrainyardConfig } from '../config/config.schema.ts';
import { rankPartitionSpread } from './adaptive.ts';
import { KEY_SEPARATOR } from './composite-key.ts';
import { orderFrozenLast } from './freeze.ts';
import { laneOrders as byLaneMemo, latestLaneOrder } from './memo.ts';
import { findKnownAncestor } from './record-history.ts';
import type { Lane, QueueState, Session } from './state.ts';
import { compareText } from './transition.ts';

/**
 * Queue order: (1) queue rules in configuration order, (2) higher priority first, (3) with mode
 * adaptive, pull requests in several partitions first (adaptive.ts), (4) earlier `queued_at` first
 * (or `orderedAt`, see Session), (5) entry order. The same order everywhere, so partitions never disagree.
 */
export function orderSessions(config: TrainyardConfig, sessions: readonly Session[]): Session[] {
  return [...sessions].sort(computeComparator(config));
}

export function computeComparator(config: TrainyardConfig): (a: Session, b: Session) => number {
  const ruleIndex = new Map(config.queue_rules.map((rule, index) => [rule.name, index]));
  const rank = (s: Session) => ruleIndex.get(s.queueName) ?? Number.MAX_SAFE_INTEGER;
  return (a, b) =>
    rank(a) - rank(b) ||
    b.priority - a.priority ||
    rankPartitionSpread(config, a) - rankPartitionSpread(config, b) ||
    compareText(a.orderedAt ?? a.queuedAt, b.orderedAt ?? b.queuedAt) ||
    a.seq - b.seq;
}

const SEP = KEY_SEPARATOR;

/** The lanes' order as computed for a sessions record and configuration (kept in memo.ts). */
export interface LaneOrder {
  sessions: QueueState['sessions'];
  config: TrainyardConfig;
  lanes: Map<string, Session[]>;
}

/**
 * Sessions of each lane (`base` + NUL + `partition`), in queue order. States are immutable, so
 * the answer is memoized on the sessions record and configuration; a step that changes a few
 * sessions updates the previous answer (binary insertion) instead of sorting everything again,
 * and lanes it did not touch keep their array, so memos keyed on those stay valid.
 */
export function orderSessionsByLane(state: QueueState): Map<string, Session[]> {
  const memo = byLaneMemo.get(state.sessions);
  if (memo !== undefined && memo.config === state.config) return memo.lanes;
  const last = latestLaneOrder.get();
  const previous = last !== null && last.config === state.config ? last : null;
  const lanes = (previous && updateLanes(previous, state.sessions)) ?? groupByLane(state);
  const answer: LaneOrder = { sessions: state.sessions, config: state.config, lanes };
  latestLaneOrder.set(answer);
  byLaneMemo.set(state.sessions, answer);
  return lanes;
}

const keysOf = (s: Session) => s.partitions.map((partition) => `${s.base}${SEP}${partition}`);

function groupByLane(state: QueueState): Map<string, Session[]> {
  const lanes = new Map<string, Session[]>();
  for (const session of orderSessions(state.config, Object.values(state.sessions))) {
    for (const key of keysOf(session)) {
      const list = lanes.get(key);
      if (list === undefined) lanes.set(key, [session]);
      else list.push(session);
    }
  }
  return lanes;
}

/** The previous answer with the changed sessions taken out and put back in place; null if too many changed. */
function updateLanes(previous: LaneOrder, sessions: QueueState['sessions']): Map<string, Session[]> | null {
  const removed: Session[] = [];
  const added: Session[] = [];
  const change = (before: Session | undefined, session: Session | undefined) => {
    if (before === session) return;
    if (before !== undefined) removed.push(before);
    if (session !== undefined) added.push(session);
  };
  // The keys changed since, when the history links the two records (record-history.ts); else all.
  const known = findKnownAncestor(sessions, (version) => (version === previous.sessions ? true : undefined));
  if (known !== null) for (const key of known.changed) change(previous.sessions[key], sessions[key]);
  else {
    for (const [key, session] of Object.entries(sessions)) change(previous.sessions[key], session);
    for (const [key, before] of Object.entries(previous.sessions))
      if (sessions[key] === undefined) removed.push(before);
  }
  if (removed.length + added.length > 32) return null;
  const compare = computeComparator(previous.config);
  const lanes = new Map(previous.lanes);
  const touched = new Set<string>();
  const edit = (key: string) => {
    if (!touched.has(key)) {
      touched.add(key);
      lanes.set(key, [...(lanes.get(key) ?? [])]);
    }
    return lanes.get(key)!;
  };
  for (const session of removed) {
    for (const key of keysOf(session)) {
      const list = edit(key);
      list.splice(list.indexOf(session), 1);
    }
  }
  for (const session of added) {
    for (const key of keysOf(session)) {
      const list = edit(key);
      let lo = 0;
      let hi = list.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (compare(list[mid]!, session) < 0) lo = mid + 1;
        else hi = mid;
      }
      list.splice(lo, 0, session);
    }
  }
  for (const key of touched) if (lanes.get(key)!.length === 0) lanes.delete(key);
  return lanes;
}

export function laneKey(lane: { base: string; partition: string }): string {
  return `${lane.base}${SEP}${lane.partition}`;
}

/** Pull requests held by the lane's batches (bisected and merging ones included). */
export function computeEmbarked(lane: Lane): Set<number> {
  return new Set(lane.batches.flatMap((batch) => batch.numbers));
}

/** The lane's queued pull requests not in a batch, in queue order. */
/** The lane's waiting pull requests in the order they embark: queue order, frozen ones last (`now` given). */
export function orderWaiting(state: QueueState, lane: Lane, now?: Date): Session[] {
  const embarked = computeEmbarked(lane);
  const sessions = orderSessionsByLane(state).get(laneKey(lane)) ?? [];
  const waiting = embarked.size === 0 ? sessions : sessions.filter((s) => !embarked.has(s.number));
  return now === undefined ? waiting : orderFrozenLast(state, waiting, now);
}

/** Every queued pull request of the lane, embarked first (batch order) then waiting. */
export function orderLane(state: QueueState, lane: Lane): number[] {
  const embarked = lane.batches.flatMap((batch) => batch.numbers);
  return [...embarked, ...orderWaiting(state, lane).map((s) => s.number)];
}
