import type { TrainyardConfig } from '../config/config.schema.ts';
import type { Batch, QueueState, Session } from './state.ts';

/*
 * `merge_queue.mode: adaptive`: the lane's depth follows its queue instead of a fixed count.
 *
 * A lane with a short queue tests one batch at a time: a second batch built on the first is
 * thrown away whenever the first fails, and waiting PRs are few enough to join the next batch. A
 * lane with a long queue tests more batches at once, so that the backlog is spread over them
 * instead of piling into ever larger batches, which fail more often. One batch under test per
 * `queued_per_check` queued pull requests, up to `max_parallel_checks`; batch sizes then follow
 * from the backlog and the depth (computeBatchSize). Runners go where the queue is: a quiet lane
 * of a monorepo holds one, the busiest up to the ceiling.
 *
 * Pull requests in several partitions go first among pull requests of the same rule and
 * priority: each merges only once every lane it is in has tested it, so a lane that reaches it
 * early waits for the others. Taken first everywhere, its lanes test it at about the same time.
 */

/** The lane's depth and what it was computed from, for the explanation a batch carries. */
export interface LaneDepth {
  /** Batches the lane may test at once (in line; probes of a bisection aside are not counted). */
  depth: number;
  /** Pull requests queued in the lane (waiting and embarked). */
  queued: number;
}

export function isAdaptive(config: TrainyardConfig): boolean {
  return config.merge_queue.mode === 'adaptive';
}

/** How many batches the lane tests at once, given the pull requests queued in it. */
export function computeLaneDepth(config: TrainyardConfig, queued: number): LaneDepth {
  const { max_parallel_checks: ceiling, queued_per_check: per } = config.merge_queue;
  if (!isAdaptive(config)) return { depth: ceiling, queued };
  return { depth: Math.max(1, Math.min(ceiling, Math.ceil(queued / per))), queued };
}

/**
 * Batches in line the lane may hold: those under test and one passed batch waiting for a pull
 * request of another partition (more would be stacked on it and rebuilt whenever it is).
 */
export function computeMaxInLine(config: TrainyardConfig, lane: LaneDepth): number | undefined {
  const configured = config.merge_queue.max_batches_in_line;
  if (!isAdaptive(config)) return configured;
  return Math.min(configured ?? Number.MAX_SAFE_INTEGER, lane.depth + 1);
}

/** 0 for pull requests in several partitions when adaptive (they go first), 1 for the others. */
export function rankPartitionSpread(config: TrainyardConfig, session: Session): number {
  return isAdaptive(config) && session.partitions.length > 1 ? 0 : 1;
}

/** One line for the batch's events: why the lane tests this many batches. */
export function describeDepth(lane: LaneDepth, config: TrainyardConfig): string {
  return `adaptive: ${lane.depth} batch${lane.depth === 1 ? '' : 'es'} at once for ${lane.queued} queued (one per ${config.merge_queue.queued_per_check}, at most ${config.merge_queue.max_parallel_checks})`;
}

/*
 * A failed batch of one pull request, in the adaptive mode: retried once when a failure of a
 * single pull request is likely enough to be a flake. A retry costs one run; ejecting a good pull
 * request costs its author's look at the failure, a new place at the back of the queue and its
 * tests again — about twice a run's wait or more. So it pays when P(flake | it failed) ≥ 1/3. That
 * probability is learnt from how earlier retries of single pull requests ended (a Beta(1, 1)
 * prior: the first failures are retried), each observation weighing 5 % less with every new one.
 */
const RETRY_WHEN_FLAKE_AT_LEAST = 1 / 3;
const SOLO_RETRY_DECAY = 0.95;

/** P(a failure of a single pull request was a flake), as observed so far. */
export function estimateSoloFlake(state: QueueState): number {
  const { passed, failed } = state.soloRetries ?? { passed: 0, failed: 0 };
  return (1 + passed) / (2 + passed + failed);
}

/** Whether the adaptive mode retries this failed batch (never a batch of several: it is bisected). */
export function decideAdaptiveRetry(state: QueueState, batch: Batch): boolean {
  if (!isAdaptive(state.config) || batch.numbers.length !== 1 || batch.retries > 0) return false;
  return estimateSoloFlake(state) >= RETRY_WHEN_FLAKE_AT_LEAST;
}

/** How a retry the adaptive mode decided ended: the next estimate. */
export function recordSoloRetry(state: QueueState, passed: boolean): QueueState {
  const before = state.soloRetries ?? { passed: 0, failed: 0 };
  const decayed = { passed: before.passed * SOLO_RETRY_DECAY, failed: before.failed * SOLO_RETRY_DECAY };
  return {
    ...state,
    soloRetries: passed
      ? { ...decayed, passed: decayed.passed + 1 }
      : { ...decayed, failed: decayed.failed + 1 },
  };
}

/** One line for the retry's events. */
export function describeSoloRetry(state: QueueState): string {
  return `adaptive: a failure of a single pull request has been a flake ${Math.round(estimateSoloFlake(state) * 100)} % of the time here`;
}
