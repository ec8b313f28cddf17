import type { QueueRule, TrainyardConfig } from '../config/config.schema.ts';
import { computeLaneDepth, computeMaxInLine, isAdaptive, type LaneDepth } from './adaptive.ts';
import { consumeCleared, countLeadingCleared, findSuspects, isAside, markOvertaken } from './aside.ts';
import { KEY_SEPARATOR } from './composite-key.ts';
import { findBehindElsewhere } from './cross-partition.ts';
import { awaitsTestedAhead, findStartAhead, isFastForward } from './fast-forward.ts';
import { isAnyFreezeActive, isFrozen } from './freeze.ts';
import { computeTestBranch } from './ids.ts';
import { computeEmbarked, laneKey, orderSessionsByLane, orderWaiting } from './ordering.ts';
import { repeatUntilDone } from './repeat.ts';
import type { Batch, Lane, Session, SubBatch } from './state.ts';
import { currentLane, findLane, putLane, type Transition } from './transition.ts';

/** What a lane does with a free slot: one of a small union of outcomes, not a set of flags. */
export type EmbarkOutcome =
  | 'embarked'
  | 'no_slot'
  | 'nothing_waiting'
  | 'waiting_for_batch'
  | 'waiting_for_tested_ahead'
  | 'blocked';

/**
 * `{min, max}`: min while `max_parallel_checks` batches of min drain the backlog, then growing
 * towards max so that the backlog is spread over the parallel slots.
 */
export function computeBatchSize(rule: QueueRule, backlog: number, maxParallelChecks: number): number {
  const { min, max } = rule.batch_size;
  if (backlog <= maxParallelChecks * min) return min;
  return Math.min(max, Math.ceil(backlog / maxParallelChecks));
}

/**
 * Batches and sub-batches being prepared or tested (the `running_checks` gauge): what
 * `max_parallel_checks` limits, except with bisect_aside (see computeLineChecks).
 */
export function computeRunningChecks(lane: Lane): number {
  let running = 0;
  for (const batch of lane.batches) {
    if (batch.phase === 'trial' && (batch.trial.phase === 'preparing' || batch.trial.phase === 'testing'))
      running++;
    if (batch.phase === 'bisecting') {
      running += batch.bisection.subBatches.filter(
        (sub) => sub.trial.phase === 'preparing' || sub.trial.phase === 'testing',
      ).length;
    }
  }
  return running;
}

/**
 * What `max_parallel_checks` limits: every running check, or with bisect_aside only the batches
 * in line — the probes of a batch aside are bounded by the probe count of its bisection, so a
 * bisection never takes the slots the line needs.
 */
export function computeLineChecks(config: TrainyardConfig, lane: Lane): number {
  if (!config.merge_queue.bisect_aside) return computeRunningChecks(lane);
  return computeRunningChecks({ ...lane, batches: lane.batches.filter((b) => !isAside(config, b)) });
}

/** Fills every lane's free slots, sub-batches of a bisection first. */
export function planEmbarkAll(t: Transition): void {
  if (t.state.pause.paused) return;
  for (const lane of t.state.lanes) startWaitingSubBatches(t, lane);
  for (const key of [...orderSessionsByLane(t.state).keys()].sort()) {
    const [base, partition] = key.split(KEY_SEPARATOR) as [string, string];
    // Each embarked batch is a running check in line, and none embarks once max_parallel_checks
    // of them run (planNextBatch): at most that many embarks, plus the pass that embarks nothing.
    const limit = t.state.config.merge_queue.max_parallel_checks + 1;
    repeatUntilDone('planEmbarkAll: batches of a lane', limit, () => {
      const lane = findLane(t.state, base, partition) ?? { base, partition, batches: [] };
      return decideEmbark(t, lane) === 'embarked';
    });
  }
}

/** Earliest time a partial batch of the lane will start anyway (batch_max_wait_time). */
export function computeFillDeadline(t: Transition, lane: Lane): number | null {
  const plan = planNextBatch(t, lane);
  return plan.kind === 'partial' ? plan.deadline : null;
}

type NextBatch =
  | { kind: 'none'; outcome: Exclude<EmbarkOutcome, 'embarked'> }
  | { kind: 'partial'; deadline: number; sessions: Session[]; rule: QueueRule }
  | { kind: 'ready'; sessions: Session[]; rule: QueueRule; depth: LaneDepth };

/** The lane's depth now: max_parallel_checks, or with mode adaptive what its queue needs (adaptive.ts). */
export function findLaneDepth(t: Transition, lane: Lane): LaneDepth {
  const queued = orderSessionsByLane(t.state).get(laneKey(lane))?.length ?? 0;
  return computeLaneDepth(t.state.config, queued);
}

