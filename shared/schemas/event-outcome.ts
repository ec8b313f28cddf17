import type { EventMetadata, EventOutcome } from './event.schema.ts';
import { abortCodes, type checksConclusions } from './event-parts.schema.ts';
import type { EventType } from './event-types.ts';

/*
 * `outcome` of an event (docs/api.md, "The event log"): not stored, computed from the type and
 * the metadata each time an event is shown.
 */

/** Codes an `action.queue.leave` reason starts with: `PR_MERGED` or an abort code. */
export const leaveCodes = ['PR_MERGED', ...abortCodes] as const;

export type LeaveCode = (typeof leaveCodes)[number];

/**
 * Leave codes that mean the pull request left because something failed (its checks, its
 * merge, its branch, its draft pull request, or bisection gave up), as opposed to leaving
 * because of a person (dequeue, close, manual merge, new push) or a configuration change.
 */
export const failureLeaveCodes: ReadonlySet<LeaveCode> = new Set<LeaveCode>([
  'CHECKS_FAILED',
  'CHECKS_TIMEOUT',
  'CONFLICT_WITH_BASE_BRANCH',
  'CONFLICT_WITH_PULL_AHEAD',
  'BRANCH_UPDATE_FAILED',
  'PR_UNEXPECTEDLY_FAILED_TO_MERGE',
  'BATCH_MAX_FAILURE_RESOLUTION_ATTEMPTS',
  'DRAFT_PULL_REQUEST_CREATION_FAILED',
  'DRAFT_PULL_REQUEST_CREATION_BRANCH_NOT_INDEXED',
  'INCOMPATIBILITY_WITH_BRANCH_PROTECTIONS',
  'UNPROCESSABLE_PULL_REQUEST',
]);

const leaveCodeSet: ReadonlySet<string> = new Set(leaveCodes);
const leadingCode = /^([A-Z][A-Z0-9_]*)(?:$|: )/;

/**
 * The convention for the free-text `reason` of `action.queue.leave`: it starts with the leave
 * code, alone or followed by `": "` and a human explanation —
 * `"CHECKS_FAILED: 2 required checks failed on batch #12"`, `"PR_MERGED"`. Build it with
 * {@link renderLeaveReason}. Statistics (`queues_pr_exit_reasons`) and the outcome read the
 * code back with {@link leaveReasonCode}.
 */
export function renderLeaveReason(code: LeaveCode, detail?: string): string {
  return detail ? `${code}: ${detail}` : code;
}

/**
 * The leave code a `reason` starts with (see {@link renderLeaveReason}), or null when it does
 * not start with a known code in upper case followed by the end of the text or `": "`.
 */
export function leaveReasonCode(reason: string): LeaveCode | null {
  const code = leadingCode.exec(reason)?.[1];
  return code !== undefined && leaveCodeSet.has(code) ? (code as LeaveCode) : null;
}

const failedConclusions: ReadonlySet<(typeof checksConclusions)[number]> = new Set([
  'failure',
  'timed_out',
  'error',
]);

function checksEndOutcome(metadata: EventMetadata<'action.queue.checks_end'>): EventOutcome {
  // Failed checks count as failed even when the end is an abort for a retry (CHECKS_RETRIED).
  const failed =
    metadata.checks_timed_out ||
    failedConclusions.has(metadata.checks_conclusion) ||
    metadata.abort_code === 'CHECKS_FAILED' ||
    metadata.abort_code === 'CHECKS_TIMEOUT';
  if (failed) return 'failure';
  return !metadata.aborted && metadata.checks_conclusion === 'success' ? 'success' : 'neutral';
}

function leaveOutcome(metadata: EventMetadata<'action.queue.leave'>): EventOutcome {
  if (metadata.merged) return 'success';
  const code = leaveReasonCode(metadata.reason);
  return code !== null && failureLeaveCodes.has(code) ? 'failure' : 'neutral';
}

type TypedMetadata = { [T in EventType]: { type: T; metadata: EventMetadata<T> } }[EventType];

function outcomeOf(event: TypedMetadata): EventOutcome {
  switch (event.type) {
    case 'action.queue.merged':
      return 'success';
    case 'action.queue.leave':
      return leaveOutcome(event.metadata);
    case 'action.queue.checks_end':
      return checksEndOutcome(event.metadata);
    case 'action.post_check':
      // GitHub's check-run vocabulary: lower case `success`.
      return event.metadata.conclusion === 'success' ? 'success' : 'neutral';
    case 'action.queue.checks_not_started':
      return 'failure';
    case 'action.queue.batch_bisection_end':
      return event.metadata.culprit_found ? 'failure' : 'neutral';
    case 'action.queue.enter':
    case 'action.queue.checks_start':
    case 'action.queue.batch_bisection_start':
      return 'pending';
    default:
      return 'neutral';
  }
}

/**
 * The API's `outcome` rule (docs/api.md, "Event types and metadata"): merged, leave with
 * `merged: true`, passed checks_end and successful post_check ⇒ success; failed or timed-out
 * checks_end, leave for a failure code, checks_not_started and a bisection that found a culprit
 * ⇒ failure; enter, checks_start and bisection start ⇒ pending; everything else ⇒ neutral.
 */
export function computeOutcome<T extends EventType>(type: T, metadata: EventMetadata<T>): EventOutcome {
  return outcomeOf({ type, metadata } as TypedMetadata);
}
