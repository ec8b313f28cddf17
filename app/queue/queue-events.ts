import { DEFAULT_PARTITION_NAME } from '../../shared/schemas/default-names.ts';
import type { NewEvent, NewEventOf } from '../../shared/schemas/event.schema.ts';
import { type LeaveCode, renderLeaveReason } from '../../shared/schemas/event-outcome.ts';
import {
  type AbortCode,
  type Check,
  type ConditionEvaluation,
  checkStates,
} from '../../shared/schemas/event-parts.schema.ts';
import type { QueueReasonCode } from '../../shared/schemas/queue-reason.schema.ts';
import type { EvaluationTree } from '../config/conditions/evaluate-conditions.ts';
import type { CheckReport, PullRequestSnapshot } from './inputs.ts';
import type { Session } from './state.ts';
import { secondsBetween, type Transition } from './transition.ts';

/*
 * Builders of the events the engine emits, with complete metadata (the schemas of
 * shared/schemas/event-queue.schema.ts). Every builder takes the transition for `now`; `emit`
 * appends in order.
 */

type Checks = NewEventOf<'action.queue.checks_end'>['metadata']['checks_conclusion'];

/** What the check-run fields of checks_start / checks_end describe: one test of one batch. */
export interface TestedUnit {
  trainCarId: string;
  /** Parents' pull requests then the batch's own, as tested together. */
  pullRequestNumbers: number[];
  speculativeNumber: number;
  inPlace: boolean;
  startedAt: string | null;
  partition: string;
}

export interface ChecksEnding {
  conclusion: Checks;
  timedOut: boolean;
  checks: CheckReport[];
  abort: { code: AbortCode; reason: string; status: 'DEFINITIVE' | 'REEMBARKED' } | null;
  retry: { attempt: number; max: number } | null;
}

export function emit(t: Transition, event: NewEvent): void {
  t.events.push(event);
}

export function envelope<T extends NewEvent['type']>(
  t: Transition,
  type: T,
  pr: { number: number | null; base: string | null; trigger: string },
  metadata: NewEventOf<T>['metadata'],
): NewEvent {
  return {
    type,
    metadata,
    trigger: pr.trigger,
    pull_request: pr.number,
    base_ref: pr.base,
    received_at: t.nowIso,
  } as NewEvent;
}

const ruleTrigger = (s: Session) => `Rule: ${s.queueName}`;
const subject = (s: Session) => ({ number: s.number, base: s.base, trigger: ruleTrigger(s) });

export function toCheck(report: CheckReport): Check {
  return {
    name: report.name,
    description: report.description,
    url: report.url,
    state: checkStates.includes(report.state) ? report.state : 'neutral',
    avatar_url: report.avatarUrl,
  };
}

export function headChecks(pr: PullRequestSnapshot | undefined): Check[] {
  return (pr?.checkRuns ?? []).map((run) => ({
    name: run.name,
    description: '',
    url: null,
    state: run.state,
    avatar_url: null,
  }));
}

/** The evaluation tree of app/config as the event log's ConditionEvaluation. */
export function toConditionEvaluation(tree: EvaluationTree): ConditionEvaluation {
  return {
    match: tree.match,
    label: tree.label,
    is_label_user_input: tree.is_label_user_input,
    description: tree.description,
    attribute_name: tree.attribute_name,
    operator: tree.operator,
    schedule: tree.schedule === null ? null : { ...tree.schedule },
    subconditions: tree.subconditions.map(toConditionEvaluation),
    evaluations: [],
  };
}

export function enterEvent(t: Transition, s: Session): NewEvent {
  return envelope(t, 'action.queue.enter', subject(s), {
    queue_name: s.queueName,
    branch: s.base,
    queued_at: s.queuedAt,
    partition_name: s.partitions[0] ?? null,
    priority_rule_name: s.priorityRuleName,
    session_id: s.sessionId,
  });
}

export interface LeaveDetails {
  code: LeaveCode;
  detail?: string;
  /** The reasons' vocabulary (leave-reason.ts). */
  reason_code: QueueReasonCode;
  next_action: string | null;
  merged: boolean;
  evaluation: EvaluationTree | null;
  checks: Check[];
  headSha: string;
}

