import type { QueueRule } from '../config/config.schema.ts';
import { requestTestBranch } from './embark.ts';
import type { Batch, Lane, TestRun } from './state.ts';
import { computeBatchUnit, emitChecksEnd } from './tested-unit.ts';
import { commonOf, putBatch, type Transition } from './transition.ts';

/** Whether a failed batch is re-run before anything is isolated. */
export function decideRetry(rule: QueueRule, batch: Batch): 'retry' | 'isolate' {
  return batch.retries < rule.max_checks_retries ? 'retry' : 'isolate';
}

/** Re-runs a failed batch on a fresh test branch (same pull requests, same parents). */
export function retryBatch(
  t: Transition,
  params: { lane: Lane; batch: Batch; run: TestRun; attempt: number; timedOut: boolean; rule: QueueRule },
): void {
  const { lane, batch, run, attempt, timedOut, rule } = params;
  const retry = { attempt: batch.retries + 1, max: rule.max_checks_retries };
  emitChecksEnd(t, computeBatchUnit(lane, batch, run), batch.numbers, {
    conclusion: timedOut ? 'timed_out' : 'failure',
    timedOut,
    checks: run.checks,
    abort: {
      code: 'CHECKS_RETRIED',
      reason: `${batch.name} ${timedOut ? 'timed out' : 'failed'}; retry ${retry.attempt} of ${retry.max}`,
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
  const updated = putBatch(t, lane, next);
  requestTestBranch(t, { lane: updated, batch: next, attempt: attempt + 1 });
}
