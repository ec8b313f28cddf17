import type { Store } from '../../app/store/database.ts';
import { appendEvents, type EventToAppend } from '../../app/store/events.ts';
import type { Repository } from '../../app/store/repositories.ts';
import { inRepositoryTransaction } from '../../app/store/repository-transaction.ts';
import { eventTypes } from '../../shared/schemas/event-types.ts';
import { exampleMetadata } from './event-examples.ts';

/** A deterministic pseudo-random sequence, so seeded histories are the same on every run. */
export function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Valid events of varied types, pull requests, base refs and times, in time order. */
export function makeEvents(
  count: number,
  seed = 1,
  start = Date.parse('2026-10-01T00:00:00Z'),
): EventToAppend[] {
  const random = lcg(seed);
  const events: EventToAppend[] = [];
  let t = start;
  for (let i = 0; i < count; i++) {
    t += Math.floor(random() * 60_000);
    const type = eventTypes[Math.floor(random() * eventTypes.length)]!;
    const pr = random() < 0.1 ? null : 1 + Math.floor(random() * 20);
    events.push({
      type,
      receivedAt: new Date(t),
      trigger: 'Rule: default',
      pullRequest: pr,
      baseRef: pr === null ? null : random() < 0.7 ? 'main' : 'release/1.x',
      metadata: exampleMetadata(type) as Record<string, unknown>,
    });
  }
  return events;
}

export async function seedEvents(
  store: Store,
  repository: Repository,
  events: EventToAppend[],
): Promise<string[]> {
  return inRepositoryTransaction(store.db, repository.id, (tx) => appendEvents(tx, repository.id, events));
}