/**
 * The waiting PRs that may embark now, in order. A PR held for a conflict waits only while the PR
 * it conflicts with is still ahead of it (embarked, or waiting before it): a PR that left and was
 * queued again is behind it now. A held PR may be overtaken only by PRs it shares no other
 * partition with: two PRs in several of the same partitions must keep one order in all of them,
 * or each lane waits for the other to merge first. What is blocked this way holds back the PRs
 * behind it in turn. With bisect_aside, a suspect (see aside.ts) waiting here is held; those behind
 * may overtake it, since it takes its place as of when it goes back to waiting.
 */
export function computeEligible(
  waiting: readonly Session[],
  embarked: ReadonlySet<number>,
  suspects: readonly Session[] = [],
  behindElsewhere: ReadonlySet<number> = new Set(),
): Session[] {
  const ahead = new Set(embarked);
  const suspect = new Set([...suspects.map((s) => s.number), ...behindElsewhere]);
  const held: Session[] = [];
  const eligible: Session[] = [];
  for (const session of waiting) {
    // A suspect holds nobody back: it is re-ordered behind those who overtake it.
    if (suspect.has(session.number)) {
      ahead.add(session.number);
      continue;
    }
    const blocked =
      (session.waitingForAhead?.some((n) => ahead.has(n)) ?? false) ||
      held.some((h) => h.partitions.filter((p) => session.partitions.includes(p)).length > 1);
    if (blocked) held.push(session);
    else eligible.push(session);
    ahead.add(session.number);
  }
  return eligible;
}

function planNextBatch(t: Transition, lane: Lane): NextBatch {
  const { config } = t.state;
  const depth = findLaneDepth(t, lane);
  const maxParallel = depth.depth;
  if (
    lane.batches.some(
      (b) =>
        (b.phase === 'bisecting' || (b.phase === 'trial' && b.trial.phase === 'failed')) &&
        !isAside(config, b),
    )
  ) {
    return { kind: 'none', outcome: 'blocked' };
  }
  if (computeLineChecks(config, lane) >= maxParallel) return { kind: 'none', outcome: 'no_slot' };
  const maxInLine = computeMaxInLine(config, depth);
  if (maxInLine !== undefined && lane.batches.filter((b) => !isAside(config, b)).length >= maxInLine) {
    return { kind: 'none', outcome: 'no_slot' };
  }
  const waiting = orderWaiting(t.state, lane, t.now);
  const eligible = computeEligible(
    waiting,
    computeEmbarked(lane),
    findSuspects(t.state),
    findBehindElsewhere(t.state, lane, waiting),
  );
  const first = eligible[0];
  if (first === undefined) return { kind: 'none', outcome: 'nothing_waiting' };
  const rule = config.queue_rules.find((r) => r.name === first.queueName);
  if (rule === undefined) return { kind: 'none', outcome: 'blocked' };
  // Fast-forward builds on the tested commit of the batch ahead (fast-forward.ts): not known yet.
  if (
    rule.merge_method === 'fast-forward' &&
    awaitsTestedAhead(lane.batches.filter((b) => !isAside(config, b)))
  ) {
    return { kind: 'none', outcome: 'waiting_for_tested_ahead' };
  }
  // Frozen pull requests come last (orderWaiting) and never share a batch with the others.
  const frozen = (s: Session) => isFrozen(t.state, s.number, t.now);
  const sameRule = eligible.filter(
    (s) => s.queueName === rule.name && (!isAnyFreezeActive(t.state, t.now) || frozen(s) === frozen(first)),
  );
  const size = computeBatchSize(rule, sameRule.length, maxParallel);
  // Cleared pull requests go at once: they only wait for the batches that overtook them. Those
  // waiting behind fill the batch up: a run costs the same whatever it holds.
  if (config.merge_queue.bisect_aside && sameRule[0]?.cleared === true) {
    const take = Math.min(rule.batch_size.max, Math.max(size, countLeadingCleared(sameRule)));
    return { kind: 'ready', sessions: sameRule.slice(0, take), rule, depth };
  }
  const sessions = sameRule.slice(0, size);
  if (sessions.length >= size) return { kind: 'ready', sessions, rule, depth };
  const oldest = Math.min(...sessions.map((s) => Date.parse(s.queuedAt)));
  const deadline = oldest + rule.batch_max_wait_time * 1000;
  if (deadline <= t.now.getTime()) return { kind: 'ready', sessions, rule, depth };
  return { kind: 'partial', deadline, sessions, rule };
}

