import type { NewEvent } from '../../shared/schemas/event.schema.ts';
import type { Effect } from './effects.ts';
import type { IdSource } from './ids.ts';
import { recordDerived } from './record-history.ts';
import type { Batch, BatchCommon, Lane, QueueState, Session } from './state.ts';

export interface StepContext {
  now: Date;
  ids: IdSource;
}

export interface StepResult {
  state: QueueState;
  effects: Effect[];
  events: NewEvent[];
}

/**
 * The working copy of one step. Decision modules replace parts of `state` (never mutate the
 * objects they were given, which belong to the caller) and append effects and events in order.
 */
export interface Transition {
  state: QueueState;
  effects: Effect[];
  events: NewEvent[];
  now: Date;
  nowIso: string;
  ids: IdSource;
}

export function startTransition(state: QueueState, ctx: StepContext): Transition {
  return { state, effects: [], events: [], now: ctx.now, nowIso: ctx.now.toISOString(), ids: ctx.ids };
}

export function findSession(state: QueueState, number: number): Session | undefined {
  return state.sessions[String(number)];
}

export function putSession(t: Transition, session: Session): void {
  const key = String(session.number);
  replaceSessions(t, { ...t.state.sessions, [key]: session }, [key]);
}

/** Replaces several sessions with one copy of the record (a step may touch hundreds). */
export function putSessions(t: Transition, sessions: readonly Session[]): void {
  if (sessions.length === 0) return;
  const next = { ...t.state.sessions };
  const keys = sessions.map((session) => String(session.number));
  for (const [i, session] of sessions.entries()) next[keys[i]!] = session;
  replaceSessions(t, next, keys);
}

export function dropSession(t: Transition, number: number): void {
  const key = String(number);
  replaceSessions(t, withoutKey(t.state.sessions, key), [key]);
}

/** Every change of the sessions record goes through here, so that its history is known (record-history.ts). */
function replaceSessions(t: Transition, next: QueueState['sessions'], keys: readonly string[]): void {
  recordDerived(next, t.state.sessions, keys);
  t.state = { ...t.state, sessions: next };
}

/** A copy of a record without one key (faster than rest destructuring on large records). */
export function withoutKey<V>(record: Record<string, V>, key: string): Record<string, V> {
  const copy = { ...record };
  delete copy[key];
  return copy;
}

export function findLane(state: QueueState, base: string, partition: string): Lane | undefined {
  return state.lanes.find((lane) => lane.base === base && lane.partition === partition);
}

/** Replaces (or adds, keeping lanes sorted) the lane of `lane.base` / `lane.partition`. */
export function putLane(t: Transition, lane: Lane): void {
  const others = t.state.lanes.filter((l) => l.base !== lane.base || l.partition !== lane.partition);
  const lanes = [...others, lane].sort(
    (a, b) => compareText(a.base, b.base) || compareText(a.partition, b.partition),
  );
  t.state = { ...t.state, lanes };
}

/** Replaces a batch in its lane as the lane is now (the caller's copy may be stale). */
export function putBatch(t: Transition, lane: Lane, batch: Batch): Lane {
  const current = currentLane(t, lane);
  const next = { ...current, batches: current.batches.map((b) => (b.id === batch.id ? batch : b)) };
  putLane(t, next);
  return next;
}

export function currentLane(t: Transition, lane: Lane): Lane {
  return findLane(t.state, lane.base, lane.partition) ?? { ...lane, batches: [] };
}

/** Every lane a session waits or embarks in. */
export function lanesOf(state: QueueState, session: Session): Lane[] {
  return session.partitions.map(
    (partition) => findLane(state, session.base, partition) ?? { base: session.base, partition, batches: [] },
  );
}

export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function secondsBetween(fromIso: string, to: Date): number {
  return Math.max(0, Math.round((to.getTime() - Date.parse(fromIso)) / 1000));
}

/** A batch's identity without its phase: to move it into another phase without stale fields. */
export function commonOf(batch: Batch): BatchCommon {
  return {
    id: batch.id,
    name: batch.name,
    queueName: batch.queueName,
    numbers: batch.numbers,
    parentNumbers: batch.parentNumbers,
    parentIds: batch.parentIds,
    baseSha: batch.baseSha,
    mode: batch.mode,
    createdAt: batch.createdAt,
    retries: batch.retries,
    ...(batch.overtaken === true ? { overtaken: true } : {}),
    ...(batch.split === undefined ? {} : { split: batch.split }),
    ...(batch.laneDepth === undefined ? {} : { laneDepth: batch.laneDepth }),
  };
}
