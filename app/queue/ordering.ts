import type { TrainyardConfig } from '../config/config.schema.ts';
import type { Lane, QueueState, Session } from './state.ts';
import { compareText } from './transition.ts';

/**
 * Queue order: (1) queue rules in configuration order, (2) higher priority first, (3) earlier
 * `queued_at` first, (4) entry order. The same order everywhere, so partitions never disagree.
 */
export function orderSessions(config: TrainyardConfig, sessions: readonly Session[]): Session[] {
  const ruleIndex = new Map(config.queue_rules.map((rule, index) => [rule.name, index]));
  const rank = (s: Session) => ruleIndex.get(s.queueName) ?? Number.MAX_SAFE_INTEGER;
  return [...sessions].sort(
    (a, b) =>
      rank(a) - rank(b) || b.priority - a.priority || compareText(a.queuedAt, b.queuedAt) || a.seq - b.seq,
  );
}

const SEP = '\u0000';

/**
 * Sessions of each lane (`base` + NUL + `partition`), in queue order. States are immutable, so
 * the answer is memoized on the sessions record and the configuration it was ordered with.
 */
const byLaneMemo = new WeakMap<object, { config: TrainyardConfig; lanes: Map<string, Session[]> }>();

let lastByLane: Map<string, Session[]> | null = null;

export function orderSessionsByLane(state: QueueState): Map<string, Session[]> {
  const memo = byLaneMemo.get(state.sessions);
  if (memo !== undefined && memo.config === state.config) return memo.lanes;
  const lanes = new Map<string, Session[]>();
  for (const session of orderSessions(state.config, Object.values(state.sessions))) {
    for (const partition of session.partitions) {
      const key = `${session.base}${SEP}${partition}`;
      const list = lanes.get(key);
      if (list === undefined) lanes.set(key, [session]);
      else list.push(session);
    }
  }
  // Lanes whose sessions did not change keep their array, so memos keyed on it stay valid.
  if (memo !== undefined || lastByLane !== null) {
    const previous = memo?.lanes ?? lastByLane!;
    for (const [key, list] of lanes) {
      const before = previous.get(key);
      if (before !== undefined && before.length === list.length && before.every((s, i) => s === list[i])) {
        lanes.set(key, before);
      }
    }
  }
  lastByLane = lanes;
  byLaneMemo.set(state.sessions, { config: state.config, lanes });
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
export function orderWaiting(state: QueueState, lane: Lane): Session[] {
  const embarked = computeEmbarked(lane);
  const sessions = orderSessionsByLane(state).get(laneKey(lane)) ?? [];
  return embarked.size === 0 ? sessions : sessions.filter((s) => !embarked.has(s.number));
}

/** Every queued pull request of the lane, embarked first (batch order) then waiting. */
export function orderLane(state: QueueState, lane: Lane): number[] {
  const embarked = lane.batches.flatMap((batch) => batch.numbers);
  return [...embarked, ...orderWaiting(state, lane).map((s) => s.number)];
}
