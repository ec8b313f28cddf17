import { abortBatchesFrom, cancelRun, closeDraft } from './abort.ts';
import { abortBuiltOnFailed, isAside, planSuspects, returnOvertaken } from './aside.ts';
import { endSplitRoundIfDone } from './batch-events.ts';
import { startBisection } from './bisection.ts';
import { computeBatchOutcome } from './checks.ts';
import { leaveQueue } from './leave.ts';
import { toCheck } from './queue-events.ts';
import { repeatUntilDone } from './repeat.ts';
import { decideRetry, retryBatch } from './retries.ts';
import { findSplit, splitFailedBatch } from './split.ts';
import { describeStalledLeave } from './stall.ts';
import type { Batch, Lane, TestRun } from './state.ts';
import { computeBatchUnit, emitChecksEnd } from './tested-unit.ts';
import { currentLane, putLane, type Transition } from './transition.ts';

/** What happens to a failed batch once every batch ahead of it has passed. */
export type FailureOutcome = 'held' | 'skipped' | 'retried' | 'bisected' | 'split' | 'dropped';

/**
 * A failed batch is judged only when the batches it was built on have passed: until then the
 * failure may be theirs. With skip_intermediate_results, it also waits for the batches behind,
 * since one of them passing proves the failure transient. (Without bisect_aside the batches
 * ahead of a failed batch are exactly its parents, and the first failed batch holds the rest.)
 */
export function planFailures(t: Transition): void {
  abortBuiltOnFailed(t);
  for (const initial of t.state.lanes) {
    const judged = new Set<string>();
    // Each pass judges a failed batch of the lane not judged before, and judging adds no failed
    // batch (a retry keeps its id): at most one pass per batch, plus the one that finds none.
    const limit = currentLane(t, initial).batches.length + 1;
    repeatUntilDone('planFailures: failed batches of a lane', limit, () => {
      const lane = currentLane(t, initial);
      const index = lane.batches.findIndex(
        (b) => b.phase === 'trial' && b.trial.phase === 'failed' && !judged.has(b.id),
      );
      if (index < 0) return false;
      const batch = lane.batches[index]!;
      judged.add(batch.id);
      const ahead = lane.batches.slice(0, index).filter((b) => batch.parentIds.includes(b.id));
      const ready = ahead.every(
        (b) => b.phase === 'merging' || (b.phase === 'trial' && b.trial.phase === 'passed'),
      );
      const outcome = ready ? decideFailure(t, lane, index) : 'held';
      return outcome !== 'held' || isAside(t.state.config, batch);
    });
  }
  // A retried batch that passed after being overtaken cannot merge: its pull requests wait again.
  returnOvertaken(t);
  planSuspects(t);
}

