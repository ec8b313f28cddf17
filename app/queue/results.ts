import type { QueueRule } from '../config/config.schema.ts';
import { closeDraft } from './abort.ts';
import { describeDepth, isAdaptive, recordSoloRetry } from './adaptive.ts';
import { computeBatchOutcome } from './checks.ts';
import { replaceSubBatch } from './embark.ts';
import type { ChecksReported, TestBranchPrepared } from './inputs.ts';
import { type Located, locateTesting, locateUnit } from './locate.ts';
import { describeSplitGroup } from './split.ts';
import type { Batch, Lane, TestRun, Trial } from './state.ts';
import {
  computeBatchUnit,
  computeSubBatchUnit,
  emitChecksEnd,
  emitChecksStart,
  mergeChecks,
} from './tested-unit.ts';
import { commonOf, putBatch, type Transition } from './transition.ts';

const RECENT_CI_DURATIONS = 20;
const RECENT_CI_RESULTS = 50;

/** The tested commit exists: its checks start now. A late answer for an older attempt is ignored. */
export function handleTestBranchPrepared(t: Transition, input: TestBranchPrepared): void {
  const found = locateUnit(t.state, input.batchId);
  if (found === undefined || found.trial.phase !== 'preparing' || found.trial.attempt !== input.attempt) {
    // A draft PR opened for a batch that no longer exists must not linger.
    if (input.draftPullRequest !== null && found === undefined) {
      closeDraft(t, input.batchId, {
        sha: input.sha,
        draftPullRequest: input.draftPullRequest,
        startedAt: t.nowIso,
        checks: [],
      });
    }
    return;
  }
  const run: TestRun = {
    sha: input.sha,
    draftPullRequest: input.draftPullRequest,
    startedAt: t.nowIso,
    checks: [],
    ...(input.trees === undefined ? {} : { trees: input.trees }),
  };
  const trial: Trial = { phase: 'testing', attempt: input.attempt, run };
  const lane = putTrial(t, found, trial);
  if (found.sub === null) {
    const started =
      found.batch.retries > 0
        ? `Retry ${found.batch.retries} of ${found.batch.name}`
        : `${found.batch.name} started`;
    const { laneDepth } = found.batch;
    const reason =
      found.batch.split !== undefined
        ? `${started}; ${describeSplitGroup(found.batch, found.lane.base)}`
        : laneDepth === undefined
          ? started
          : `${started}; ${describeDepth(laneDepth, t.state.config)}`;
    emitChecksStart(t, computeBatchUnit(lane, found.batch, run), found.batch.numbers, reason);
  } else {
    const unit = computeSubBatchUnit(lane, found.batch, found.sub, run);
    const numbers = found.batch.numbers.slice(0, found.sub.length);
    emitChecksStart(t, unit, numbers, `Bisection of ${found.batch.name}: ${found.sub.name}`);
  }
}

/** Writes a unit's new trial back into its lane; returns the lane as it now is. */
export function putTrial(t: Transition, found: Located, trial: Trial): Lane {
  if (found.sub === null) {
    if (trial.phase === 'waiting') return found.lane;
    const batch: Batch = { ...commonOf(found.batch), phase: 'trial', trial };
    return putBatch(t, found.lane, batch);
  }
  return replaceSubBatch(t, found.lane, found.batch.id, { ...found.sub, trial });
}

/** CI reported on a tested commit: the batch (or sub-batch) passes, fails, or keeps waiting. */
export function handleChecksReported(t: Transition, input: ChecksReported): void {
  for (const found of locateTesting(t.state, input.sha)) {
    if (found.trial.phase !== 'testing') continue;
    const run = { ...found.trial.run, checks: mergeChecks(found.trial.run.checks, input.checks) };
    decideTrialResult(t, { ...found, trial: { ...found.trial, run } }, false);
  }
}

/** Judges a unit under test with its checks so far; `timedOut` turns "pending" into a failure. */
export function decideTrialResult(t: Transition, found: Located, timedOut: boolean): void {
  if (found.trial.phase !== 'testing') return;
  const { run, attempt } = found.trial;
  const rule = t.state.config.queue_rules.find((r) => r.name === found.batch.queueName);
  if (rule === undefined) return;
  const numbers = found.sub === null ? found.batch.numbers : found.batch.numbers.slice(0, found.sub.length);
  const result = computeBatchOutcome(t.state, { rule, numbers, checks: run.checks, now: t.now });
  const passed = result.outcome === 'passes' || result.waitingForSchedule;
  if (passed) {
    putTrial(t, found, { phase: 'passed', attempt, run, endedAt: t.nowIso });
    if (found.sub === null) {
      recordCiDuration(t, run);
      recordCiResult(t, true);
      observeRetry(t, found.batch, rule, true);
    }
    return;
  }
  if (result.outcome === 'pending' && !timedOut) {
    putTrial(t, found, { phase: 'testing', attempt, run });
    return;
  }
  const lane = putTrial(t, found, { phase: 'failed', attempt, run, endedAt: t.nowIso, timedOut });
  if (found.sub === null) {
    recordCiResult(t, false);
    observeRetry(t, found.batch, rule, false);
  }
  if (found.sub !== null) {
    // A probe's failure is final at once: its checks end now.
    const unit = computeSubBatchUnit(lane, found.batch, found.sub, run);
    emitChecksEnd(t, unit, numbers, {
      conclusion: timedOut ? 'timed_out' : 'failure',
      timedOut,
      checks: run.checks,
      abort: null,
      retry: null,
    });
  }
}

function recordCiResult(t: Transition, passed: boolean): void {
  t.state = { ...t.state, ciResults: [...t.state.ciResults, passed].slice(-RECENT_CI_RESULTS) };
}

function recordCiDuration(t: Transition, run: TestRun): void {
  const seconds = Math.max(1, Math.round((t.now.getTime() - Date.parse(run.startedAt)) / 1000));
  const ciDurations = [...t.state.ciDurations, seconds].slice(-RECENT_CI_DURATIONS);
  t.state = { ...t.state, ciDurations };
}

/** A retry the adaptive mode chose (beyond max_checks_retries) ended: what it teaches. */
function observeRetry(t: Transition, batch: Batch, rule: QueueRule, passed: boolean): void {
  if (!isAdaptive(t.state.config) || batch.numbers.length !== 1) return;
  if (batch.retries === 0 || batch.retries <= rule.max_checks_retries) return;
  t.state = recordSoloRetry(t.state, passed);
}
