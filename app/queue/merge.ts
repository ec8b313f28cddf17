import { abortBatchesFrom, closeDraft } from './abort.ts';
import { findMergeHead } from './aside.ts';
import { computeBatchOutcome } from './checks.ts';
import { resolveUnconfirmedMoves } from './external.ts';
import { isFrozen } from './freeze.ts';
import type { MergeCompleted, MergeFailed } from './inputs.ts';
import { isVerifying, recordBatchMerge } from './integrity.ts';
import { leaveQueue } from './leave.ts';
import { emit, mergedEvent, toCheck } from './queue-events.ts';
import type { Batch, Lane, TestRun } from './state.ts';
import { computeBatchUnit, emitChecksEnd, successEnding } from './tested-unit.ts';
import {
  commonOf,
  currentLane,
  findLane,
  findSession,
  lanesOf,
  putLane,
  type Transition,
  withoutKey,
} from './transition.ts';

/** Why a passed head batch does or does not merge now. */
export type MergeDecision =
  | 'merge'
  | 'paused'
  | 'frozen'
  | 'waiting_for_schedule'
  | 'waiting_for_partitions'
  | 'verifying_merge';

const OWN_SHAS_KEPT = 50;

export function decideMerge(t: Transition, lane: Lane, batch: Batch, run: TestRun): MergeDecision {
  if (t.state.pause.paused) return 'paused';
  // The batch ahead's landed tree is being read: a merge now would land on top of an unverified one.
  if (isVerifying(t, lane.base)) return 'verifying_merge';
  const pending =
    batch.phase === 'merging' ? batch.numbers.filter((n) => !batch.merged.includes(n)) : batch.numbers;
  if (pending.some((number) => isFrozen(t.state, number, t.now))) return 'frozen';
  const rule = t.state.config.queue_rules.find((r) => r.name === batch.queueName);
  if (rule !== undefined && batch.phase === 'trial') {
    const result = computeBatchOutcome(t.state, {
      rule,
      numbers: batch.numbers,
      checks: run.checks,
      now: t.now,
    });
    // Only a closed schedule window holds a passed batch: a failure that skip_intermediate_results
    // forgave must not hold it again.
    if (result.waitingForSchedule) return 'waiting_for_schedule';
  }
  // Fast-forward merges every pending pull request at once; the other methods one at a time.
  const method = rule?.merge_method ?? 'merge';
  const next = method === 'fast-forward' ? pending : pending.slice(0, 1);
  const inFlightElsewhere = t.state.lanes.some(
    (other) =>
      other !== lane &&
      other.batches.some((b) => b.phase === 'merging' && b.inFlight.some((n) => next.includes(n))),
  );
  if (inFlightElsewhere) return 'waiting_for_partitions';
  const ordered = method !== 'fast-forward';
  if (!next.every((number) => isValidatedElsewhere(t, { lane, number, ordered })))
    return 'waiting_for_partitions';
  return 'merge';
}

/**
 * A pull request in several partitions merges only when, in each of its other partitions, it is
 * in the passed head batch and every pull request before it there has merged (queue order holds
 * in every partition). With fast-forward, being in the passed head batch is enough.
 */
function isValidatedElsewhere(
  t: Transition,
  params: { lane: Lane; number: number; ordered: boolean },
): boolean {
  const { lane, number, ordered } = params;
  const session = findSession(t.state, number);
  if (session === undefined) return true;
  return lanesOf(t.state, session).every((other) => {
    if (other.partition === lane.partition) return true;
    const head = findMergeHead(t.state.config, other);
    if (head === undefined || !head.numbers.includes(number)) return false;
    const merged = head.phase === 'merging' ? head.merged : [];
    const passed = head.phase === 'merging' || (head.phase === 'trial' && head.trial.phase === 'passed');
    const before = head.numbers.slice(0, head.numbers.indexOf(number));
    // A fast-forward moves the base to a whole tested commit: order inside the other head cannot be kept.
    return passed && (!ordered || before.every((n) => merged.includes(n)));
  });
}

/** Starts or continues the merge of each lane's head batch. */
export function planMerges(t: Transition): void {
  for (const initial of t.state.lanes) {
    const lane = currentLane(t, initial);
    const head = findMergeHead(t.state.config, lane);
    if (head === undefined) continue;
    if (head.phase === 'trial' && head.trial.phase === 'passed') {
      if (decideMerge(t, lane, head, head.trial.run) !== 'merge') continue;
      const merging: Batch = {
        ...commonOf(head),
        phase: 'merging',
        run: head.trial.run,
        merged: [],
        inFlight: [],
      };
      requestNextMerge(
        t,
        { ...lane, batches: lane.batches.map((b) => (b.id === head.id ? merging : b)) },
        merging,
      );
    } else if (head.phase === 'merging' && head.inFlight.length === 0) {
      if (decideMerge(t, lane, head, head.run) !== 'merge') continue;
      requestNextMerge(t, lane, head);
    }
  }
}