function decideFailure(t: Transition, lane: Lane, index: number): FailureOutcome {
  const batch = lane.batches[index]!;
  if (batch.phase !== 'trial' || batch.trial.phase !== 'failed') return 'held';
  const { run, attempt, timedOut } = batch.trial;
  const behind = lane.batches.slice(index + 1);
  if (t.state.config.merge_queue.skip_intermediate_results) {
    const passedBehind = behind.findIndex((b) => b.phase === 'trial' && b.trial.phase === 'passed');
    if (passedBehind >= 0) return skipIntermediate(t, lane, index, index + 1 + passedBehind);
    if (
      behind.some(
        (b) => b.phase === 'trial' && (b.trial.phase === 'testing' || b.trial.phase === 'preparing'),
      )
    ) {
      return 'held';
    }
  }
  const rule = t.state.config.queue_rules.find((r) => r.name === batch.queueName);
  if (rule === undefined) return 'held';
  if (decideRetry(t.state, rule, batch) === 'retry') {
    retryBatch(t, { lane, batch, run, attempt, timedOut, rule });
    return 'retried';
  }
  const cap = rule.batch_max_failure_resolution_attempts;
  const bisect = batch.numbers.length > 1 && cap !== 0;
  // The failed batch's checks end first, then the batches built on it are aborted.
  endFailedChecks(t, { lane, batch, run, timedOut, status: bisect ? 'REEMBARKED' : 'DEFINITIVE' });
  if (batch.mode === 'draft') closeDraft(t, batch.id, run);
  if (batch.mode === 'in_place' && timedOut) cancelRun(t, batch.id, run);
  // Aside, the batches behind were not built on it (those that were are already aborted).
  const trimmed = isAside(t.state.config, batch)
    ? currentLane(t, lane)
    : abortBatchesFrom(t, {
        lane,
        index: index + 1,
        first: { code: 'BATCH_AHEAD_FAILED', reason: `${batch.name}, ahead, failed` },
        behind: { code: 'BATCH_AHEAD_FAILED', reason: `${batch.name}, ahead, failed` },
      });
  if (bisect) {
    const split = findSplit(t.state.config, batch);
    if (split !== null) {
      splitFailedBatch(t, trimmed, batch, split);
      return 'split';
    }
    startBisection(t, trimmed, batch, run);
    return 'bisected';
  }
  putLane(t, { ...trimmed, batches: trimmed.batches.filter((b) => b.id !== batch.id) });
  const code =
    batch.numbers.length > 1
      ? 'BATCH_MAX_FAILURE_RESOLUTION_ATTEMPTS'
      : timedOut
        ? 'CHECKS_TIMEOUT'
        : 'CHECKS_FAILED';
  const unsuccessful = run.checks.filter((c) => c.state !== 'success').map((c) => c.name);
  const detail = timedOut
    ? `checks of ${batch.name} did not finish in time`
    : `${batch.name} failed${unsuccessful.length > 0 ? `: ${unsuccessful.join(', ')}` : ''}`;
  // The leave shows why: the merge conditions as evaluated on the failed run.
  const { evaluations } = computeBatchOutcome(t.state, {
    rule,
    numbers: batch.numbers,
    checks: run.checks,
    now: t.now,
  });
  // A timeout the stall doctor saw coming: the leave names the missing check and its fix.
  const stalled = timedOut && run.stalled !== undefined ? describeStalledLeave(t.state, run) : undefined;
  for (const number of batch.numbers) {
    leaveQueue(t, number, {
      code,
      detail: stalled === undefined ? detail : `${detail}: ${stalled.message}`,
      evaluation: evaluations[String(number)] ?? null,
      checks: run.checks.map(toCheck),
      ...(stalled === undefined
        ? {}
        : { reason: { code: 'check_never_reported', nextAction: stalled.nextAction } }),
    });
  }
  endSplitRoundIfDone(t, trimmed, batch);
  return 'dropped';
}

function endFailedChecks(
  t: Transition,
  params: { lane: Lane; batch: Batch; run: TestRun; timedOut: boolean; status: 'DEFINITIVE' | 'REEMBARKED' },
): void {
  const { lane, batch, run, timedOut, status } = params;
  emitChecksEnd(t, computeBatchUnit(lane, batch, run), batch.numbers, {
    conclusion: timedOut ? 'timed_out' : 'failure',
    timedOut,
    checks: run.checks,
    abort: {
      code: timedOut ? 'CHECKS_TIMEOUT' : 'CHECKS_FAILED',
      reason: `${batch.name} ${timedOut ? 'timed out' : 'failed'}`,
      status,
    },
    retry: null,
  });
}

/** A later batch holding these pull requests passed: the earlier failures were transient. */
function skipIntermediate(t: Transition, lane: Lane, from: number, passed: number): FailureOutcome {
  const batches = lane.batches.map((b, i): Batch => {
    if (i < from || i >= passed || b.phase !== 'trial' || b.trial.phase !== 'failed') return b;
    return {
      ...b,
      trial: { phase: 'passed', attempt: b.trial.attempt, run: b.trial.run, endedAt: t.nowIso },
    };
  });
  putLane(t, { ...lane, batches });
  return 'skipped';
}
