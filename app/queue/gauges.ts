import { checksChangeEvent, queueChangeEvent } from './batch-events.ts';
import { KEY_SEPARATOR } from './composite-key.ts';
import { computeRunningChecks } from './embark.ts';
import { emit } from './queue-events.ts';
import type { Lane, QueueState, Session } from './state.ts';
import type { Transition } from './transition.ts';

const SEP = KEY_SEPARATOR;

export interface SessionsSummary {
  /** Queue size per (base, partition, queue rule, priority rule): waiting plus embarked sessions. */
  sizes: Record<string, number>;
  anyHeld: boolean;
  anyWaitingForAhead: boolean;
}

const summaryMemo = new WeakMap<object, SessionsSummary>();
const sizeKeysMemo = new WeakMap<Session, string[]>();

/** The gauge keys a session counts in (sessions are immutable: computed once per object). */
function sizeKeys(s: Session): string[] {
  let keys = sizeKeysMemo.get(s);
  if (keys === undefined) {
    keys = s.partitions.map((partition) =>
      [s.base, partition, s.queueName, s.priorityRuleName ?? ''].join(SEP),
    );
    sizeKeysMemo.set(s, keys);
  }
  return keys;
}

/** What every step wants to know about all sessions; memoized on the (immutable) sessions record. */
export function summarizeSessions(sessions: QueueState['sessions']): SessionsSummary {
  const memo = summaryMemo.get(sessions);
  if (memo !== undefined) return memo;
  const summary: SessionsSummary = { sizes: {}, anyHeld: false, anyWaitingForAhead: false };
  for (const s of Object.values(sessions)) {
    for (const key of sizeKeys(s)) summary.sizes[key] = (summary.sizes[key] ?? 0) + 1;
    if ((s.freeze?.since ?? null) !== null || (s.schedule?.since ?? null) !== null) summary.anyHeld = true;
    if (s.waitingForAhead !== null) summary.anyWaitingForAhead = true;
  }
  summaryMemo.set(sessions, summary);
  return summary;
}

/** Running checks per (base, partition, queue rule). */
export function computeRunning(state: QueueState): Record<string, number> {
  const running: Record<string, number> = {};
  for (const lane of state.lanes) {
    for (const queueName of new Set(lane.batches.map((b) => b.queueName))) {
      const only: Lane = { ...lane, batches: lane.batches.filter((b) => b.queueName === queueName) };
      running[[lane.base, lane.partition, queueName].join(SEP)] = computeRunningChecks(only);
    }
  }
  return running;
}

/** Emits `action.queue.change` and `action.queue.checks.change` for every gauge that moved. */
export function planGauges(t: Transition): void {
  const { sizes } = summarizeSessions(t.state.sessions);
  const running = computeRunning(t.state);
  const previous = t.state.gauges;
  for (const key of changedKeys(previous.sizes, sizes)) {
    const [base, partition, queueName, priorityRuleName] = key.split(SEP) as [string, string, string, string];
    const size = sizes[key] ?? 0;
    emit(
      t,
      queueChangeEvent(t, { base, partition, queueName, priorityRuleName: priorityRuleName || null, size }),
    );
  }
  for (const key of changedKeys(previous.running, running)) {
    const [base, partition, queueName] = key.split(SEP) as [string, string, string];
    emit(t, checksChangeEvent(t, { base, partition, queueName, running: running[key] ?? 0 }));
  }
  t.state = { ...t.state, gauges: { sizes: withoutZeros(sizes), running: withoutZeros(running) } };
}

function changedKeys(before: Record<string, number>, after: Record<string, number>): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...keys].filter((key) => (before[key] ?? 0) !== (after[key] ?? 0)).sort();
}

function withoutZeros(values: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v > 0));
}
