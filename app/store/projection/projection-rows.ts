import { DEFAULT_PARTITION_NAME } from '../../../shared/schemas/default-names.ts';
import { leaveReasonCode } from '../../../shared/schemas/event-outcome.ts';
import type { EventToAppend } from './event-to-append.ts';

/*
 * The statistics projections, derived from events alone (pure): what `appendEvents` writes
 * next to the events, and what `trainyard stats rebuild` replays. Group keys are never null:
 * a missing partition or priority rule is DEFAULT_KEY, a missing base ref ''.
 */

/**
 * Placeholder for a null partition name or a null priority rule name: the name of the partition
 * of a queue without partition rules, for priority rules too (the statistics' own key, unlike
 * the status resource's `default`).
 */
export const DEFAULT_KEY = DEFAULT_PARTITION_NAME;

export interface GroupKeys {
  base_ref: string;
  partition_name: string;
  queue_name: string;
  priority_rule_name: string;
}

export interface EnterRow extends GroupKeys {
  at: Date;
}

export interface MergeRow {
  at: Date;
  base_ref: string;
  partition_names: string[];
  queue_name: string;
  priority_rule_name: string;
}

export interface CheckRow extends GroupKeys {
  at: Date;
  outcome: string;
  runtime: number | null;
}

export interface BatchRow extends GroupKeys {
  at: Date;
  /** `<train car id>@<time>`; null for a checks_start without a train car: keyed by its event. */
  run_key: string | null;
  /** Position of the checks_start in the append (from 1): `event:<its id>` when run_key is null. */
  n: number;
  size: number;
}

export interface BisectionRow extends GroupKeys {
  at: Date;
  kind: 's' | 'e';
  depth: number | null;
  size_before_split: number | null;
  culprit_found: boolean | null;
  max_failure_reached: boolean | null;
}

export interface GaugeRow extends GroupKeys {
  /** Position of the reading's event in the append (from 1); its id is resolved in SQL. */
  n: number;
  at: Date;
  kind: 'q' | 'r';
  value: number;
}

/** What the events of one append say about one session; merged into the stored row in order. */
export interface SessionDelta {
  /** The session id; null for a leave without one, keyed by its event: `event:<id of event n>`. */
  session_key: string | null;
  /** Position of that leave in the append (from 1) when session_key is null. */
  n: number | null;
  /** Keys of the leave when it is in this delta, else of the enter, else null. */
  keys: GroupKeys | null;
  queued_at: Date | null;
  first_checks_at: Date | null;
  left_at: Date | null;
  merged: boolean | null;
  exit_code: string | null;
  seconds_freeze: number | null;
  seconds_schedule: number | null;
  retries: number;
  max_retry_attempt: number;
  last_checks_outcome: string | null;
}

export interface ProjectionRows {
  enters: EnterRow[];
  merges: MergeRow[];
  checks: CheckRow[];
  batches: BatchRow[];
  bisections: BisectionRow[];
  gauges: GaugeRow[];
  sessions: SessionDelta[];
}

type Metadata = Record<string, unknown>;

