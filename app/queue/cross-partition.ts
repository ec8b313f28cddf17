import { abortBatchesFrom } from './abort.ts';
import { findMergeHead, isAside } from './aside.ts';
import { computeComparator, laneKey } from './ordering.ts';
import { repeatUntilDone } from './repeat.ts';
import type { Lane, QueueState, Session } from './state.ts';
import { findLane, findSession, lanesOf, type Transition } from './transition.ts';

/*
 * Pull requests in several partitions (docs/queue-semantics.md, "Partitions"): each merges only
 * after the pull requests before it in each of its lanes, so two of them must keep one order in
 * every lane they share, and a lane must not wait for another that waits for it
 * (app/queue/embark.ts).
 */

/**
 * Waiting pull requests of the lane that must let a pull request waiting behind them go first:
 * the two share another partition, where the one behind is already in line before them. Embarking
 * them first would put the two in opposite orders in two lanes, and since a pull request in
 * several partitions merges only after the pull requests before it in each of them, each lane
 * would wait for the other for ever (e.g. a hotfix queued into a lane where the other pull request
 * still waits, while that one is already tested in their other lane). They hold nobody back.
 */
export function findBehindElsewhere(state: QueueState, lane: Lane, waiting: readonly Session[]): Set<number> {
  const shared = waiting.filter((s) => s.partitions.length > 1);
  const behind = new Set<number>();
  if (shared.length < 2) return behind;
  const positions = new Map<string, Map<number, number>>();
  const positionIn = (partition: string): Map<number, number> => {
    let known = positions.get(partition);
    if (known === undefined) {
      const other = findLane(state, lane.base, partition);
      const line = (other?.batches ?? []).filter((b) => !isAside(state.config, b)).flatMap((b) => b.numbers);
      known = new Map(line.map((n, i) => [n, i]));
      positions.set(partition, known);
    }
    return known;
  };
  for (const [i, first] of shared.entries()) {
    for (const later of shared.slice(i + 1)) {
      const precedes = first.partitions.some((partition) => {
        if (partition === lane.partition || !later.partitions.includes(partition)) return false;
        const line = positionIn(partition);
        const at = line.get(later.number);
        const own = line.get(first.number);
        return at !== undefined && (own === undefined || at < own);
      });
      if (precedes) {
        behind.add(first.number);
        break;
      }
    }
  }
  return behind;
}

/** A lane whose head cannot merge until another lane moves: its next pull request is not at the front there. */
interface WaitEdge {
  from: Lane;
  to: Lane;
  /** The next pull request of `from`'s head, not at the front of `to`. */
  number: number;
  /** What `to` merges first instead (its head's next pull request). */
  front: number;
}

/**
 * The next pull request to merge of each lane's passed (or merging) head and, when one of its
 * other lanes has something else to merge before it, that lane. A cycle of such waits never ends
 * by itself: each lane merges only after the next one has (e.g. a hotfix embarked in one lane
 * goes before a pull request already in line in a second lane, while in a third it still waits
 * behind a batch that needs the second lane to merge first).
 */
function findWaitEdge(state: QueueState, lane: Lane): WaitEdge | null {
  const head = findMergeHead(state.config, lane);
  if (head === undefined) return null;
  if (head.phase === 'bisecting' || (head.phase === 'trial' && head.trial.phase !== 'passed')) return null;
  const pending =
    head.phase === 'merging' ? head.numbers.filter((n) => !head.merged.includes(n)) : head.numbers;
  const number = pending[0];
  if (number === undefined) return null;
  const session = findSession(state, number);
  if (session === undefined) return null;
  const rule = state.config.queue_rules.find((r) => r.name === head.queueName);
  const ordered = (rule?.merge_method ?? 'merge') !== 'fast-forward';
  for (const other of lanesOf(state, session)) {
    if (other.partition === lane.partition) continue;
    const otherHead = findMergeHead(state.config, other);
    if (otherHead === undefined) continue;
    const open =
      otherHead.phase === 'merging'
        ? otherHead.numbers.filter((n) => !otherHead.merged.includes(n))
        : otherHead.numbers;
    const front = open[0];
    if (front === undefined || front === number) continue;
    if (!ordered && open.includes(number)) continue;
    return { from: lane, to: other, number, front };
  }
  return null;
}

/** A cycle of waits between passed heads (see findWaitEdge), or null. */
export function findWaitCycle(state: QueueState): WaitEdge[] | null {
  const edges = new Map<string, WaitEdge>();
  const keyOf = (lane: Lane) => laneKey(lane);
  for (const lane of state.lanes) {
    const edge = findWaitEdge(state, lane);
    if (edge !== null) edges.set(keyOf(lane), edge);
  }
  const done = new Set<string>();
  for (const start of edges.keys()) {
    const path: string[] = [];
    let key: string | undefined = start;
    while (key !== undefined && !done.has(key) && !path.includes(key)) {
      path.push(key);
      const edge = edges.get(key);
      key = edge === undefined ? undefined : keyOf(edge.to);
    }
    if (key !== undefined && path.includes(key)) {
      return path.slice(path.indexOf(key)).map((k) => edges.get(k)!);
    }
    for (const k of path) done.add(k);
  }
  return null;
}

/**
 * Lanes that wait on each other for ever (a cycle of findWaitEdge): one of them is rebuilt.
 * Since one queue order holds in every lane, some lane of the cycle merges a pull request before
 * one that comes earlier in queue order and waits there (it embarked while the earlier one could
 * not: a hotfix queued later, a suspect held, a pull request held back). That lane's batches are
 * aborted from the one holding the pull request it merges first, so that they are built again in
 * queue order, with the earlier pull request first. Nothing is aborted while a merge is in flight.
 */
export function planBreakWaitCycles(t: Transition): void {
  if (!Object.values(t.state.sessions).some((s) => s.partitions.length > 1)) return;
  const compare = computeComparator(t.state.config);
  // Each pass that breaks a cycle aborts a lane from its merge head, which leaves only batches
  // aside in it: that lane has no head, so no wait, for the rest of the loop, and a cycle needs
  // two lanes. At most one pass per lane, plus the one that finds no cycle.
  const limit = t.state.lanes.length + 1;
  repeatUntilDone('planBreakWaitCycles: cycles of lanes waiting on each other', limit, () => {
    const cycle = findWaitCycle(t.state);
    if (cycle === null) return false;
    const edge = cycle.find((e) => {
      const waiting = findSession(t.state, e.number);
      const front = findSession(t.state, e.front);
      return waiting !== undefined && front !== undefined && compare(waiting, front) < 0;
    });
    if (edge === undefined) return false;
    const lane = edge.to;
    const index = lane.batches.findIndex((b) => b.numbers.includes(edge.front));
    const batch = lane.batches[index];
    if (batch === undefined || (batch.phase === 'merging' && batch.inFlight.length > 0)) return false;
    const reason = `${lane.partition} and ${edge.from.partition} waited on each other: #${edge.number} goes before #${edge.front}`;
    const why = { code: 'PR_DEQUEUED_FROM_PARTITION' as const, reason };
    abortBatchesFrom(t, { lane, index, first: why, behind: why });
    return true;
  });
}
