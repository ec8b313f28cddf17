import { computeCiQuantile, DEFAULT_CI_SECONDS } from './eta.ts';
import { locateAllTesting } from './locate.ts';
import { namedChecks } from './required-checks.ts';
import type { QueueState, TestRun } from './state.ts';
import type { Transition } from './transition.ts';

/*
 * The stall doctor: a required check that has not reported on a tested commit long after the
 * repository's CI usually ends will most likely never report there (its workflow is not
 * triggered for the queue's test branches or draft pull requests, or the merge conditions name a
 * check that does not exist). Waiting for `checks_timeout` (an hour by default) to learn that
 * wastes the hour; the doctor says so once CI has clearly overrun, names the check and the likely
 * fix. It decides nothing: the batch still fails at `checks_timeout`.
 */

/** Never sooner than this after the checks started, however fast CI usually is. */
export const STALL_FLOOR_SECONDS = 120;
/** How far past the p90 of the repository's recent CI durations a missing check counts as stalled. */
export const STALL_FACTOR = 1.5;

/** Fewer recent CI durations than this say too little: the default duration (or the longest seen) stands in. */
export const STALL_MIN_SAMPLES = 5;

/** Seconds after its checks started that a tested commit missing a required check is stalled. */
export function computeStallAfterSeconds(state: QueueState): number {
  const usual =
    state.ciDurations.length >= STALL_MIN_SAMPLES
      ? computeCiQuantile(state, 0.9)
      : Math.max(DEFAULT_CI_SECONDS, ...state.ciDurations);
  return Math.max(STALL_FLOOR_SECONDS, STALL_FACTOR * usual);
}

/** The checks the queue rule's merge conditions name that have not reported on the run. */
export function findMissingChecks(state: QueueState, params: { queueName: string; run: TestRun }): string[] {
  const rule = state.config.queue_rules.find((r) => r.name === params.queueName);
  if (rule === undefined) return [];
  const reported = new Set(params.run.checks.map((c) => c.name));
  return [...namedChecks(rule.merge_conditions)].filter((name) => !reported.has(name)).sort();
}

/** What the doctor makes of a check missing on a tested commit. */
export interface StallDiagnosis {
  check: string;
  /** Queued pull requests whose head has reported it (their CI runs it; the queue's does not). */
  reportsOnHeads: number[];
  message: string;
  nextAction: string;
}

export function diagnoseMissingCheck(
  state: QueueState,
  params: { check: string; run: TestRun },
): StallDiagnosis {
  const { check, run } = params;
  const reportsOnHeads = Object.values(state.pullRequests)
    .filter((pr) => pr.checkRuns.some((c) => c.name === check))
    .map((pr) => pr.number)
    .sort((a, b) => a - b)
    .slice(0, 5);
  const others = run.checks.length;
  const where =
    run.draftPullRequest === null ? 'the tested commit' : `draft pull request #${run.draftPullRequest}`;
  if (reportsOnHeads.length > 0) {
    return {
      check,
      reportsOnHeads,
      message: `Check ${check} reports on pull request heads (${reportsOnHeads.map((n) => `#${n}`).join(', ')}) but never reported on ${where}${others > 0 ? `, where ${others} other check${others === 1 ? '' : 's'} did` : ''}`,
      nextAction: `Make the workflow that runs ${check} also run on the merge queue's test branches (push to trainyard/merge-queue/**) and on draft pull requests, or remove check-success=${check} from merge_conditions`,
    };
  }
  return {
    check,
    reportsOnHeads,
    message: `Check ${check} never reported on ${where}, nor on any queued pull request's head`,
    nextAction: `Check that a workflow reports a check named exactly ${check} (merge_conditions name it), and that it runs on the merge queue's test branches (trainyard/merge-queue/**)`,
  };
}

/** When each tested commit still missing a required check becomes stalled (for the wake-up). */
export function computeStallDeadlines(t: Transition): number[] {
  const after = computeStallAfterSeconds(t.state) * 1000;
  return locateAllTesting(t.state).flatMap((found) => {
    if (found.trial.phase !== 'testing' || found.trial.run.stalled !== undefined) return [];
    const { run } = found.trial;
    if (findMissingChecks(t.state, { queueName: found.batch.queueName, run }).length === 0) return [];
    return [Date.parse(run.startedAt) + after];
  });
}

/** What a leave says of a run that timed out after the doctor found it stalled. */
export function describeStalledLeave(
  state: QueueState,
  run: TestRun,
): { message: string; nextAction: string } {
  const diagnoses = (run.stalled?.checks ?? []).map((check) => diagnoseMissingCheck(state, { check, run }));
  return {
    message: diagnoses.map((d) => d.message).join('; '),
    nextAction: diagnoses.map((d) => d.nextAction).join('; '),
  };
}