const str = (m: Metadata, key: string): string | null => {
  const v = m[key];
  return typeof v === 'string' ? v : null;
};
const int = (m: Metadata, key: string): number | null => {
  const v = m[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
};
const date = (m: Metadata, key: string): Date | null => {
  const v = str(m, key);
  if (v === null) return null;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? null : d;
};

/** Base ref of an event: its metadata's `branch`, else the event's base ref, else ''. */
export function baseRefOf(event: Pick<EventToAppend, 'baseRef' | 'metadata'>): string {
  return str(event.metadata, 'branch') ?? event.baseRef ?? '';
}

function keysOf(event: EventToAppend): GroupKeys {
  const m = event.metadata;
  return {
    base_ref: baseRefOf(event),
    partition_name: str(m, 'partition_name') ?? DEFAULT_KEY,
    queue_name: str(m, 'queue_name') ?? '',
    priority_rule_name: str(m, 'priority_rule_name') ?? DEFAULT_KEY,
  };
}

const passingConclusions = new Set(['success', 'neutral', 'skipped']);

/**
 * How checks ended: the abort code when aborted; else CHECKS_TIMEOUT when timed out; else
 * SUCCESS for a success, neutral or skipped conclusion; else CHECKS_FAILED.
 */
export function checksOutcome(m: Metadata): string {
  const code = str(m, 'abort_code');
  if (code !== null) return code;
  if (m['checks_timed_out'] === true) return 'CHECKS_TIMEOUT';
  return passingConclusions.has(str(m, 'checks_conclusion') ?? '') ? 'SUCCESS' : 'CHECKS_FAILED';
}

/** CI runtime of a checks_end (seconds): ended − started, when both are known. */
export function checksRuntime(m: Metadata): number | null {
  const started = date(m, 'checks_started_at');
  const ended = date(m, 'checks_ended_at');
  if (started === null || ended === null) return null;
  return Math.max(0, (ended.getTime() - started.getTime()) / 1000);
}

function emptyDelta(session_key: string | null, n: number | null): SessionDelta {
  return {
    session_key,
    n,
    keys: null,
    queued_at: null,
    first_checks_at: null,
    left_at: null,
    merged: null,
    exit_code: null,
    seconds_freeze: null,
    seconds_schedule: null,
    retries: 0,
    max_retry_attempt: 0,
    last_checks_outcome: null,
  };
}

/**
 * The projection rows of events (in append order). Event ids are not known yet when events are
 * appended (one statement inserts the events and their projections): rows refer to their event
 * by position (`n`, from 1), and the statement resolves it (projection.ts). Rows are built with
 * Object.assign rather than object spread, which costs more on this path (figures in
 * docs/decisions/0023-statistics-hot-paths.md).
 */
export function deriveProjectionRows(events: readonly EventToAppend[]): ProjectionRows {
  const rows: ProjectionRows = {
    enters: [],
    merges: [],
    checks: [],
    batches: [],
    bisections: [],
    gauges: [],
    sessions: [],
  };
  const sessions = new Map<string, SessionDelta>();
  // A session without an id is one leave event: its own delta, under a key no session id has.
  const session = (key: string | null, n: number) => {
    const mapKey = key ?? `\u0000${n}`;
    let delta = sessions.get(mapKey);
    if (!delta) {
      delta = key === null ? emptyDelta(null, n) : emptyDelta(key, null);
      sessions.set(mapKey, delta);
    }
    return delta;
  };
  const batchKeys = new Set<string>();

  events.forEach((event, i) => {
    const m = event.metadata;
    const at = event.receivedAt;
    const n = i + 1;
    const sessionId = str(m, 'session_id');
    switch (event.type) {
      case 'action.queue.enter': {
        const keys = keysOf(event);
        rows.enters.push(Object.assign({ at }, keys));
        if (sessionId !== null) {
          const s = session(sessionId, n);
          if (s.left_at === null) s.keys = keys;
          s.queued_at ??= date(m, 'queued_at') ?? at;
        }
        return;
      }
      case 'action.queue.merged': {
        const names = Array.isArray(m['partition_names'])
          ? (m['partition_names'] as unknown[]).filter((p): p is string => typeof p === 'string')
          : [];
        rows.merges.push({
          at,
          base_ref: baseRefOf(event),
          partition_names: names.length > 0 ? names : [DEFAULT_KEY],
          queue_name: str(m, 'queue_name') ?? '',
          priority_rule_name: str(m, 'priority_rule_name') ?? DEFAULT_KEY,
        });
        return;
      }
      case 'action.queue.checks_start': {
        const train = str(m, 'train_car_id');
        const runKey = train === null ? null : `${train}@${at.toISOString()}`;
        if (runKey === null || !batchKeys.has(runKey)) {
          if (runKey !== null) batchKeys.add(runKey);
          const numbers = m['pull_request_numbers'];
          rows.batches.push(
            Object.assign(keysOf(event), {
              at,
              run_key: runKey,
              n,
              size: Array.isArray(numbers) ? numbers.length : 0,
            }),
          );
        }
        if (sessionId !== null) {
          const s = session(sessionId, n);
          if (s.first_checks_at === null || at < s.first_checks_at) s.first_checks_at = at;
        }
        return;
      }
      case 'action.queue.checks_end': {
        const outcome = checksOutcome(m);
        rows.checks.push(Object.assign(keysOf(event), { at, outcome, runtime: checksRuntime(m) }));
        if (sessionId !== null) {
          const s = session(sessionId, n);
          if (outcome === 'CHECKS_RETRIED') s.retries += 1;
          s.max_retry_attempt = Math.max(s.max_retry_attempt, int(m, 'retry_attempt') ?? 0);
          s.last_checks_outcome = outcome;
        }
        return;
      }
      case 'action.queue.leave': {
        const s = session(sessionId, n);
        const merged = m['merged'] === true;
        s.keys = keysOf(event);
        s.queued_at = date(m, 'queued_at') ?? s.queued_at;
        s.left_at = at;
        s.merged = merged;
        s.exit_code = merged ? 'PR_MERGED' : leaveReasonCode(str(m, 'reason') ?? '');
        s.seconds_freeze = int(m, 'seconds_waiting_for_freeze') ?? 0;
        s.seconds_schedule = int(m, 'seconds_waiting_for_schedule') ?? 0;
        return;
      }
      case 'action.queue.batch_bisection_start':
        rows.bisections.push(
          Object.assign(keysOf(event), {
            at,
            kind: 's' as const,
            depth: int(m, 'bisection_depth'),
            size_before_split: int(m, 'batch_size_before_split'),
            culprit_found: null,
            max_failure_reached: null,
          }),
        );
        return;
      case 'action.queue.batch_bisection_end':
        rows.bisections.push(
          Object.assign(keysOf(event), {
            at,
            kind: 'e' as const,
            depth: null,
            size_before_split: null,
            culprit_found: m['culprit_found'] === true,
            max_failure_reached: m['max_failure_resolution_reached'] === true,
          }),
        );
        return;
      case 'action.queue.change':
        rows.gauges.push(
          Object.assign(keysOf(event), { n, at, kind: 'q' as const, value: int(m, 'size') ?? 0 }),
        );
        return;
      case 'action.queue.checks.change':
        rows.gauges.push(
          Object.assign(keysOf(event), {
            n,
            at,
            kind: 'r' as const,
            value: int(m, 'running_checks') ?? 0,
            priority_rule_name: '',
          }),
        );
        return;
      default:
        return;
    }
  });
  rows.sessions = [...sessions.values()];
  return rows;
}
