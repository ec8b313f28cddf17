import { decideRequeue, enterQueue } from './enter.ts';
import type { RequeueRequested } from './inputs.ts';
import { emit, envelope } from './queue-events.ts';
import type { Session } from './state.ts';
import type { Transition } from './transition.ts';

/**
 * A requeue asked through the API: the decision of `@trainyard requeue [rule]`; when it enters,
 * `action.requeue` (who asked, in its trigger) then its enter event. The API answers refusals
 * before it asks (same state, same decision), so a refusal here changes nothing.
 */
export function handleRequeueRequested(t: Transition, input: RequeueRequested): Session | null {
  const decision = decideRequeue(t, input.number, input.queueName);
  if (decision.kind !== 'enter') return null;
  const by = input.by.type === 'application' ? `key "${input.by.name}"` : `@${input.by.name}`;
  const trigger = `API: requeue by ${by}`;
  emit(t, envelope(t, 'action.requeue', { number: input.number, base: decision.pr.base, trigger }, {}));
  return enterQueue(t, decision.pr, decision.rule);
}
