import { checksChangeEvent, queueChangeEvent } from './batch-events.ts';
import { KEY_SEPARATOR } from './composite-key.ts';
import { computeRunningChecks } from './embark.ts';
import { emit } from './queue-events.ts';
import { summarizeSessions } from './sessions-summary.ts';
import type { Lane, QueueState } from './state.ts';
import { compareText, type Transition } from './transition.ts';

const SEP = KEY_SEPARATOR;

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

/** Non-zero values, keys sorted: the stored state must not depend on the order sessions were counted in. */
function withoutZeros(values: Record<string, number>): Record<string, number> {
  const kept = Object.entries(values).filter(([, v]) => v > 0);
  return Object.fromEntries(kept.sort(([a], [b]) => compareText(a, b)));
}