export function decideEmbark(t: Transition, lane: Lane): EmbarkOutcome {
  const plan = planNextBatch(t, lane);
  if (plan.kind === 'none') return plan.outcome;
  if (plan.kind === 'partial') return 'waiting_for_batch';
  const { sessions, rule } = plan;
  const maxParallel = t.state.config.merge_queue.max_parallel_checks;
  // In place only when the configuration allows one batch at a time, whatever the adaptive depth.
  const inPlace =
    sessions.length === 1 && maxParallel === 1 && rule.max_checks_retries === 0 && lane.batches.length === 0;
  const id = t.ids.uuid();
  const counter = t.state.counters.batch + 1;
  t.state = { ...t.state, counters: { ...t.state.counters, batch: counter } };
  // Built on the batches in line only: batches aside are overtaken from now on.
  const parents = lane.batches.filter((b) => !isAside(t.state.config, b));
  const batch: Batch = {
    id,
    name: `batch-${counter}`,
    queueName: rule.name,
    numbers: sessions.map((s) => s.number),
    parentNumbers: parents.flatMap((b) => b.numbers),
    parentIds: parents.map((b) => b.id),
    baseSha: t.state.bases[lane.base]?.sha ?? null,
    mode: inPlace ? 'in_place' : 'draft',
    createdAt: t.nowIso,
    retries: 0,
    ...(isAdaptive(t.state.config)
      ? { laneDepth: { depth: plan.depth.depth, queued: plan.depth.queued } }
      : {}),
    phase: 'trial',
    trial: { phase: 'preparing', attempt: 1, failures: 0, retryAt: null },
  };
  consumeCleared(t, sessions);
  const passed = markOvertaken(t.state.config, lane);
  putLane(t, { ...passed, batches: [...passed.batches, batch] });
  requestTestBranch(t, { lane, batch, attempt: 1 });
  return 'embarked';
}

/** Asks the shell for the tested commit of a batch (or of a sub-batch, given its prefix). */
export function requestTestBranch(
  t: Transition,
  params: { lane: Lane; batch: Batch; attempt: number; sub?: SubBatch },
): void {
  const { lane, batch, attempt, sub } = params;
  const id = sub?.id ?? batch.id;
  const numbers = sub === undefined ? batch.numbers : batch.numbers.slice(0, sub.length);
  if (batch.mode === 'in_place' && sub === undefined) {
    t.effects.push({
      type: 'update_pr_in_place',
      key: `update_pr_in_place:${id}:${attempt}`,
      batchId: id,
      attempt,
      number: numbers[0]!,
      base: lane.base,
    });
    return;
  }
  const all = [...batch.parentNumbers, ...numbers];
  const start = startOf(t, lane, batch);
  const merged = start.onAhead ? numbers : all;
  t.effects.push({
    type: 'prepare_test_branch',
    key: `prepare_test_branch:${id}:${attempt}`,
    batchId: id,
    attempt,
    branch: computeTestBranch(id),
    base: lane.base,
    baseSha: start.sha,
    pullRequests: merged.map((number) => ({
      number,
      headSha:
        t.state.sessions[String(number)]?.headSha ?? t.state.pullRequests[String(number)]?.headSha ?? '',
    })),
    draftPullRequest: { name: sub?.name ?? batch.name, numbers, queueName: batch.queueName },
  });
}

/**
 * The commit a test branch starts on, and whether it already holds the pull requests ahead:
 * with fast-forward, the tested commit of the batch ahead (or the base once those have merged);
 * otherwise the base known when the batch was built, the pull requests ahead merged again.
 */
function startOf(t: Transition, lane: Lane, batch: Batch): { sha: string | null; onAhead: boolean } {
  if (!isFastForward(t.state.config, batch.queueName)) return { sha: batch.baseSha, onAhead: false };
  const start = findStartAhead(lane, batch);
  if (start === 'base') return { sha: t.state.bases[lane.base]?.sha ?? batch.baseSha, onAhead: true };
  // Not reached: a batch embarks once the one ahead is tested, and a retry of that one rebuilds
  // the batches built on it (retries.ts). Built as the other methods build it, its fast-forward
  // would be refused and its pull requests leave with GitHub's answer.
  if (start === 'unknown') return { sha: batch.baseSha, onAhead: false };
  return { sha: start.sha, onAhead: true };
}

function startWaitingSubBatches(t: Transition, initial: Lane): void {
  const maxParallel = t.state.config.merge_queue.max_parallel_checks;
  let lane = currentLane(t, initial);
  for (const batch of lane.batches) {
    if (batch.phase !== 'bisecting') continue;
    for (const sub of batch.bisection.subBatches) {
      if (sub.trial.phase !== 'waiting') continue;
      if (!isAside(t.state.config, batch) && computeRunningChecks(lane) >= maxParallel) continue;
      const started: SubBatch = {
        ...sub,
        trial: { phase: 'preparing', attempt: 1, failures: 0, retryAt: null },
      };
      lane = replaceSubBatch(t, lane, batch.id, started);
      requestTestBranch(t, { lane, batch, attempt: 1, sub: started });
    }
  }
}

export function replaceSubBatch(t: Transition, stale: Lane, batchId: string, sub: SubBatch): Lane {
  const lane = currentLane(t, stale);
  const batches = lane.batches.map((b) =>
    b.id === batchId && b.phase === 'bisecting'
      ? {
          ...b,
          bisection: {
            ...b.bisection,
            subBatches: b.bisection.subBatches.map((s) => (s.id === sub.id ? sub : s)),
          },
        }
      : b,
  );
  const next = { ...lane, batches };
  putLane(t, next);
  return next;
}
