import { isAside } from './aside.ts';
import type { Lane, QueueState, Session } from './state.ts';
import { findLane } from './transition.ts';

/*
 * Pull requests in several partitions (QUEUE-SEMANTICS.md, "Partition"): each merges only after
 * the pull requests before it in each of its lanes, so two of them must keep one order in every
 * lane they share, and a lane must not wait for another that waits for it (app/queue/embark.ts).
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
