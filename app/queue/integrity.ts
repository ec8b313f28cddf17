import type { Actor } from '../../shared/schemas/event-parts.schema.ts';
import { abortBatchesFrom } from './abort.ts';
import type { BaseTreeRead, EffectFailed } from './inputs.ts';
import type {
  IntegrityOutcome,
  IntegrityResult,
  IntegrityTrack,
  MergeIntegrity,
} from './integrity.schema.ts';
import { handlePauseSet } from './pause.ts';
import { emit, envelope } from './queue-events.ts';
import type { Batch, TestRun } from './state.ts';
import type { Transition } from './transition.ts';

/*
 * Merge integrity: once a batch's merges are done, the base's tree must be the tree the queue
 * tested. The engine asks the shell to read the base (verify_merge), judges the answer
 * (base_tree_read), and pauses the queue itself when what landed is not what was tested.
 */

/** Who pauses the queue when a landed tree is not the tested one. */
export const APP_ACTOR: Actor = {
  type: 'application',
  id: '00000000-0000-4000-8000-000000000000',
  name: 'Trainyard (merge integrity)',
};

const RECENT_RESULTS = 20;

const EMPTY: MergeIntegrity = {
  tracks: [],
  recent: [],
  counts: { equal: 0, different: 0, base_moved_outside: 0, tree_unknown: 0 },
};

function integrityOf(t: Transition): MergeIntegrity {
  return t.state.mergeIntegrity ?? EMPTY;
}

function putIntegrity(t: Transition, integrity: MergeIntegrity): void {
  t.state = { ...t.state, mergeIntegrity: integrity };
}

function putTracks(t: Transition, tracks: IntegrityTrack[]): void {
  putIntegrity(t, { ...integrityOf(t), tracks });
}

/**
 * A merge of `batch` the engine asked for is done (`sha`: GitHub's answer). Called before the
 * base's sha is moved to `sha`, so the first merge records where the batch's merges started.
 */
export function recordBatchMerge(
  t: Transition,
  params: { base: string; batch: Batch; run: TestRun; number: number; sha: string },
): void {
  const { base, batch, run, number, sha } = params;
  // With partitions, each lane tests its own pull requests on the base while the others merge
  // beside them: no lane's tested tree is the base's. Not verified (docs/decisions/0033-merge-integrity.md).
  if (t.state.lanes.filter((lane) => lane.base === base).length > 1) return;
  const integrity = integrityOf(t);
  const existing = integrity.tracks.find((track) => track.batchId === batch.id);
  const track: IntegrityTrack = existing ?? {
    batchId: batch.id,
    batchName: batch.name,
    base,
    method: t.state.config.queue_rules.find((r) => r.name === batch.queueName)?.merge_method ?? 'merge',
    pullRequests: batch.numbers.map((n) => ({
      number: n,
      headSha: t.state.sessions[String(n)]?.headSha ?? run.sha,
    })),
    merged: [],
    mergeShas: [],
    startSha: t.state.bases[base]?.sha ?? null,
    testedSha: run.sha,
    // The test branch also merged the batches ahead first: the batch's own trees are the last ones.
    trees:
      run.trees === undefined || run.trees.length < batch.numbers.length
        ? null
        : run.trees.slice(-batch.numbers.length),
    outsideSha: movedSince(integrity, base, batch.createdAt),
    checking: false,
  };
  if (track.merged.includes(number)) return;
  const updated: IntegrityTrack = {
    ...track,
    merged: [...track.merged, number],
    mergeShas: track.mergeShas.at(-1) === sha ? track.mergeShas : [...track.mergeShas, sha],
  };
  putTracks(t, [...integrity.tracks.filter((x) => x !== existing), updated]);
}

/**
 * Someone else moved `base` (or it moved while its head was unknown): the batches merging on it,
 * and those built before now that merge later without being rebuilt, cannot be held to their
 * tested tree.
 */
