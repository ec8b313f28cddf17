import { KEY_SEPARATOR } from './composite-key.ts';
import { sessionSizeKeys as sizeKeysMemo, sessionsSummaries as summaryMemo } from './memo.ts';
import { findKnownAncestor } from './record-history.ts';
import type { QueueState, Session } from './state.ts';

const SEP = KEY_SEPARATOR;

export interface SessionsSummary {
  /** Queue size per (base, partition, queue rule, priority rule): waiting plus embarked sessions. */
  sizes: Record<string, number>;
  anyHeld: boolean;
  anyWaitingForAhead: boolean;
  /** Sessions flagged as suspects (aside.ts). */
  suspects: readonly number[];
}

interface Counts {
  sizes: Record<string, number>;
  held: number;
  waitingForAhead: number;
  suspects: Set<number>;
}

/** What is remembered of a sessions record (in memo.ts): the summary, and the counts to update it from. */
export interface SummaryMemo {
  summary: SessionsSummary;
  counts: Counts;
}

/** The gauge keys a session counts in (sessions are immutable: computed once per object). */
function sizeKeys(s: Session): string[] {
  let keys = sizeKeysMemo.get(s);
  if (keys === undefined) {
    keys = s.partitions.map((partition) =>
      [s.base, partition, s.queueName, s.priorityRuleName ?? ''].join(SEP),
    );
    sizeKeysMemo.set(s, keys);
  }
  return keys;
}

/**
 * What every step wants to know about all sessions; memoized on the (immutable) sessions record,
 * and brought up to date from an earlier record's answer when a step changed a few sessions.
 */
export function summarizeSessions(sessions: QueueState['sessions']): SessionsSummary {
  const memo = summaryMemo.get(sessions);
  if (memo !== undefined) return memo.summary;
  const known = findKnownAncestor(sessions, (version) => summaryMemo.get(version));
  const counts = known === null ? countAll(sessions) : countSince(known.value.counts, known, sessions);
  const summary: SessionsSummary = {
    sizes: counts.sizes,
    anyHeld: counts.held > 0,
    anyWaitingForAhead: counts.waitingForAhead > 0,
    suspects: [...counts.suspects],
  };
  summaryMemo.set(sessions, { summary, counts });
  return summary;
}

function countAll(sessions: QueueState['sessions']): Counts {
  const counts: Counts = { sizes: {}, held: 0, waitingForAhead: 0, suspects: new Set() };
  for (const s of Object.values(sessions)) count(counts, s, 1);
  return counts;
}

function countSince(
  earlier: Counts,
  known: { version: object; changed: ReadonlySet<string> },
  sessions: QueueState['sessions'],
): Counts {
  const counts: Counts = { ...earlier, sizes: { ...earlier.sizes }, suspects: new Set(earlier.suspects) };
  const before = known.version as QueueState['sessions'];
  for (const key of known.changed) {
    const old = before[key];
    const now = sessions[key];
    if (old === now) continue;
    if (old !== undefined) count(counts, old, -1);
    if (now !== undefined) count(counts, now, 1);
  }
  for (const key of Object.keys(counts.sizes)) if (counts.sizes[key] === 0) delete counts.sizes[key];
  return counts;
}

function count(counts: Counts, s: Session, sign: 1 | -1): void {
  for (const key of sizeKeys(s)) counts.sizes[key] = (counts.sizes[key] ?? 0) + sign;
  if ((s.freeze?.since ?? null) !== null || (s.schedule?.since ?? null) !== null) counts.held += sign;
  if (s.waitingForAhead !== null) counts.waitingForAhead += sign;
  if (s.suspect === true) {
    if (sign > 0) counts.suspects.add(s.number);
    else counts.suspects.delete(s.number);
  }
}