export function leaveEvent(t: Transition, s: Session, leave: LeaveDetails): NewEvent {
  const held = (h: Session['freeze']) =>
    h === undefined ? 0 : h.seconds + (h.since === null ? 0 : secondsBetween(h.since, t.now));
  return envelope(t, 'action.queue.leave', subject(s), {
    reason: renderLeaveReason(leave.code, leave.detail),
    reason_code: leave.reason_code,
    next_action: leave.next_action,
    merged: leave.merged,
    queue_name: s.queueName,
    branch: s.base,
    partition_name: s.partitions[0] ?? DEFAULT_PARTITION_NAME,
    queued_at: s.queuedAt,
    seconds_waiting_for_schedule: held(s.schedule),
    seconds_waiting_for_freeze: held(s.freeze),
    priority_rule_name: s.priorityRuleName,
    conditions_evaluation: leave.evaluation === null ? null : toConditionEvaluation(leave.evaluation),
    checks: leave.checks,
    pull_request_head_sha: leave.headSha,
    session_id: s.sessionId,
  });
}

export function mergedEvent(t: Transition, s: Session): NewEvent {
  return envelope(t, 'action.queue.merged', subject(s), {
    branch: s.base,
    partition_names: s.partitions,
    queue_name: s.queueName,
    queued_at: s.queuedAt,
    priority_rule_name: s.priorityRuleName,
    session_id: s.sessionId,
  });
}

function checkRunFields(unit: TestedUnit, s: Session) {
  return {
    speculative_check_pull_request: { number: unit.speculativeNumber, in_place: unit.inPlace },
    pull_request_numbers: unit.pullRequestNumbers,
    train_car_id: unit.trainCarId,
    session_id: s.sessionId,
  };
}

export function checksStartEvent(t: Transition, s: Session, unit: TestedUnit, reason: string): NewEvent {
  return envelope(t, 'action.queue.checks_start', subject(s), {
    branch: s.base,
    partition_name: unit.partition,
    priority_rule_name: s.priorityRuleName,
    queue_name: s.queueName,
    queued_at: s.queuedAt,
    start_reason: reason,
    checks_timed_out: false,
    checks_conclusion: 'pending',
    checks_started_at: unit.startedAt,
    checks_ended_at: null,
    unsuccessful_checks: [],
    ...checkRunFields(unit, s),
  });
}

export function checksEndEvent(t: Transition, s: Session, unit: TestedUnit, end: ChecksEnding): NewEvent {
  return envelope(t, 'action.queue.checks_end', subject(s), {
    aborted: end.abort !== null,
    abort_code: end.abort?.code ?? null,
    abort_reason: end.abort?.reason ?? null,
    abort_status: end.abort?.status ?? null,
    branch: s.base,
    partition_name: unit.partition,
    priority_rule_name: s.priorityRuleName,
    queue_name: s.queueName,
    queued_at: s.queuedAt,
    retry_attempt: end.retry?.attempt ?? null,
    max_retries: end.retry?.max ?? null,
    checks_timed_out: end.timedOut,
    checks_conclusion: end.conclusion,
    checks_started_at: unit.startedAt,
    checks_ended_at: t.nowIso,
    unsuccessful_checks: end.checks.filter((c) => c.state !== 'success').map(toCheck),
    ...checkRunFields(unit, s),
  });
}

export function checksNotStartedEvent(
  t: Transition,
  s: Session,
  partition: string,
  reason: string,
): NewEvent {
  return envelope(t, 'action.queue.checks_not_started', subject(s), {
    branch: s.base,
    partition_name: partition,
    priority_rule_name: s.priorityRuleName,
    queue_name: s.queueName,
    queued_at: s.queuedAt,
    reason,
    session_id: s.sessionId,
  });
}

export function freezeEvent(t: Transition, event: NewEvent): NewEvent {
  return { ...event, received_at: t.nowIso };
}

/** The stall doctor found required checks missing on a tested commit (stall.ts). */
export function stalledEvent(
  t: Transition,
  s: Session,
  stall: {
    partition: string;
    trainCarId: string;
    startedAt: string;
    afterSeconds: number;
    diagnoses: readonly { check: string; reportsOnHeads: number[]; message: string; nextAction: string }[];
  },
): NewEvent {
  return envelope(t, 'action.queue.checks_stalled', subject(s), {
    branch: s.base,
    partition_name: stall.partition,
    priority_rule_name: s.priorityRuleName,
    queue_name: s.queueName,
    queued_at: s.queuedAt,
    train_car_id: stall.trainCarId,
    checks_started_at: stall.startedAt,
    stalled_after_seconds: stall.afterSeconds,
    missing_checks: stall.diagnoses.map((d) => ({
      name: d.check,
      reported_on_pull_requests: d.reportsOnHeads,
      message: d.message,
      next_action: d.nextAction,
    })),
    session_id: s.sessionId,
  });
}
