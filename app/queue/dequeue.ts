import type { DequeueRequested } from './inputs.ts';
import { leaveQueue } from './leave.ts';
import type { Transition } from './transition.ts';

/**
 * A dequeue asked through the API: the pull request leaves as with `@trainyard dequeue`
 * (PR_MANUALLY_DEQUEUED), the batches holding it and those behind are rebuilt. Nothing happens
 * when it is not queued (the API answers 404 before asking).
 */
export function handleDequeueRequested(t: Transition, input: DequeueRequested): void {
  const by = input.by.type === 'application' ? `key "${input.by.name}"` : `@${input.by.name}`;
  leaveQueue(t, input.number, { code: 'PR_MANUALLY_DEQUEUED', detail: `dequeued by ${by} through the API` });
}
