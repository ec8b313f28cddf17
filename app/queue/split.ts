import type { TrainyardConfig } from '../config/config.schema.ts';
import { consumeCleared, isAside } from './aside.ts';
import { bisectionStartEvent, computeBisectionSubject, endSplitRoundIfDone } from './batch-events.ts';
import { requestTestBranch } from './embark.ts';
import { emit } from './queue-events.ts';
import type { Batch, Lane, Session } from './state.ts';
import { currentLane, findSession, putLane, type Transition } from './transition.ts';

/*
 * `merge_queue.bisect_aside_split`: a failed batch aside is split instead of bisected by prefixes.
 *
 * A prefix bisection aside tests one or two prefixes a round, each on top of what was ahead of the
 * failed batch. An innocent waits one CI run per round, and those after the culprit go back
 * untested, often into a batch that fails again. Since the queue has moved on without the failed
 * batch (it is overtaken), nothing a probe passes can merge anyway: a probe only tells who is
 * innocent. So the batch splits at once into at most `bisect_aside_split` groups, each tested on
 * the base alone, beside the line and at the same time. A passing group's pull requests go back
 * to the front of the queue (cleared); a failing group of several splits again, into single pull
 * requests; a failing single leaves as the culprit (after a retry, when the adaptive mode judges a
 * flake likely). When every group passes, the failure was a flake or a conflict between groups,
 * and all go back. Groups are built on the base alone, so a failure in the line never aborts them.
 *
 * One round finds the culprit of a group of one and clears every passing group; a culprit in a
 * group of several takes a second round. The cost is up to `bisect_aside_split` runs at once
 * where a search by halves ran one a round.
 */

/** Into how many groups this failed batch splits (`bisect_aside_split`, aside), or null: bisected. */
export function findSplit(config: TrainyardConfig, batch: Batch): number | null {
  const split = config.merge_queue.bisect_aside_split;
  return split !== undefined && isAside(config, batch) ? split : null;
}

/**
 * Groups of a failed batch: at most `split` of them, in queue order. A failed group of at most
 * `split` pull requests splits into single pull requests.
 */
export function computeSplitGroups(numbers: readonly number[], split: number, group: boolean): number[][] {
  const count = group && numbers.length <= split ? numbers.length : Math.min(numbers.length, split);
  const size = Math.ceil(numbers.length / Math.max(1, count));
  const groups: number[][] = [];
  for (let i = 0; i < numbers.length; i += size) groups.push(numbers.slice(i, i + size));
  return groups;
}

/**
 * Splits a failed batch aside (its checks already ended) into groups tested on the base alone:
 * a split round, which starts with `action.queue.batch_bisection_start` as a bisection round does.
 */
export function splitFailedBatch(t: Transition, lane: Lane, failed: Batch, split: number): void {
  putLane(t, { ...lane, batches: lane.batches.filter((b) => b.id !== failed.id) });
  const numbers = failed.numbers.filter((n) => findSession(t.state, n) !== undefined);
  const groups = computeSplitGroups(numbers, split, failed.split !== undefined);
  const depth = (failed.split?.depth ?? 0) + 1;
  emit(
    t,
    bisectionStartEvent(t, computeBisectionSubject(t, lane, failed), {
      sizeBeforeSplit: failed.numbers.length,
      subBatches: groups.length,
      depth,
    }),
  );
  for (const group of groups) {
    const sessions = group.map((n) => findSession(t.state, n)!);
    startSplitGroup(t, lane, { failed, sessions, split: { from: failed.name, of: failed.numbers, depth } });
  }
  endSplitRoundIfDone(t, lane, failed);
}

function startSplitGroup(
  t: Transition,
  stale: Lane,
  params: { failed: Batch; sessions: readonly Session[]; split: NonNullable<Batch['split']> },
): void {
  const { failed, sessions, split } = params;
  const counter = t.state.counters.batch + 1;
  t.state = { ...t.state, counters: { ...t.state.counters, batch: counter } };
  const group: Batch = {
    id: t.ids.uuid(),
    name: `batch-${counter}`,
    queueName: failed.queueName,
    numbers: sessions.map((s) => s.number),
    parentNumbers: [],
    parentIds: [],
    baseSha: t.state.bases[stale.base]?.sha ?? null,
    mode: 'draft',
    createdAt: t.nowIso,
    retries: 0,
    overtaken: true,
    split,
    phase: 'trial',
    trial: { phase: 'preparing', attempt: 1, failures: 0, retryAt: null },
  };
  consumeCleared(t, sessions);
  const lane = currentLane(t, stale);
  const next = { ...lane, batches: [...lane.batches, group] };
  putLane(t, next);
  requestTestBranch(t, { lane: next, batch: group, attempt: 1 });
}

/** One line for a group's events: what it is for. */
export function describeSplitGroup(group: Batch, base: string): string {
  return `split from ${group.split?.from}, which failed: tested on ${base} alone beside the line to clear or find the failing pull request`;
}
