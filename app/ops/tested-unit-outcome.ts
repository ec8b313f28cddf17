import { LRUCache } from 'lru-cache';
import { computeOutcome } from '../../shared/schemas/event-outcome.ts';
import type { EventToAppend } from '../store/events.ts';

export type TestedUnitOutcome = 'success' | 'failure' | 'aborted' | 'other';

/**
 * Tested units (a batch, or a bisection's sub-batch) whose checks ended. The engine records one
 * `checks_end` per pull request of a unit, not always in one step (a passed batch's pull requests
 * end theirs as each is merged): a unit is counted at its first, remembered by its
 * `train_car_id` among the last 10,000. Failed checks are a failure even when the end is an
 * abort for a retry, as in the event log's `outcome`.
 */
export class TestedUnitEnds {
  private readonly seen = new LRUCache<string, true>({ max: 10_000 });

  /** The outcome of each unit whose checks end here for the first time. */
  outcomesOf(events: readonly EventToAppend[]): TestedUnitOutcome[] {
    return classifyTestedUnits(events, this.seen);
  }
}

function classifyTestedUnits(
  events: readonly EventToAppend[],
  seen: LRUCache<string, true>,
): TestedUnitOutcome[] {
  const outcomes: TestedUnitOutcome[] = [];
  for (const event of events) {
    if (event.type !== 'action.queue.checks_end') continue;
    const unit = event.metadata.train_car_id;
    if (typeof unit === 'string') {
      if (seen.has(unit)) continue;
      seen.set(unit, true);
    }
    const outcome = computeOutcome('action.queue.checks_end', event.metadata as never);
    if (outcome === 'success' || outcome === 'failure') outcomes.push(outcome);
    else outcomes.push(event.metadata.aborted === true ? 'aborted' : 'other');
  }
  return outcomes;
}
