import type { EventToAppend } from '../../../app/store/events.ts';
import type { EventType } from '../../../shared/schemas/event-types.ts';
import { exampleMetadata } from '../../support/event-examples.ts';

/*
 * Hand-written event histories for the statistics tests: valid metadata (from the examples)
 * with the fields that matter overridden. Times are ISO strings or Dates.
 */

export interface Who {
  branch?: string;
  partition?: string | null;
  queue?: string;
  priority?: string | null;
}

export type When = string | Date;

const d = (w: When) => (typeof w === 'string' ? new Date(w) : w);
const isoOf = (w: When) => d(w).toISOString();

let uuidCounter = 0;
/** A fresh uuid-shaped id (deterministic within a process). */
export function sessionUuid(): string {
  uuidCounter += 1;
  const hex = uuidCounter.toString(16).padStart(12, '0');
  return `00000000-0000-4000-8000-${hex}`;
}

export class History {
  readonly events: EventToAppend[] = [];

  private push(type: EventType, at: When, pr: number | null, branch: string | null, metadata: object) {
    this.events.push({
      type,
      receivedAt: d(at),
      trigger: 'Rule: default',
      pullRequest: pr,
      baseRef: branch,
      metadata: { ...(exampleMetadata(type) as object), ...metadata } as Record<string, unknown>,
    });
    return this;
  }

  private keys(w: Who, nullablePartition = false) {
    return {
      branch: w.branch ?? 'main',
      partition_name:
        w.partition === undefined
          ? '__default__'
          : (w.partition ?? (nullablePartition ? null : '__default__')),
      queue_name: w.queue ?? 'default',
      priority_rule_name: w.priority === undefined ? 'default' : w.priority,
    };
  }

  enter(at: When, o: Who & { pr?: number; session: string; queuedAt?: When }) {
    return this.push('action.queue.enter', at, o.pr ?? 1, o.branch ?? 'main', {
      ...this.keys(o, true),
      queued_at: isoOf(o.queuedAt ?? at),
      session_id: o.session,
    });
  }

  leave(
    at: When,
    o: Who & {
      pr?: number;
      session: string | null;
      queuedAt: When;
      code: string;
      freeze?: number;
      schedule?: number;
    },
  ) {
    const merged = o.code === 'PR_MERGED';
    return this.push('action.queue.leave', at, o.pr ?? 1, o.branch ?? 'main', {
      ...this.keys(o),
      reason: `${o.code}: because`,
      merged,
      queued_at: isoOf(o.queuedAt),
      seconds_waiting_for_freeze: o.freeze ?? 0,
      seconds_waiting_for_schedule: o.schedule ?? 0,
      session_id: o.session,
    });
  }

  merged(at: When, o: Who & { pr?: number; session: string; partitions?: string[]; queuedAt?: When }) {
    const k = this.keys(o);
    return this.push('action.queue.merged', at, o.pr ?? 1, o.branch ?? 'main', {
      branch: k.branch,
      queue_name: k.queue_name,
      priority_rule_name: k.priority_rule_name,
      partition_names: o.partitions ?? ['__default__'],
      queued_at: isoOf(o.queuedAt ?? at),
      session_id: o.session,
    });
  }

  checksStart(at: When, o: Who & { pr?: number; session: string; prs?: number[]; batch?: string | null }) {
    return this.push('action.queue.checks_start', at, o.pr ?? 1, o.branch ?? 'main', {
      ...this.keys(o, true),
      checks_started_at: isoOf(at),
      checks_ended_at: null,
      pull_request_numbers: o.prs ?? [o.pr ?? 1],
      train_car_id: o.batch === undefined ? sessionUuid() : o.batch,
      session_id: o.session,
    });
  }

  checksEnd(
    at: When,
    o: Who & {
      pr?: number;
      session: string;
      startedAt?: When | null;
      outcome?: 'success' | 'failure' | 'timeout' | { abort: string };
      retry?: number | null;
    },
  ) {
    const outcome = o.outcome ?? 'success';
    const abort = typeof outcome === 'object' ? outcome.abort : null;
    return this.push('action.queue.checks_end', at, o.pr ?? 1, o.branch ?? 'main', {
      ...this.keys(o),
      aborted: abort !== null,
      abort_code: abort,
      abort_reason: abort === null ? null : 'aborted',
      abort_status: abort === null ? null : 'REEMBARKED',
      checks_timed_out: outcome === 'timeout',
      checks_conclusion: outcome === 'success' ? 'success' : outcome === 'timeout' ? 'timed_out' : 'failure',
      checks_started_at: o.startedAt === null ? null : isoOf(o.startedAt ?? at),
      checks_ended_at: isoOf(at),
      retry_attempt: o.retry ?? null,
      session_id: o.session,
    });
  }

  queueSize(at: When, size: number, o: Who = {}) {
    const k = this.keys(o);
    return this.push('action.queue.change', at, null, k.branch, {
      queue_name: k.queue_name,
      partition_name: k.partition_name,
      priority_rule_name: k.priority_rule_name,
      size,
    });
  }

  running(at: When, running: number, o: Who = {}) {
    const k = this.keys(o);
    return this.push('action.queue.checks.change', at, null, k.branch, {
      queue_name: k.queue_name,
      partition_name: k.partition_name,
      running_checks: running,
    });
  }

  bisectionStart(at: When, o: Who & { depth: number; size: number; session: string }) {
    const k = this.keys(o);
    return this.push('action.queue.batch_bisection_start', at, null, k.branch, {
      queue_name: k.queue_name,
      partition_name: k.partition_name,
      priority_rule_name: k.priority_rule_name,
      bisection_depth: o.depth,
      batch_size_before_split: o.size,
      session_id: o.session,
    });
  }

  bisectionEnd(at: When, o: Who & { culprit: boolean; maxReached: boolean; session: string }) {
    const k = this.keys(o);
    return this.push('action.queue.batch_bisection_end', at, null, k.branch, {
      queue_name: k.queue_name,
      partition_name: k.partition_name,
      priority_rule_name: k.priority_rule_name,
      culprit_found: o.culprit,
      max_failure_resolution_reached: o.maxReached,
      session_id: o.session,
    });
  }

  /** Any other event (ignored by the statistics). */
  other(at: When, type: EventType = 'action.comment') {
    return this.push(type, at, 7, 'main', {});
  }
}
