import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventJson, outcomeWithoutMetadata, toApiEvent } from '../../app/api/event-response.ts';
import type { Store } from '../../app/store/database.ts';
import { type EventToAppend, listEvents, listEventTexts } from '../../app/store/events.ts';
import { ensureRepository, type Repository } from '../../app/store/repositories.ts';
import { eventTypes } from '../../shared/schemas/event-types.ts';
import { exampleMetadata, exampleMetadataVariants } from '../support/event-examples.ts';
import { seedEvents } from '../support/seed-events.ts';
import { openTestStore } from '../support/test-store.ts';

/*
 * The log route writes each event's JSON itself around the metadata's stored JSON text
 * (eventJson) instead of parsing the metadata and stringifying the page. It must say exactly
 * what the object form (toApiEvent + JSON.stringify) says, for every type and awkward value.
 */

let store: Store;
let repo: Repository;

const at = (i: number) => new Date(Date.parse('2026-11-01T10:00:00.000Z') + i * 1_001);

function events(): EventToAppend[] {
  const list: EventToAppend[] = [];
  const add = (type: string, metadata: Record<string, unknown>, more: Partial<EventToAppend> = {}) =>
    list.push({
      type,
      receivedAt: at(list.length),
      trigger: 'Rule: default',
      pullRequest: 42,
      baseRef: 'main',
      metadata,
      ...more,
    });
  for (const type of eventTypes) {
    for (const metadata of exampleMetadataVariants(type)) add(type, metadata as Record<string, unknown>);
  }
  // Every branch of the outcomes that read the metadata.
  const leave = exampleMetadata('action.queue.leave') as Record<string, unknown>;
  add('action.queue.leave', { ...leave, merged: false, reason: 'CHECKS_FAILED: 2 required checks failed' });
  add('action.queue.leave', { ...leave, merged: false, reason: 'PR_DEQUEUED' });
  add('action.queue.leave', { ...leave, merged: false, reason: 'not a code' });
  const checksEnd = exampleMetadata('action.queue.checks_end') as Record<string, unknown>;
  add('action.queue.checks_end', { ...checksEnd, checks_timed_out: true });
  add('action.queue.checks_end', { ...checksEnd, aborted: true, abort_code: 'CHECKS_RETRIED' });
  add('action.queue.checks_end', { ...checksEnd, checks_conclusion: 'neutral' });
  const postCheck = exampleMetadata('action.post_check') as Record<string, unknown>;
  add('action.post_check', { ...postCheck, conclusion: 'success' });
  add('action.post_check', { ...postCheck, conclusion: 'failure' });
  const bisection = exampleMetadata('action.queue.batch_bisection_end') as Record<string, unknown>;
  add('action.queue.batch_bisection_end', { ...bisection, culprit_found: true });
  add('action.queue.batch_bisection_end', { ...bisection, culprit_found: false });
  // Text that JSON must escape, non-ASCII, numbers, and nulls in the envelope.
  add(
    'action.comment',
    {
      ...(exampleMetadata('action.comment') as Record<string, unknown>),
      message: 'quote " backslash \\ slash / tab \t newline \n bell \u0007 é 日本 😀 \u2028',
      n: 12345678901234,
      f: 0.1,
      neg: -1.5e-7,
    },
    { pullRequest: null, baseRef: 'release/"1.x"\\é', trigger: 'API: pause by key "on\\call"' },
  );
  add('queue.pause.create', exampleMetadata('queue.pause.create') as Record<string, unknown>, {
    pullRequest: null,
    baseRef: null,
  });
  return list;
}

beforeAll(async () => {
  store = await openTestStore();
  repo = await ensureRepository(store.db, { owner: 'Acme', name: 'Wid"gets' });
  await seedEvents(store, repo, events());
  // A time with microseconds (an imported history may carry them): shown to the millisecond.
  await sql`UPDATE events SET received_at = '2026-11-01T23:59:59.999999Z' WHERE id = (SELECT max(id) FROM events)`.execute(
    store.db,
  );
}, 60_000);

afterAll(async () => {
  await store?.close();
});

describe('eventJson', () => {
  it('says what toApiEvent + JSON.stringify say, for every event type and awkward values', async () => {
    const objects = await listEvents(store.db, repo.id, {}, { kind: 'newest' }, 500);
    const texts = await listEventTexts(store.db, repo.id, {}, { kind: 'newest' }, 500);
    expect(texts.events.length).toBe(objects.events.length);
    expect(texts.events.length).toBeGreaterThan(eventTypes.length + 10);
    const repositoryJson = JSON.stringify(repo.fullName);
    for (const [i, text] of texts.events.entries()) {
      const written = eventJson(text, repositoryJson);
      const expected = toApiEvent(objects.events[i]!, repo.fullName);
      expect(JSON.parse(written)).toEqual(JSON.parse(JSON.stringify(expected)));
      // The same fields in the same order.
      expect(Object.keys(JSON.parse(written))).toEqual(Object.keys(expected));
    }
    expect(texts.events[0]!.receivedAt).toBe('2026-11-01T23:59:59.999Z');
    const outcomes = new Set(texts.events.map((e) => JSON.parse(eventJson(e, repositoryJson)).outcome));
    expect(outcomes).toEqual(new Set(['success', 'failure', 'neutral', 'pending']));
  });

  it('reads the metadata only for the types whose outcome depends on it', () => {
    const needMetadata = eventTypes.filter((t) => !outcomeWithoutMetadata.has(t));
    expect(needMetadata.sort()).toEqual([
      'action.post_check',
      'action.queue.batch_bisection_end',
      'action.queue.checks_end',
      'action.queue.leave',
    ]);
    expect(outcomeWithoutMetadata.get('action.queue.merged')).toBe('success');
    expect(outcomeWithoutMetadata.get('action.queue.enter')).toBe('pending');
    expect(outcomeWithoutMetadata.get('action.queue.checks_not_started')).toBe('failure');
  });
});
