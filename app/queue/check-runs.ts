import { KEY_SEPARATOR } from './composite-key.ts';
import type { BatchPhase, QueuedDetails } from './effects.ts';
import { computeBatchEtas } from './eta.ts';
import {
  checkedTitles as checkedAgainst,
  renderedTitles as renderedMemo,
  laneTitles as titlesMemo,
} from './memo.ts';
import { laneKey } from './ordering.ts';
import { describeQueuePosition } from './position-band.ts';
import { findKnownAncestor, recordDerived } from './record-history.ts';
import type { Batch, Lane, PublishedCheckRun, QueueState, Session } from './state.ts';
import { type Transition, withoutKey } from './transition.ts';

/** The title of a queued pull request's "Trainyard" check run: where it is and why. */
export function renderCheckRunTitle(
  state: QueueState,
  params: { session: Session; position: number; batch: Batch | undefined },
): string {
  const { session, position, batch } = params;
  const paused = state.pause.paused ? 'Queue paused — ' : '';
  if (batch !== undefined) return `${paused}${describeBatch(batch, session.number)}`;
  if (session.waitingForAhead !== null) {
    const ahead = session.waitingForAhead.map((n) => `#${n}`).join(', ');
    return `${paused}Waiting for ${ahead} to leave the queue (conflict with a pull request ahead)`;
  }
  return `${paused}Waiting in queue ${session.queueName} at position ${describeQueuePosition(position)}`;
}

function describeBatch(batch: Batch, number: number): string {
  switch (batch.phase) {
    case 'bisecting':
      return `Bisecting ${batch.name} to find the failing pull request`;
    case 'merging':
      return batch.merged.includes(number) ? 'Merged' : `Merging with ${batch.name}`;
    case 'trial':
      switch (batch.trial.phase) {
        case 'preparing':
          return `Preparing the checks of ${batch.name}`;
        case 'testing':
          return `Checks running in ${batch.name}`;
        case 'passed':
          return `Checks passed in ${batch.name}; waiting for the batches ahead`;
        case 'failed':
          return `Checks failed in ${batch.name}; waiting for the batches ahead`;
      }
  }
}

export interface LaneEntry {
  title: string;
  position: number;
  batch: Batch | undefined;
}

/**
 * A session's last rendered title and what it depended on (kept in memo.ts): deep in a lane the
 * title only says "over 100", so most titles are reused as they are (the same string) when the
 * lane changes.
 */
export interface RenderedTitle {
  band: string;
  batch: Batch | undefined;
  paused: boolean;
  title: string;
}

function renderTitle(
  state: QueueState,
  session: Session,
  position: number,
  batch: Batch | undefined,
): string {
  const band = batch === undefined ? describeQueuePosition(position) : '';
  const paused = state.pause.paused;
  const memo = renderedMemo.get(session);
  if (memo !== undefined && memo.band === band && memo.batch === batch && memo.paused === paused) {
    return memo.title;
  }
  const title = renderCheckRunTitle(state, { session, position, batch });
  renderedMemo.set(session, { band, batch, paused, title });
  return title;
}

/** The check run titles of a lane, and what they were made from (kept in memo.ts). */
export interface LaneTitles {
  sessions: readonly Session[];
  paused: boolean;
  entries: Map<number, LaneEntry>;
}

/**
 * Titles of the check runs of a lane's pull requests (those whose first partition it is).
 * Memoized on the lane and its ordered sessions: a lane nothing happened to costs nothing.
 */
function computeLaneTitles(
  state: QueueState,
  lane: Lane,
  sessions: readonly Session[],
): Map<number, LaneEntry> {
  const memo = titlesMemo.get(lane);
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
    entries.set(session.number, { title: renderTitle(state, session, at, batch), position: at, batch });
  }
  titlesMemo.set(lane, { sessions, paused: state.pause.paused, entries });
  return entries;
}

function batchPhase(batch: Batch): BatchPhase {
  return batch.phase === 'trial' ? batch.trial.phase : batch.phase;
}

