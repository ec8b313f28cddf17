import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventToAppend } from '../../app/store/events.ts';
import { eventTypes } from '../../shared/schemas/event-types.ts';
import { ApiHarness, type ApiResponse } from '../support/api-harness.ts';
import { exampleMetadata } from '../support/event-examples.ts';
import { parseLinkHeader } from '../support/link-header.ts';
import { seedEvents } from '../support/seed-events.ts';

let api: ApiHarness;
let token: string;
let repoCounter = 0;

beforeAll(async () => {
  api = await ApiHarness.start();
  token = await api.key({ owner: 'prop', role: 'read' });
}, 60_000);
afterAll(async () => {
  await api?.stop();
});

const T0 = Date.parse('2026-10-01T00:00:00Z');
// Few distinct values, so that filters often match something and often match nothing.
const someTypes = eventTypes.slice(0, 6);
const eventArb = fc.record({
  type: fc.constantFrom(...someTypes),
  minutes: fc.integer({ min: 0, max: 600 }),
  pullRequest: fc.option(fc.integer({ min: 1, max: 4 }), { nil: null }),
  baseRef: fc.option(fc.constantFrom('main', 'release', 'dev'), { nil: null }),
});
const filterArb = fc.record(
  {
    pull_request: fc.integer({ min: 1, max: 5 }),
    base_ref: fc.constantFrom('main', 'release', 'nope'),
    event_type: fc.uniqueArray(fc.constantFrom(...someTypes, 'command.queue' as const), {
      minLength: 1,
      maxLength: 3,
    }),
    received_from: fc.integer({ min: 0, max: 600 }),
    received_to: fc.integer({ min: 0, max: 600 }),
  },
  { requiredKeys: [] },
);

describe('GET /logs, property', () => {
  it('random events and random filters give what a plain in-memory filter gives, across every page', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(eventArb, { minLength: 0, maxLength: 60 }),
        filterArb,
        fc.integer({ min: 1, max: 25 }),
        async (raw, filter, perPage) => {
          fc.pre(
            filter.received_from === undefined ||
              filter.received_to === undefined ||
              filter.received_from <= filter.received_to,
          );
          const repo = await api.repository(`prop/r${++repoCounter}`);
          const events: EventToAppend[] = raw.map((e) => ({
            type: e.type,
            receivedAt: new Date(T0 + e.minutes * 60_000),
            trigger: 'test',
            pullRequest: e.pullRequest,
            baseRef: e.baseRef,
            metadata: exampleMetadata(e.type) as Record<string, unknown>,
          }));
          const ids = events.length ? await seedEvents(api.store, repo, events) : [];
          const at = (m: number) => T0 + m * 60_000;
          const want = events
            .map((e, i) => ({ ...e, id: Number(ids[i]) }))
            .filter(
              (e) =>
                (filter.pull_request === undefined || e.pullRequest === filter.pull_request) &&
                (filter.base_ref === undefined || e.baseRef === filter.base_ref) &&
                (filter.event_type === undefined || (filter.event_type as string[]).includes(e.type)) &&
                (filter.received_from === undefined || e.receivedAt.getTime() >= at(filter.received_from)) &&
                (filter.received_to === undefined || e.receivedAt.getTime() <= at(filter.received_to)),
            )
            .map((e) => e.id)
            .sort((a, b) => b - a);

          const q = new URLSearchParams({ per_page: String(perPage) });
          if (filter.pull_request !== undefined) q.set('pull_request', String(filter.pull_request));
          if (filter.base_ref !== undefined) q.set('base_ref', filter.base_ref);
          for (const t of filter.event_type ?? []) q.append('event_type', t);
          if (filter.received_from !== undefined)
            q.set('received_from', new Date(at(filter.received_from)).toISOString());
          if (filter.received_to !== undefined)
            q.set('received_to', new Date(at(filter.received_to)).toISOString());

          const got: number[] = [];
          let url: string | undefined = `/v1/repos/${repo.fullName}/logs?${q}`;
          while (url) {
            const res: ApiResponse<{ events: { id: number }[] }> = await api.request(url, { token });
            expect(res.status).toBe(200);
            got.push(...res.body.events.map((e) => e.id));
            url = parseLinkHeader(res.headers.get('link'))['next'];
          }
          expect(got).toEqual(want);
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);
});
