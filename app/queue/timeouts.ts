import { nextConditionsChange } from '../config/conditions/evaluate-conditions.ts';
import { KEY_SEPARATOR } from './composite-key.ts';
import { computeFillDeadline, requestTestBranch } from './embark.ts';
import { computeNextFreezeChange } from './freeze.ts';
import { locateAllTesting } from './locate.ts';
import { orderSessionsByLane } from './ordering.ts';
import { decideTrialResult, putTrial } from './results.ts';
import { computeStallDeadlines } from './stall.ts';
import type { Batch, Lane, SubBatch, Trial } from './state.ts';
import { findLane, type Transition } from './transition.ts';

const WAKE_UP_KEY = 'schedule_wake_up:queue';

function timeoutOf(t: Transition, batch: Batch): number | null {
  return t.state.config.queue_rules.find((r) => r.name === batch.queueName)?.checks_timeout ?? null;
}

/** Units whose checks ran longer than `checks_timeout` fail as timed out. */
export function planTimeouts(t: Transition): void {
  for (const found of locateAllTesting(t.state)) {
    if (found.trial.phase !== 'testing') continue;
    const timeout = timeoutOf(t, found.batch);
    if (timeout === null) continue;
    if (Date.parse(found.trial.run.startedAt) + timeout * 1000 <= t.now.getTime())
      decideTrialResult(t, found, true);
  }
}

/** Test branches whose preparation failed are asked for again once their back-off is over. */
export function planPreparationRetries(t: Transition): void {
  for (const lane of t.state.lanes) {
    for (const batch of lane.batches) {
      if (batch.phase === 'trial') retryIfDue(t, { lane, batch, sub: null, trial: batch.trial });
      if (batch.phase !== 'bisecting') continue;
      for (const sub of batch.bisection.subBatches) retryIfDue(t, { lane, batch, sub, trial: sub.trial });
    }
  }
}

function retryIfDue(
  t: Transition,
  found: { lane: Lane; batch: Batch; sub: SubBatch | null; trial: Trial },
): void {
  const { trial } = found;
  if (trial.phase !== 'preparing' || trial.retryAt === null || Date.parse(trial.retryAt) > t.now.getTime())
    return;
  const next: Trial = {
    phase: 'preparing',
    attempt: trial.attempt + 1,
    failures: trial.failures,
    retryAt: null,
  };
  const lane = putTrial(t, found, next);
  const batch = lane.batches.find((b) => b.id === found.batch.id) ?? found.batch;
  const sub = found.sub === null ? undefined : { ...found.sub, trial: next };
  requestTestBranch(t, { lane, batch, attempt: next.attempt, ...(sub === undefined ? {} : { sub }) });
}

/** Every instant at which the engine must look again, earliest first. */
export function computeDeadlines(t: Transition): number[] {
  const deadlines: number[] = [];
  for (const found of locateAllTesting(t.state)) {
    const timeout = timeoutOf(t, found.batch);
    if (timeout !== null && found.trial.phase === 'testing') {
      deadlines.push(Date.parse(found.trial.run.startedAt) + timeout * 1000);
    }
  }
  for (const lane of t.state.lanes) {
    for (const batch of lane.batches) {
      const trials = [
        ...(batch.phase === 'trial' ? [batch.trial] : []),
        ...(batch.phase === 'bisecting' ? batch.bisection.subBatches.map((s) => s.trial) : []),
      ];
      for (const trial of trials) {
        if (trial.phase === 'preparing' && trial.retryAt !== null) deadlines.push(Date.parse(trial.retryAt));
      }
    }
  }
  deadlines.push(...computeFillDeadlines(t));
  deadlines.push(...computeStallDeadlines(t));
  const freeze = computeNextFreezeChange(t.state, t.now);
  if (freeze !== null) deadlines.push(freeze);
  if (Object.keys(t.state.sessions).length > 0) {
    for (const rule of t.state.config.queue_rules) {
      const change = nextConditionsChange(rule.merge_conditions, t.now);
      if (change !== null) deadlines.push(change);
    }
  }
  return deadlines.filter((d) => d > t.now.getTime()).sort((a, b) => a - b);
}

function computeFillDeadlines(t: Transition): number[] {
  if (t.state.pause.paused) return [];
  return [...orderSessionsByLane(t.state).keys()].flatMap((key) => {
    const [base, partition] = key.split(KEY_SEPARATOR) as [string, string];
    const lane = findLane(t.state, base, partition) ?? { base, partition, batches: [] };
    return computeFillDeadline(t, lane) ?? [];
  });
}

/** One timer per repository: asks for a wake-up at the earliest deadline when it changed. */
export function planWakeUp(t: Transition): void {
  const next = computeDeadlines(t)[0];
  const at = next === undefined ? null : new Date(next).toISOString();
  if (at === t.state.wakeUpAt) return;
  t.state = { ...t.state, wakeUpAt: at };
  if (at !== null) t.effects.push({ type: 'schedule_wake_up', key: WAKE_UP_KEY, at });
}