/** The summary's facts, computed only for check runs that are published. */
function computeQueuedDetails(
  t: Transition,
  params: { session: Session; entry: LaneEntry; etaOf: (batch: Batch) => number | null },
): QueuedDetails {
  const { session, entry } = params;
  const eta = entry.batch === undefined ? null : params.etaOf(entry.batch);
  return {
    kind: 'queued',
    queueName: session.queueName,
    priorityAlias: session.priorityAlias,
    partitions: session.partitions,
    position: entry.position,
    batch:
      entry.batch === undefined
        ? null
        : { name: entry.batch.name, phase: batchPhase(entry.batch), pullRequests: entry.batch.numbers },
    paused: t.state.pause.paused,
    waitingFor: session.waitingForAhead,
    estimatedMergeAt: eta === null ? null : new Date(eta).toISOString(),
  };
}

/** The title's prefix while `.github/trainyard.yml` is invalid. */
export const CONFIG_REJECTED_TITLE = 'Invalid .github/trainyard.yml: the last valid configuration is used';

type Published = QueueState['checkRuns'];

/*
 * At depth, comparing every queued pull request's title with its published one would be the
 * costliest part of a step, though a step changes a few titles. So the record planCheckRuns
 * leaves behind remembers the titles it was checked against (all published in it), and the next
 * step compares only the titles that changed since, and the check runs changed since
 * (record-history.ts). What a record was checked against is kept in memo.ts.
 */
export interface CheckedTitles {
  configErrors: QueueState['configErrors'];
  lanes: ReadonlyMap<string, ReadonlyMap<number, LaneEntry>>;
}

function putPublished(t: Transition, next: Published, keys: readonly string[]): void {
  recordDerived(next, t.state.checkRuns, keys);
  t.state = { ...t.state, checkRuns: next };
}

/** Publishes the check run of every queued pull request whose title changed. */
export function planCheckRuns(t: Transition, byLane: ReadonlyMap<string, readonly Session[]>): void {
  const changes: Record<string, PublishedCheckRun> = {};
  let changed = false;
  const { configErrors } = t.state;
  const found = findKnownAncestor(t.state.checkRuns, (version) => checkedAgainst.get(version));
  const last = found !== null && found.value.configErrors === configErrors ? found : null;
  const checked = new Map<string, ReadonlyMap<number, LaneEntry>>();
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
    let etas: Map<string, number | null> | null = null;
    const etaOf = (batch: Batch) => {
      etas ??= new Map(
        computeBatchEtas(t.state, lane, { now: t.now }).map((eta, i) => [lane.batches[i]!.id, eta]),
      );
      return etas.get(batch.id) ?? null;
    };
    const titles = computeLaneTitles(t.state, lane, sessions);
    checked.set(key, titles);
    const before = last?.value.lanes.get(key);
    const since = last?.changed ?? new Set<string>();
    if (before === titles && ![...since].some((k) => titles.has(Number(k)))) continue;
    for (const [number, entry] of titles) {
      if (before?.get(number)?.title === entry.title && !since.has(String(number))) continue;
      const title = configErrors === undefined ? entry.title : `${CONFIG_REJECTED_TITLE} — ${entry.title}`;
      const published = t.state.checkRuns[String(number)];
      if (published?.title === title) continue;
      const session = t.state.sessions[String(number)]!;
      const version = (published?.version ?? 0) + 1;
      const embarked = !entry.title.includes('Waiting in queue') && !entry.title.includes('Waiting for #');
      t.effects.push({
        type: 'publish_check_run',
        key: `publish_check_run:${session.sessionId}:${version}`,
        number,
        headSha: session.headSha,
        status: embarked ? 'in_progress' : 'queued',
        conclusion: null,
        title,
        details:
          configErrors === undefined
            ? computeQueuedDetails(t, { session, entry, etaOf })
            : { kind: 'config_rejected', errors: configErrors },
      });
      changes[String(number)] = { title, version };
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

/** `@trainyard refresh`: publish again at the end of the step. */
export function forgetCheckRunTitle(t: Transition, number: number): void {
  const published = t.state.checkRuns[String(number)];
  if (published !== undefined) recordCheckRun(t, number, { ...published, title: null });
}

export function dropCheckRun(t: Transition, number: number): void {
  putPublished(t, withoutKey(t.state.checkRuns, String(number)), [String(number)]);
}
