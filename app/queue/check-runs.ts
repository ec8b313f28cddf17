import type { QueueReason } from '../../shared/schemas/queue-reason.schema.ts';
import { KEY_SEPARATOR } from './composite-key.ts';
import type { BatchPhase, QueuedDetails } from './effects.ts';
import { computeEtaRange } from './eta.ts';
import {
  checkedHeadlines as checkedAgainst,
  headlines as headlineMemo,
  laneHeadlines as laneMemo,
} from './memo.ts';
import { laneKey } from './ordering.ts';
import { queuePositionBand } from './position-band.ts';
import { findKnownAncestor, recordDerived } from './record-history.ts';
import type { Batch, Lane, PublishedCheckRun, QueueState, Session } from './state.ts';
import { type Transition, withoutKey } from './transition.ts';

/*
 * The engine does not word check runs: it publishes their facts and the shell words the title
 * and the summary (app/github/render/check-run.ts). A queued pull request's check run is
 * published again when the facts its one-line title shows change; those facts are compared as
 * a headline, a string that is the same exactly when they are, and state.checkRuns keeps the
 * headline published last (in its `title`).
 */

/** What the title of a queued pull request's check run shows: where it is and why. */
function describeHeadline(
  state: QueueState,
  params: { session: Session; position: number; batch: Batch | undefined },
): string {
  const { session, position, batch } = params;
  const paused = state.pause.paused ? 'paused ' : '';
  if (batch !== undefined) {
    if (isMergedIn(batch, session.number)) return `${paused}merged`;
    // A stall the doctor found changes what the check run says: publish it again.
    const stalled =
      batch.phase === 'trial' && batch.trial.phase === 'testing' && batch.trial.run.stalled !== undefined;
    return `${paused}${batchPhase(batch)} ${batch.name}${stalled ? ' stalled' : ''}`;
  }
  if (session.waitingForAhead !== null) return `${paused}waiting_for ${session.waitingForAhead.join(',')}`;
  return `${paused}waiting ${queuePositionBand(position).from} ${session.queueName}`;
}

function isMergedIn(batch: Batch, number: number): boolean {
  return batch.phase === 'merging' && batch.merged.includes(number);
}

export interface LaneEntry {
  headline: string;
  position: number;
  batch: Batch | undefined;
}

/**
 * A session's last headline and what it depended on (kept in memo.ts): deep in a lane the title
 * only shows a band of positions, so most headlines are reused as they are (the same string)
 * when the lane changes.
 */
export interface SessionHeadline {
  /** The first position of its band while it waits; 0 in a batch. */
  band: number;
  batch: Batch | undefined;
  paused: boolean;
  headline: string;
}

function headlineOf(state: QueueState, session: Session, position: number, batch: Batch | undefined): string {
  const band = batch === undefined ? queuePositionBand(position).from : 0;
  const paused = state.pause.paused;
  const memo = headlineMemo.get(session);
  if (memo !== undefined && memo.band === band && memo.batch === batch && memo.paused === paused) {
    return memo.headline;
  }
  const headline = describeHeadline(state, { session, position, batch });
  headlineMemo.set(session, { band, batch, paused, headline });
  return headline;
}

/** The headlines of a lane's check runs, and what they were made from (kept in memo.ts). */
export interface LaneHeadlines {
  sessions: readonly Session[];
  paused: boolean;
  entries: Map<number, LaneEntry>;
}

/**
 * Headlines of the check runs of a lane's pull requests (those whose first partition it is).
 * Memoized on the lane and its ordered sessions: a lane nothing happened to costs nothing.
 */
function computeLaneHeadlines(
  state: QueueState,
  lane: Lane,
  sessions: readonly Session[],
): Map<number, LaneEntry> {
  const memo = laneMemo.get(lane);
  if (memo !== undefined && memo.sessions === sessions && memo.paused === state.pause.paused)
    return memo.entries;
  // Positions as in orderLane: the embarked in batch order, then the waiting in queue order.
  const batchOf = new Map<number, Batch>();
  const embarkedAt = new Map<number, number>();
  let position = 0;
  for (const batch of lane.batches) {
    for (const n of batch.numbers) {
      batchOf.set(n, batch);
      embarkedAt.set(n, ++position);
    }
  }
  const entries = new Map<number, LaneEntry>();
  for (const session of sessions) {
    const at = embarkedAt.get(session.number) ?? ++position;
    if (session.partitions[0] !== lane.partition) continue;
    const batch = batchOf.get(session.number);
    entries.set(session.number, { headline: headlineOf(state, session, at, batch), position: at, batch });
  }
  laneMemo.set(lane, { sessions, paused: state.pause.paused, entries });
  return entries;
}

function batchPhase(batch: Batch): BatchPhase {
  return batch.phase === 'trial' ? batch.trial.phase : batch.phase;
}

