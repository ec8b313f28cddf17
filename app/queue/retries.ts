import type { QueueRule } from '../config/config.schema.ts';
import { abortBatchesFrom } from './abort.ts';
import { decideAdaptiveRetry, describeSoloRetry } from './adaptive.ts';
import { requestTestBranch } from './embark.ts';
import { isFastForward } from './fast-forward.ts';
import type { Batch, Lane, QueueState, TestRun } from './state.ts';
import { computeBatchUnit, emitChecksEnd } from './tested-unit.ts';
import { commonOf, putBatch, type Transition } from './transition.ts';

/** Whether a failed batch is re-run before anything is isolated (max_checks_retries, or the adaptive mode's choice). */
export function decideRetry(state: QueueState, rule: QueueRule, batch: Batch): 'retry' | 'isolate' {
  if (batch.retries < rule.max_checks_retries) return 'retry';
  return decideAdaptiveRetry(state, batch) ? 'retry' : 'isolate';
}

/** Re-runs a failed batch on a fresh test branch (same pull requests, same parents). */
export function retryBatch(
  t: Transition,
  params: { lane: Lane; batch: Batch; run: TestRun; attempt: number; timedOut: boolean; rule: QueueRule },
): void {
  const { lane, batch, run, attempt, timedOut, rule } = params;
  const adaptive = batch.retries >= rule.max_checks_retries;
  const retry = { attempt: batch.retries + 1, max: adaptive ? batch.retries + 1 : rule.max_checks_retries };
  emitChecksEnd(t, computeBatchUnit(lane, batch, run), batch.numbers, {
    conclusion: timedOut ? 'timed_out' : 'failure',
    timedOut,
    checks: run.checks,
    abort: {
      code: 'CHECKS_RETRIED',
      reason: `${batch.name} ${timedOut ? 'timed out' : 'failed'}; retry ${retry.attempt} of ${retry.max}${adaptive ? ` (${describeSoloRetry(t.state)})` : ''}`,
      status: 'REEMBARKED',
    },
    retry,
  });
  const next: Batch = {
    ...commonOf(batch),
    retries: retry.attempt,
    phase: 'trial',
    trial: { phase: 'preparing', attempt: attempt + 1, failures: 0, retryAt: null },
  };
  let updated = putBatch(t, lane, next);
  // With fast-forward the batches behind were built on its tested commit, which the retry replaces.
  const builtOn = updated.batches.findIndex((b) => b.parentIds.includes(batch.id));
  if (isFastForward(t.state.config, batch.queueName) && builtOn >= 0) {
    const why = {
      code: 'BATCH_AHEAD_FAILED' as const,
      reason: `${batch.name}, ahead, is retried on a new tested commit`,
    };
    updated = abortBatchesFrom(t, { lane: updated, index: builtOn, first: why, behind: why });
  }
  requestTestBranch(t, { lane: updated, batch: next, attempt: attempt + 1 });
}
