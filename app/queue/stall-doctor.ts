import { type Located, locateAllTesting } from './locate.ts';
import { emit, stalledEvent } from './queue-events.ts';
import { putTrial } from './results.ts';
import { computeStallAfterSeconds, diagnoseMissingCheck, findMissingChecks } from './stall.ts';
import type { TestRun } from './state.ts';
import type { Transition } from './transition.ts';

/*
 * The stall doctor's phase of the step (stall.ts has what it judges by): it marks a stalled
 * tested commit in the state once and tells each of its pull requests.
 */

/** Marks the tested commits that are stalled as of now, once each, with an event per pull request. */
export function planStallDiagnosis(t: Transition): void {
  const after = computeStallAfterSeconds(t.state) * 1000;
  for (const found of locateAllTesting(t.state)) {
    if (found.trial.phase !== 'testing' || found.trial.run.stalled !== undefined) continue;
    const { run } = found.trial;
    if (Date.parse(run.startedAt) + after > t.now.getTime()) continue;
    const missing = findMissingChecks(t.state, { queueName: found.batch.queueName, run });
    if (missing.length === 0) continue;
    const stalled: TestRun = { ...run, stalled: { checks: missing, at: t.nowIso } };
    putTrial(t, found, { ...found.trial, run: stalled });
    emitStalled(t, found, stalled, after / 1000);
  }
}

function emitStalled(t: Transition, found: Located, run: TestRun, afterSeconds: number): void {
  const numbers = found.sub === null ? found.batch.numbers : found.batch.numbers.slice(0, found.sub.length);
  const diagnoses = (run.stalled?.checks ?? []).map((check) => diagnoseMissingCheck(t.state, { check, run }));
  for (const number of numbers) {
    const session = t.state.sessions[String(number)];
    if (session === undefined) continue;
    emit(
      t,
      stalledEvent(t, session, {
        partition: found.lane.partition,
        trainCarId: found.sub?.id ?? found.batch.id,
        startedAt: run.startedAt,
        afterSeconds: Math.round(afterSeconds),
        diagnoses,
      }),
    );
  }
}
