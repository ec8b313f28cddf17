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

/** Pull requests held by the lane's batches (bisected and merging ones included). */
export function computeEmbarked(lane: Lane): Set<number> {
  return new Set(lane.batches.flatMap((batch) => batch.numbers));
}

/** The lane's queued pull requests not in a batch, in queue order. */
export function orderWaiting(state: QueueState, lane: Lane): Session[] {
  const embarked = computeEmbarked(lane);
  const candidates = Object.values(state.sessions).filter(
    (s) => s.base === lane.base && s.partitions.includes(lane.partition) && !embarked.has(s.number),
  );
  return orderSessions(state.config, candidates);
}

/** Every queued pull request of the lane, embarked first (batch order) then waiting. */
export function orderLane(state: QueueState, lane: Lane): number[] {
  const embarked = lane.batches.flatMap((batch) => batch.numbers);
  return [...embarked, ...orderWaiting(state, lane).map((s) => s.number)];
}