/** The summary's facts, computed only for check runs that are published. */
function computeQueuedDetails(
  t: Transition,
  params: {
    session: Session;
    entry: LaneEntry;
    etaOf: (batch: Batch) => { p50: number | null; p90: number | null };
    reasonsOf: (session: Session) => QueueReason[];
  },
): QueuedDetails {
  const { session, entry } = params;
  const eta = entry.batch === undefined ? { p50: null, p90: null } : params.etaOf(entry.batch);
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  return {
    kind: 'queued',
    queueName: session.queueName,
    priorityAlias: session.priorityAlias,
    partitions: session.partitions,
    position: queuePositionBand(entry.position),
    batch:
      entry.batch === undefined
        ? null
        : {
            name: entry.batch.name,
            phase: batchPhase(entry.batch),
            pullRequests: entry.batch.numbers,
            merged: isMergedIn(entry.batch, session.number),
            ...(entry.batch.laneDepth === undefined
              ? {}
              : {
                  laneDepth: {
                    ...entry.batch.laneDepth,
                    perCheck: t.state.config.merge_queue.queued_per_check,
                    ceiling: t.state.config.merge_queue.max_parallel_checks,
                  },
                }),
          },
    paused: t.state.pause.paused,
    waitingFor: session.waitingForAhead,
    estimatedMergeAt: iso(eta.p50),
    estimatedMergeAtP90: iso(eta.p90),
    reasons: params.reasonsOf(session),
  };
}

type Published = QueueState['checkRuns'];

/*
 * At depth, comparing every queued pull request's headline with its published one would be the
 * costliest part of a step, though a step changes a few. So the record planCheckRuns leaves
 * behind remembers the headlines it was checked against (all published in it), and the next
 * step compares only the headlines that changed since, and the check runs changed since
 * (record-history.ts). What a record was checked against is kept in memo.ts.
 */
export interface CheckedHeadlines {
  configErrors: QueueState['configErrors'];
  lanes: ReadonlyMap<string, ReadonlyMap<number, LaneEntry>>;
}

function putPublished(t: Transition, next: Published, keys: readonly string[]): void {
  recordDerived(next, t.state.checkRuns, keys);
  t.state = { ...t.state, checkRuns: next };
}

/**
 * Publishes the check run of every queued pull request whose headline changed. `explain` gives
 * the reasons (reasons.ts, passed in by the step so that this file does not depend on the rules
 * the reasons read).
 */
export function planCheckRuns(
  t: Transition,
  byLane: ReadonlyMap<string, readonly Session[]>,
  explain: (state: QueueState, now: Date) => (session: Session) => QueueReason[],
): void {
  const changes: Record<string, PublishedCheckRun> = {};
  let changed = false;
  const { configErrors } = t.state;
  const found = findKnownAncestor(t.state.checkRuns, (version) => checkedAgainst.get(version));
  const last = found !== null && found.value.configErrors === configErrors ? found : null;
  const checked = new Map<string, ReadonlyMap<number, LaneEntry>>();
  // Made when a first check run is published: the reasons' shared lookups.
  let reasonsOf: ((session: Session) => QueueReason[]) | null = null;
  // Lanes in key order: the memoized lane order depends on what came before (ordering.ts).
  for (const key of [...byLane.keys()].sort()) {
    const sessions = byLane.get(key)!;
    const first = sessions[0]!;
    const partition = key.slice(key.indexOf(KEY_SEPARATOR) + 1);
    const lane = t.state.lanes.find((l) => laneKey(l) === key) ?? {
      base: first.base,
      partition,
      batches: [],
    };
    // ETAs of the lane's batches, computed once and only if a check run of the lane changed.
    let etas: Map<string, { p50: number | null; p90: number | null }> | null = null;
    const etaOf = (batch: Batch) => {
      etas ??= new Map(computeEtaRange(t.state, lane, t.now).map((eta, i) => [lane.batches[i]!.id, eta]));
      return etas.get(batch.id) ?? { p50: null, p90: null };
    };
    const headlines = computeLaneHeadlines(t.state, lane, sessions);
    checked.set(key, headlines);
    const before = last?.value.lanes.get(key);
    const since = last?.changed ?? new Set<string>();
    if (before === headlines && ![...since].some((k) => headlines.has(Number(k)))) continue;
    for (const [number, entry] of headlines) {
      if (before?.get(number)?.headline === entry.headline && !since.has(String(number))) continue;
      const headline = configErrors === undefined ? entry.headline : `config_rejected ${entry.headline}`;
      const published = t.state.checkRuns[String(number)];
      if (published?.title === headline) continue;
      const session = t.state.sessions[String(number)]!;
      const version = (published?.version ?? 0) + 1;
      reasonsOf ??= explain(t.state, t.now);
      const queued = computeQueuedDetails(t, { session, entry, etaOf, reasonsOf });
      t.effects.push({
        type: 'publish_check_run',
        key: `publish_check_run:${session.sessionId}:${version}`,
        number,
        headSha: session.headSha,
        status: entry.batch === undefined ? 'queued' : 'in_progress',
        conclusion: null,
        details:
          configErrors === undefined ? queued : { kind: 'config_rejected', errors: configErrors, queued },
      });
      changes[String(number)] = { title: headline, version };
      changed = true;
    }
  }
  if (changed) putPublished(t, { ...t.state.checkRuns, ...changes }, Object.keys(changes));
  checkedAgainst.set(t.state.checkRuns, { configErrors, lanes: checked });
}

export function nextCheckRunVersion(t: Transition, number: number): number {
  return (t.state.checkRuns[String(number)]?.version ?? 0) + 1;
}

export function recordCheckRun(t: Transition, number: number, published: PublishedCheckRun): void {
  putPublished(t, { ...t.state.checkRuns, [String(number)]: published }, [String(number)]);
}

/** `@trainyard refresh`, a configuration change: publish again at the end of the step. */
export function forgetCheckRunTitle(t: Transition, number: number): void {
  const published = t.state.checkRuns[String(number)];
  if (published !== undefined) recordCheckRun(t, number, { ...published, title: null });
}

export function dropCheckRun(t: Transition, number: number): void {
  putPublished(t, withoutKey(t.state.checkRuns, String(number)), [String(number)]);
}
