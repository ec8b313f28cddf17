import type { Event, EventOutcome } from '../../shared/schemas/event.schema.ts';
import { computeOutcome } from '../../shared/schemas/event-outcome.ts';
import { type EventType, eventTypes } from '../../shared/schemas/event-types.ts';
import type { EventText, StoredEvent } from '../store/events.ts';

/** A stored event as the API shows it: the envelope of Mergify's v1 event log plus `outcome`. */
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

/**
 * The outcome of each event type whose outcome never reads the metadata (most of them), found
 * by running computeOutcome once per type on a metadata object that notes any access:
 * computeOutcome is a pure function of the type and the metadata, so a run that ended without
 * touching the metadata took the path that every metadata of that type takes.
 */
export const outcomeWithoutMetadata: ReadonlyMap<string, EventOutcome> = (() => {
  const found = new Map<string, EventOutcome>();
  for (const type of eventTypes) {
    let read = false;
    const noted = () => {
      read = true;
      return undefined;
    };
    const probe = new Proxy(
      {},
      { get: noted, has: () => !noted(), ownKeys: () => noted() ?? [], getOwnPropertyDescriptor: noted },
    );
    try {
      const outcome = computeOutcome(type, probe as never);
      if (!read) found.set(type, outcome);
    } catch {
      // Reading the probe failed: the outcome needs the metadata.
    }
  }
  return found;
})();

/**
 * The same event as {@link toApiEvent}, as JSON text: the envelope is written here and the
 * metadata's stored JSON text spliced in; the metadata is parsed only for the few types whose
 * outcome depends on it. `repositoryJson` is the repository's full name as a JSON string.
 */
export function eventJson(event: EventText, repositoryJson: string): string {
  const outcome =
    outcomeWithoutMetadata.get(event.type) ??
    computeOutcome(event.type as EventType, JSON.parse(event.metadataJson) as never);
  return `{"id":${event.id},"received_at":"${event.receivedAt}","trigger":${JSON.stringify(event.trigger)},"repository":${repositoryJson},"pull_request":${event.pullRequest ?? 'null'},"base_ref":${event.baseRef === null ? 'null' : JSON.stringify(event.baseRef)},"type":${JSON.stringify(event.type)},"metadata":${event.metadataJson},"outcome":"${outcome}"}`;
}
