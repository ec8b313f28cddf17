import type { Event } from '../../shared/schemas/event.schema.ts';
import { computeOutcome } from '../../shared/schemas/event-outcome.ts';
import type { StoredEvent } from '../store/events.ts';

/** A stored event as the API shows it (the envelope of SPEC.md plus `outcome`). */
export function toApiEvent(event: StoredEvent, repositoryFullName: string): Event {
  return {
    id: Number(event.id),
    received_at: event.receivedAt.toISOString(),
    trigger: event.trigger,
    repository: repositoryFullName,
    pull_request: event.pullRequest,
    base_ref: event.baseRef,
    type: event.type,
    metadata: event.metadata,
    outcome: computeOutcome(event.type as Event['type'], event.metadata as never),
  } as Event;
}
