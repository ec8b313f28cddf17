import type { LeaveCode } from '../../shared/schemas/event-outcome.ts';
import { abortBatchesFrom } from './abort.ts';
import { findStartAhead, isFastForward } from './fast-forward.ts';
import type { TestBranchFailed, TestBranchFailure } from './inputs.ts';
import { leaveQueue } from './leave.ts';
import { type Located, locateUnit } from './locate.ts';
import { checksNotStartedEvent, emit } from './queue-events.ts';
import { putTrial } from './results.ts';
import { findSession, putSession, type Transition } from './transition.ts';

/** Test branches are asked for this many times before their pull requests give up. */
export const MAX_PREPARATION_ATTEMPTS = 3;
const BACKOFF_SECONDS = 30;

const LEAVE_CODES: Record<
  Exclude<TestBranchFailure, 'conflict_with_base' | 'conflict_with_pull_request'>,
  LeaveCode
> = {
  draft_pull_request_creation_failed: 'DRAFT_PULL_REQUEST_CREATION_FAILED',
  branch_not_indexed: 'DRAFT_PULL_REQUEST_CREATION_BRANCH_NOT_INDEXED',
  branch_update_failed: 'BRANCH_UPDATE_FAILED',
};

/** The test branch (or in-place update) could not be made. */
export function handleTestBranchFailed(t: Transition, input: TestBranchFailed): void {
  const found = locateUnit(t.state, input.batchId);
  if (found === undefined || found.trial.phase !== 'preparing' || found.trial.attempt !== input.attempt)
    return;
  const numbers = found.sub === null ? found.batch.numbers : found.batch.numbers.slice(0, found.sub.length);
  const tested = [...found.batch.parentNumbers, ...numbers];
  const culprit =
    input.pullRequest !== null && tested.includes(input.pullRequest) ? input.pullRequest : numbers[0]!;
  const ahead = tested.slice(0, tested.indexOf(culprit));
  // Built on the tested commit of the batch ahead (fast-forward), the first pull request meets
  // those ahead too: GitHub's merge does not say which of them, or the base, it conflicts with.
  const reason =
    input.reason === 'conflict_with_base' && ahead.length > 0 && isBuiltOnAhead(t, found)
      ? 'conflict_with_pull_request'
      : input.reason;
  switch (reason) {
    case 'conflict_with_base':
      leaveQueue(t, culprit, { code: 'CONFLICT_WITH_BASE_BRANCH', detail: input.message });
      return;
    case 'conflict_with_pull_request':
      if (ahead.length === 0)
        leaveQueue(t, culprit, { code: 'CONFLICT_WITH_BASE_BRANCH', detail: input.message });
      else holdBehindConflict(t, { found, culprit, ahead, message: input.message });
      return;
    default:
      retryPreparation(t, { found, numbers, code: LEAVE_CODES[reason], message: input.message });
  }
}

function isBuiltOnAhead(t: Transition, found: Located): boolean {
  if (!isFastForward(t.state.config, found.batch.queueName)) return false;
  return typeof findStartAhead(found.lane, found.batch) === 'object';
}

/** CONFLICT_WITH_PULL_AHEAD: the pull request waits until those ahead of it have left. */
function holdBehindConflict(
  t: Transition,
  params: { found: Located; culprit: number; ahead: number[]; message: string },
): void {
  const { found, culprit, ahead, message } = params;
  const session = findSession(t.state, culprit);
  if (session !== undefined) putSession(t, { ...session, waitingForAhead: ahead });
  const index = found.lane.batches.findIndex((b) => b.id === found.batch.id);
  abortBatchesFrom(t, {
    lane: found.lane,
    index,
    first: {
      code: 'CONFLICT_WITH_PULL_AHEAD',
      reason: `#${culprit} conflicts with a pull request ahead: ${message}`,
    },
    behind: { code: 'PR_AHEAD_DEQUEUED', reason: `#${culprit}, ahead, waits for a conflict to clear` },
  });
}

/** checks_not_started, then a retry with back-off; after a few attempts the pull requests leave. */
function retryPreparation(
  t: Transition,
  params: { found: Located; numbers: number[]; code: LeaveCode; message: string },
): void {
  const { found, numbers, code, message } = params;
  if (found.trial.phase !== 'preparing') return;
  for (const number of numbers) {
    const session = findSession(t.state, number);
    if (session !== undefined)
      emit(t, checksNotStartedEvent(t, session, found.lane.partition, `${code}: ${message}`));
  }
  const failures = found.trial.failures + 1;
  if (failures < MAX_PREPARATION_ATTEMPTS) {
    const retryAt = new Date(t.now.getTime() + BACKOFF_SECONDS * 1000 * 2 ** (failures - 1)).toISOString();
    putTrial(t, found, { ...found.trial, failures, retryAt });
    return;
  }
  if (found.sub !== null) {
    // A probe that cannot be built says nothing about its prefix: start again from waiting.
    const index = found.lane.batches.findIndex((b) => b.id === found.batch.id);
    const reason = { code: 'DRAFT_PULL_REQUEST_CREATION_FAILED' as const, reason: message };
    abortBatchesFrom(t, { lane: found.lane, index, first: reason, behind: reason });
    return;
  }
  for (const number of numbers) leaveQueue(t, number, { code, detail: message });
}
