import type { AbortCode } from '../../shared/schemas/event-parts.schema.ts';
import type { CheckReport } from './inputs.ts';
import {
  type ChecksEnding,
  checksEndEvent,
  checksStartEvent,
  emit,
  type TestedUnit,
} from './queue-events.ts';
import type { Batch, Lane, SubBatch, TestRun } from './state.ts';
import { findSession, type Transition } from './transition.ts';

/*
 * A tested unit is one CI run: a batch, or a sub-batch of a bisection. Its checks start once
 * (checks_start per pull request) and end exactly once (checks_end per pull request).
 */

export function computeBatchUnit(lane: Lane, batch: Batch, run: TestRun | null): TestedUnit {
  return {
    trainCarId: batch.id,
    pullRequestNumbers: [...batch.parentNumbers, ...batch.numbers],
    speculativeNumber: run?.draftPullRequest ?? batch.numbers[0]!,
    inPlace: batch.mode === 'in_place',
    startedAt: run?.startedAt ?? null,
    partition: lane.partition,
  };
}

export function computeSubBatchUnit(
  lane: Lane,
  bisected: Batch,
  sub: SubBatch,
  run: TestRun | null,
): TestedUnit {
  const numbers = bisected.numbers.slice(0, sub.length);
  return {
    trainCarId: sub.id,
    pullRequestNumbers: [...bisected.parentNumbers, ...numbers],
    speculativeNumber: run?.draftPullRequest ?? numbers[0]!,
    inPlace: false,
    startedAt: run?.startedAt ?? null,
    partition: lane.partition,
  };
}

export function emitChecksStart(
  t: Transition,
  unit: TestedUnit,
  numbers: readonly number[],
  reason: string,
): void {
  for (const number of numbers) {
    const session = findSession(t.state, number);
    if (session !== undefined) emit(t, checksStartEvent(t, session, unit, reason));
  }
}

export function emitChecksEnd(
  t: Transition,
  unit: TestedUnit,
  numbers: readonly number[],
  ending: ChecksEnding | ((number: number) => ChecksEnding),
): void {
  for (const number of numbers) {
    const session = findSession(t.state, number);
    const end = typeof ending === 'function' ? ending(number) : ending;
    if (session !== undefined) emit(t, checksEndEvent(t, session, unit, end));
  }
}

/** How checks that passed end: with the merge. */
export function successEnding(checks: CheckReport[]): ChecksEnding {
  return { conclusion: 'success', timedOut: false, checks, abort: null, retry: null };
}

export function abortEnding(
  run: TestRun | null,
  code: AbortCode,
  reason: string,
  status: 'DEFINITIVE' | 'REEMBARKED',
): ChecksEnding {
  return {
    conclusion: 'cancelled',
    timedOut: false,
    checks: run?.checks ?? [],
    abort: { code, reason, status },
    retry: null,
  };
}

/** Merges a new report into the checks known for a run: a repeated name replaces the earlier run. */
export function mergeChecks(known: readonly CheckReport[], reported: readonly CheckReport[]): CheckReport[] {
  const byName = new Map(known.map((check) => [check.name, check]));
  for (const check of reported) {
    byName.delete(check.name);
    byName.set(check.name, check);
  }
  return [...byName.values()];
}
