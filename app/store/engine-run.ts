import type { NewEvent } from '../../shared/schemas/event.schema.ts';
import type { Effect } from '../queue/effects.ts';
import type { IdSource } from '../queue/ids.ts';
import type { QueueInput } from '../queue/inputs.ts';
import type { QueueState } from '../queue/state.ts';
import { step } from '../queue/step.ts';
import { type EventToAppend, toEventToAppend } from './events.ts';

/** What a step transaction writes after running the engine on its inputs. */
export interface EngineRun {
  state: QueueState;
  events: EventToAppend[];
  /** Effects for the outbox (wake-ups are apart). */
  effects: Effect[];
  wakeUps: { key: string; at: Date }[];
}

/** Steps the engine through the inputs in order, from `loaded` (pure: nothing is written). */
export function runEngine(
  loaded: QueueState,
  inputs: readonly QueueInput[],
  context: { now: Date; ids: IdSource },
): EngineRun {
  let state = loaded;
  const events: NewEvent[] = [];
  const effects: Effect[] = [];
  for (const input of inputs) {
    const result = step(state, input, context);
    state = result.state;
    events.push(...result.events);
    effects.push(...result.effects);
  }
  return {
    state,
    events: events.map((e) => toEventToAppend(e, context.now)),
    effects: effects.filter((e) => e.type !== 'schedule_wake_up'),
    wakeUps: effects.flatMap((e) =>
      e.type === 'schedule_wake_up' ? [{ key: e.key, at: new Date(e.at) }] : [],
    ),
  };
}
