import type { LeaveCode } from '../../shared/schemas/event-outcome.ts';
import type { AbortCode, Check } from '../../shared/schemas/event-parts.schema.ts';
import type { QueueReasonCode } from '../../shared/schemas/queue-reason.schema.ts';
import { computeConditionsOutcome, type EvaluationTree } from '../config/conditions/evaluate-conditions.ts';
import { abortBatchesFrom } from './abort.ts';
import { dropCheckRun, nextCheckRunVersion } from './check-runs.ts';
import { computeFacts } from './facts.ts';
import { describeLeave } from './leave-reason.ts';
import { emit, headChecks, leaveEvent } from './queue-events.ts';
import type { Session } from './state.ts';
import { dropSession, findSession, lanesOf, type Transition } from './transition.ts';

export interface Leave {
  code: LeaveCode;
  detail?: string;
  merged?: boolean;
  /** Defaults to the queue conditions evaluated now. */
  evaluation?: EvaluationTree | null;
  /** Defaults to the checks on the pull request's head. */
  checks?: Check[];
  /** Why, in the reasons' vocabulary, when the leave code alone says less (leave-reason.ts). */
  reason?: { code: QueueReasonCode; nextAction: string | null };
}

/**
 * Ends a session: aborts what it is embarked in (the batches behind were built on it), emits
 * `action.queue.leave`, completes its check run. The gauges follow at the end of the step.
 */
export function leaveQueue(t: Transition, number: number, leave: Leave): void {
  const session = findSession(t.state, number);
  if (session === undefined) return;
  releaseFromLanes(t, session, leave);
  const pr = t.state.pullRequests[String(number)];
  emit(
    t,
    leaveEvent(t, session, {
      code: leave.code,
      ...(leave.detail === undefined ? {} : { detail: leave.detail }),
      ...describeLeave(leave),
      merged: leave.merged ?? false,
      evaluation: leave.evaluation === undefined ? queueConditionsEvaluation(t, session) : leave.evaluation,
      checks: leave.checks ?? headChecks(pr),
      headSha: pr?.headSha ?? session.headSha,
    }),
  );
  publishLeaveCheckRun(t, session, leave);
  dropSession(t, number);
  dropCheckRun(t, number);
}

function releaseFromLanes(t: Transition, session: Session, leave: Leave): void {
  const code: AbortCode = leave.code === 'PR_MERGED' ? 'PR_DEQUEUED' : leave.code;
  for (const lane of lanesOf(t.state, session)) {
    // A pull request merged from a merging batch is done there: nothing to abort.
    const index = lane.batches.findIndex(
      (b) =>
        b.numbers.includes(session.number) && !(b.phase === 'merging' && b.merged.includes(session.number)),
    );
    if (index < 0) continue;
    abortBatchesFrom(t, {
      lane,
      index,
      first: { code, reason: `#${session.number} left the queue (${code})` },
      behind: { code: 'PR_AHEAD_DEQUEUED', reason: `#${session.number}, ahead, left the queue` },
      leaving: new Set([session.number]),
    });
  }
}

function queueConditionsEvaluation(t: Transition, session: Session): EvaluationTree | null {
  const rule = t.state.config.queue_rules.find((r) => r.name === session.queueName);
  const pr = t.state.pullRequests[String(session.number)];
  if (rule === undefined || pr === undefined) return null;
  return computeConditionsOutcome(rule.queue_conditions, computeFacts(pr), t.now).evaluation;
}

function publishLeaveCheckRun(t: Transition, session: Session, leave: Leave): void {
  const merged = leave.merged ?? false;
  const version = nextCheckRunVersion(t, session.number);
  t.effects.push({
    type: 'publish_check_run',
    key: `publish_check_run:${session.sessionId}:${version}`,
    number: session.number,
    headSha: t.state.pullRequests[String(session.number)]?.headSha ?? session.headSha,
    status: 'completed',
    conclusion: merged ? 'success' : leave.code === 'PR_MANUALLY_DEQUEUED' ? 'cancelled' : 'failure',
    details: {
      kind: 'left',
      merged,
      code: leave.code,
      detail: leave.detail ?? null,
      nextAction: describeLeave(leave).next_action,
    },
  });
}