export function noteOutsideMove(t: Transition, base: string, sha: string): void {
  // Only bases the queue merges into (a push to any other branch is reported too).
  if (!t.state.lanes.some((lane) => lane.base === base)) return;
  const integrity = integrityOf(t);
  putIntegrity(t, {
    ...integrity,
    outsideMoves: { ...integrity.outsideMoves, [base]: { sha, at: t.nowIso } },
    tracks: integrity.tracks.map((track) =>
      track.base === base && track.outsideSha === null ? { ...track, outsideSha: sha } : track,
    ),
  });
}

/** The outside move of `base` made at or after `createdAt`, if any. */
function movedSince(integrity: MergeIntegrity, base: string, createdAt: string): string | null {
  const move = integrity.outsideMoves?.[base];
  return move !== undefined && Date.parse(move.at) >= Date.parse(createdAt) ? move.sha : null;
}

/** A verification is under way on `base`: nothing else merges there until it is answered. */
export function isVerifying(t: Transition, base: string): boolean {
  return integrityOf(t).tracks.some((track) => track.base === base && track.checking);
}

/**
 * Settle phase: each batch that stopped merging (all merged, or a merge refused part way) has
 * its landed tree read, once. A batch still merging in a lane is left until it is done.
 */
export function planMergeVerifications(t: Transition): void {
  const integrity = t.state.mergeIntegrity;
  if (integrity === undefined || integrity.tracks.every((track) => track.checking)) return;
  const merging = new Set(
    t.state.lanes.flatMap((lane) => lane.batches.filter((b) => b.phase === 'merging').map((b) => b.id)),
  );
  const tracks = integrity.tracks.map((track) => {
    if (track.checking || merging.has(track.batchId)) return track;
    t.effects.push({
      type: 'verify_merge',
      key: `verify_merge:${track.batchId}`,
      base: track.base,
      batchId: track.batchId,
      testedSha: track.testedSha,
      expectedTree: expectedTree(track),
    });
    return { ...track, checking: true };
  });
  putTracks(t, tracks);
}

/** The tree the base must have once `track.merged` landed: that prefix of the test branch. */
function expectedTree(track: IntegrityTrack): string | null {
  if (track.method === 'fast-forward' || track.trees === null) return null;
  return track.trees[track.merged.length - 1] ?? null;
}

function isPartial(track: IntegrityTrack): boolean {
  return track.merged.length < track.pullRequests.length;
}

/** The base as GitHub has it after a batch's merges: equal, moved by someone else, or different. */
export function decideIntegrity(track: IntegrityTrack, read: BaseTreeRead): IntegrityOutcome {
  const expected = expectedTree(track) ?? (isPartial(track) ? null : read.testedTree);
  if (expected !== null && read.treeSha === expected) return 'equal';
  const last = track.mergeShas.at(-1);
  // Someone pushed after our last merge: the head is theirs, what we merged cannot be read there.
  if (read.headSha !== last) return 'base_moved_outside';
  if (track.outsideSha !== null) return 'base_moved_outside';
  if (expected === null) return 'tree_unknown';
  // A merge or squash commit sits on the base as it was: another parent means a push in between.
  const before = track.mergeShas.at(-2) ?? track.startSha;
  if ((track.method === 'merge' || track.method === 'squash') && before !== null) {
    if (read.parentShas[0] !== before) return 'base_moved_outside';
  }
  return 'different';
}

/** verify_merge's answer: record it; a landed tree that is not the tested one pauses the queue. */
export function handleBaseTreeRead(t: Transition, input: BaseTreeRead): void {
  const integrity = integrityOf(t);
  const track = integrity.tracks.find((x) => x.batchId === input.batchId && x.checking);
  if (track === undefined) return;
  const outcome = decideIntegrity(track, input);
  const result: IntegrityResult = {
    batchName: track.batchName,
    base: track.base,
    pullRequests: track.merged,
    outcome,
    testedSha: track.testedSha,
    expectedTree: expectedTree(track) ?? (isPartial(track) ? null : input.testedTree),
    landedSha: input.headSha,
    landedTree: input.treeSha,
    partial: isPartial(track),
    at: t.nowIso,
  };
  putIntegrity(t, {
    ...integrity,
    tracks: integrity.tracks.filter((x) => x !== track),
    recent: [...integrity.recent, result].slice(-RECENT_RESULTS),
    counts: { ...integrity.counts, [outcome]: integrity.counts[outcome] + 1 },
  });
  // In the event log of each merged pull request (and counted by the metrics from there).
  for (const number of track.merged) {
    emit(
      t,
      envelope(
        t,
        'action.queue.merge_verified',
        { number, base: track.base, trigger: 'Merge integrity' },
        {
          branch: track.base,
          train_car_id: track.batchId,
          batch_name: track.batchName,
          pull_request_numbers: track.merged,
          outcome,
          partial: result.partial,
          tested_sha: result.testedSha,
          tested_tree: result.expectedTree,
          landed_sha: result.landedSha,
          landed_tree: result.landedTree,
        },
      ),
    );
  }
  if (outcome === 'different') pauseForIntegrity(t, track, result);
}

