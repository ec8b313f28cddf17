import { computeOutcome } from '../../shared/schemas/event-outcome.ts';
import type { EventToAppend } from '../store/events.ts';

export type TestedUnitOutcome = 'success' | 'failure' | 'aborted' | 'other';

/**
 * The outcome of each tested unit (a batch, or a bisection's sub-batch) whose checks ended in
 * these events. The engine ends a unit's checks once, with one `checks_end` per pull request of
 * the unit, all in the same step: they are counted once per unit (`train_car_id`). Failed checks
 * are a failure even when the end is an abort for a retry, as in the event log's `outcome`.
 */
export function classifyTestedUnits(events: readonly EventToAppend[]): TestedUnitOutcome[] {
  const seen = new Set<string>();
  const outcomes: TestedUnitOutcome[] = [];
  for (const event of events) {
    if (event.type !== 'action.queue.checks_end') continue;
    const unit = event.metadata.train_car_id;
    if (typeof unit === 'string') {
      if (seen.has(unit)) continue;
      seen.add(unit);
    }
    const outcome = computeOutcome('action.queue.checks_end', event.metadata as never);
    if (outcome === 'success' || outcome === 'failure') outcomes.push(outcome);
    else outcomes.push(event.metadata.aborted === true ? 'aborted' : 'other');
  }
  return outcomes;
}