function requestNextMerge(t: Transition, lane: Lane, batch: Batch & { phase: 'merging' }): void {
  const pending = batch.numbers.filter((n) => !batch.merged.includes(n));
  const method = t.state.config.queue_rules.find((r) => r.name === batch.queueName)?.merge_method ?? 'merge';
  let inFlight: number[];
  if (method === 'fast-forward') {
    inFlight = pending;
    const key = `fast_forward_base:${batch.id}:${batch.run.sha}`;
    t.effects.push({
      type: 'fast_forward_base',
      key,
      base: lane.base,
      sha: batch.run.sha,
      numbers: pending,
      batchId: batch.id,
    });
  } else {
    const next = pending[0]!;
    inFlight = [next];
    const expectedHeadSha =
      batch.mode === 'in_place' ? batch.run.sha : (findSession(t.state, next)?.headSha ?? batch.run.sha);
    t.effects.push({
      type: 'merge_pr',
      key: `merge_pr:${batch.id}:${next}`,
      number: next,
      method,
      expectedHeadSha,
      batchId: batch.id,
    });
  }
  putLane(t, { ...lane, batches: lane.batches.map((b) => (b.id === batch.id ? { ...batch, inFlight } : b)) });
}

/** A merge the engine asked for is done: the checks end in success and the pull request leaves merged. */
export function handleMergeCompleted(t: Transition, input: MergeCompleted): void {
  const session = findSession(t.state, input.number);
  if (session === undefined) return;
  let checks: TestRun['checks'] = [];
  for (const lane of lanesOf(t.state, session)) {
    const index = lane.batches.findIndex((b) => b.numbers.includes(input.number));
    const batch = lane.batches[index];
    if (batch === undefined) continue;
    if (
      batch !== findMergeHead(t.state.config, lane) ||
      (batch.phase === 'trial' && batch.trial.phase !== 'passed') ||
      batch.phase === 'bisecting'
    ) {
      // Merged before this partition validated it (it should not happen): what was built on it is rebuilt.
      const why = { code: 'PR_DEQUEUED_FROM_PARTITION' as const, reason: `#${input.number} was merged` };
      abortBatchesFrom(t, { lane, index, first: why, behind: why, leaving: new Set([input.number]) });
      continue;
    }
    const run =
      batch.phase === 'merging'
        ? batch.run
        : batch.phase === 'trial' && batch.trial.phase !== 'preparing'
          ? batch.trial.run
          : null;
    if (run === null) continue;
    checks = run.checks;
    recordBatchMerge(t, { base: lane.base, batch, run, number: input.number, sha: input.sha });
    emitChecksEnd(t, computeBatchUnit(lane, batch, run), [input.number], successEnding(run.checks));
    markMerged(t, lane, batch, run, input.number);
  }
  recordOwnSha(t, session.base, input.sha);
  emit(t, mergedEvent(t, session));
  const rule = t.state.config.queue_rules.find((r) => r.name === session.queueName);
  const evaluation =
    rule === undefined
      ? null
      : (computeBatchOutcome(t.state, { rule, numbers: [input.number], checks, now: t.now }).evaluations[
          String(input.number)
        ] ?? null);
  leaveQueue(t, input.number, {
    code: 'PR_MERGED',
    merged: true,
    evaluation,
    checks: checks.map(toCheck),
  });
  // A merged pull request is closed: its snapshot is no longer needed (the webhook may not follow).
  t.state = { ...t.state, pullRequests: withoutKey(t.state.pullRequests, String(input.number)) };
  resolveUnconfirmedMoves(t, session.base);
}

function markMerged(t: Transition, lane: Lane, batch: Batch, run: TestRun, number: number): void {
  const merged = [...(batch.phase === 'merging' ? batch.merged : []), number];
  const inFlight = batch.phase === 'merging' ? batch.inFlight.filter((n) => n !== number) : [];
  const done = batch.numbers.every((n) => merged.includes(n));
  const rest = lane.batches.filter((b) => b.id !== batch.id);
  // The batch is over: its draft pull request and test branch must not linger on GitHub.
  if (done && batch.mode === 'draft') closeDraft(t, batch.id, run);
  const updated: Batch = { ...commonOf(batch), phase: 'merging', run, merged, inFlight };
  putLane(t, { ...lane, batches: done ? rest : lane.batches.map((b) => (b.id === batch.id ? updated : b)) });
}

function recordOwnSha(t: Transition, base: string, sha: string): void {
  const known = t.state.bases[base] ?? { sha: null, ownShas: [] };
  const ownShas = [...known.ownShas, sha].slice(-OWN_SHAS_KEPT);
  t.state = { ...t.state, bases: { ...t.state.bases, [base]: { ...known, sha, ownShas } } };
}

/** GitHub refused the merge: the pull request leaves; what was built on it is rebuilt. */
export function handleMergeFailed(t: Transition, input: MergeFailed): void {
  const session = findSession(t.state, input.number);
  if (session === undefined) return;
  const lane = findLane(t.state, session.base, session.partitions[0]!);
  if (lane?.batches.some((b) => b.numbers.includes(input.number)) !== true) return;
  leaveQueue(t, input.number, { code: 'PR_UNEXPECTEDLY_FAILED_TO_MERGE', detail: input.reason });
  resolveUnconfirmedMoves(t, session.base);
}