/**
 * verify_merge failed for good (the base could not be read): what landed cannot be proven, so
 * the queue pauses rather than merge on top of it.
 */
export function handleVerificationFailed(t: Transition, input: EffectFailed): void {
  const integrity = integrityOf(t);
  const track = integrity.tracks.find((x) => input.key === `verify_merge:${x.batchId}`);
  if (track === undefined) return;
  putTracks(
    t,
    integrity.tracks.filter((x) => x !== track),
  );
  const reason = `Merge integrity: ${track.base} could not be read after ${track.batchName} merged (${input.message})`;
  pause(t, track.base, reason);
}

/** The pause reason: the batch, its pull requests and both trees. */
export function describeIntegrityFailure(result: IntegrityResult): string {
  const prs = result.pullRequests.map((n) => `#${n}`).join(', ');
  const partial = result.partial ? ' (merged partially)' : '';
  return (
    `Merge integrity: after ${result.batchName}${partial} (${prs}) merged into ${result.base}, ` +
    `its tree ${result.landedTree} (commit ${result.landedSha}) is not the tested tree ` +
    `${result.expectedTree ?? 'unknown'} (commit ${result.testedSha})`
  );
}

/** The engine's own pause: as the API's, with its `queue.pause.*` event and the app as actor. */
function pause(t: Transition, base: string, reason: string): void {
  const already = t.state.pause.paused;
  handlePauseSet(t, { type: 'pause_set', reason, by: APP_ACTOR });
  const common = { trigger: 'Merge integrity', pull_request: null, base_ref: base, received_at: t.nowIso };
  emit(
    t,
    already
      ? { ...common, type: 'queue.pause.update', metadata: { reason, updated_by: APP_ACTOR } }
      : { ...common, type: 'queue.pause.create', metadata: { reason, created_by: APP_ACTOR } },
  );
}

function pauseForIntegrity(t: Transition, track: IntegrityTrack, result: IntegrityResult): void {
  pause(t, track.base, describeIntegrityFailure(result));
  // Every batch behind was tested on top of the tree that should have landed: none may merge.
  const why = {
    code: 'MERGE_QUEUE_RESET' as const,
    reason: `${track.base} does not hold the tree ${track.batchName} tested`,
  };
  for (const lane of t.state.lanes.filter((l) => l.base === track.base)) {
    const index = lane.batches.findIndex((b) => b.phase !== 'merging');
    if (index >= 0) abortBatchesFrom(t, { lane, index, first: why, behind: why });
  }
  for (const pr of track.pullRequests.filter((p) => track.merged.includes(p.number))) {
    t.effects.push({
      type: 'publish_check_run',
      key: `publish_check_run:integrity:${track.batchId}:${pr.number}`,
      number: pr.number,
      headSha: pr.headSha,
      status: 'completed',
      conclusion: 'failure',
      details: {
        kind: 'integrity_failed',
        batch: result.batchName,
        base: result.base,
        pullRequests: result.pullRequests,
        testedSha: result.testedSha,
        expectedTree: result.expectedTree,
        landedSha: result.landedSha,
        landedTree: result.landedTree,
        partial: result.partial,
      },
    });
  }
}

/** The most recent verification that covered `number`, for the per pull request view. */
export function findIntegrityResult(
  integrity: MergeIntegrity | undefined,
  number: number,
): IntegrityResult | null {
  return integrity?.recent.findLast((r) => r.pullRequests.includes(number)) ?? null;
}
