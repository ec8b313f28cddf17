import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventToAppend } from '../../app/store/events.ts';
import type { Repository } from '../../app/store/repositories.ts';
import { ApiHarness } from '../support/api-harness.ts';
import { parseLinkHeader } from '../support/link-header.ts';
import { makeEvents, seedEvents } from '../support/seed-events.ts';

let api: ApiHarness;
let repo: Repository;
let token: string;
let events: (EventToAppend & { id: number })[];
const BASE = '/v1/repos/acme/widgets/logs';

beforeAll(async () => {
  api = await ApiHarness.start();
  repo = await api.repository('acme/widgets');
  const other = await api.repository('acme/other');
  token = await api.key({ owner: 'acme', role: 'read' });
  const made = makeEvents(1_200, 7);
  // Another repository's events interleave with ours and must never show up.
  await seedEvents(api.store, other, makeEvents(50, 8));
  const ids = await seedEvents(api.store, repo, made);
  events = made.map((e, i) => ({ ...e, id: Number(ids[i]) }));
}, 120_000);

afterAll(async () => {
  await api?.stop();
});

/** What the log must answer, computed by plain filtering (not by the code under test). */
function expected(filter: (e: EventToAppend) => boolean) {
  return events
    .filter(filter)
    .sort((a, b) => b.id - a.id)
    .map((e) => e.id);
}

async function walk(url: string, rel: 'next' | 'prev'): Promise<{ ids: number[][]; pages: number }> {
  const pages: number[][] = [];
  let next: string | undefined = url;
  while (next) {
    const res = await api.request<{ size: number; events: { id: number }[] }>(next, { token });
    expect(res.status).toBe(200);
    expect(res.body.size).toBe(res.body.events.length);
    pages.push(res.body.events.map((e) => e.id));
    const links = parseLinkHeader(res.headers.get('link'));
    for (const href of Object.values(links)) expect(href.startsWith(`${api.baseUrl}/v1/`)).toBe(true);
    next = links[rel];
    if (pages.length > 2_000) throw new Error('pagination does not end');
  }
  return { ids: pages, pages: pages.length };
}

describe('GET /logs', () => {
  it('answers the newest 10 events by default, with every envelope field', async () => {
    const res = await api.request(BASE, { token });
    expect(res.status).toBe(200);
    expect(res.body.per_page).toBe(10);
    expect(res.body.size).toBe(10);
    expect(res.body.events.map((e: { id: number }) => e.id)).toEqual(expected(() => true).slice(0, 10));
    const first = res.body.events[0];
    expect(first.repository).toBe('acme/widgets');
    expect(Object.keys(first).sort()).toEqual(
      [
        'base_ref',
        'id',
        'metadata',
        'outcome',
        'pull_request',
        'received_at',
        'repository',
        'trigger',
        'type',
      ].sort(),
    );
    expect(first.received_at).toMatch(/Z$/);
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  it.each([
    { name: 'no filter', query: '', filter: () => true },
    {
      name: 'one event type',
      query: 'event_type=action.queue.enter',
      filter: (e: EventToAppend) => e.type === 'action.queue.enter',
    },
    {
      name: 'two event types and a base ref',
      query: 'event_type=action.queue.leave&event_type=command.queue&base_ref=main',
      filter: (e: EventToAppend) =>
        (e.type === 'action.queue.leave' || e.type === 'command.queue') && e.baseRef === 'main',
    },
    { name: 'a pull request', query: 'pull_request=3', filter: (e: EventToAppend) => e.pullRequest === 3 },
  ])(
    'walking next from the first page and prev from the last returns every event once, in order ($name)',
    async ({ query, filter }) => {
      const want = expected(filter);
      for (const perPage of [1, 7, 100]) {
        if (perPage === 1 && want.length > 200) continue; // 1,200 round trips add nothing over 7
        const url = `${BASE}?per_page=${perPage}${query ? `&${query}` : ''}`;
        const forward = await walk(url, 'next');
        expect(forward.ids.flat()).toEqual(want);
        for (const page of forward.ids.slice(0, -1)) expect(page).toHaveLength(perPage);

        const first = await api.request(url, { token });
        const lastUrl = parseLinkHeader(first.headers.get('link'))['last'];
        if (want.length <= perPage) {
          expect(first.headers.get('link')).toBeNull();
          continue;
        }
        expect(lastUrl).toBeDefined();
        const backward = await walk(lastUrl!, 'prev');
        expect(backward.ids.reverse().flat()).toEqual(want);
      }
    },
  );

  it('keeps every filter and per_page in the Link URLs, and omits prev on the first page and next on the last', async () => {
    const query =
      'per_page=5&base_ref=main&event_type=action.queue.enter&event_type=action.queue.leave&received_from=2026-10-01T00:00:00Z';
    const first = await api.request(`${BASE}?${query}`, { token });
    const links = parseLinkHeader(first.headers.get('link'));
    expect(Object.keys(links).sort()).toEqual(['first', 'last', 'next']);
    for (const href of Object.values(links)) {
      const u = new URL(href);
      expect(u.searchParams.get('per_page')).toBe('5');
      expect(u.searchParams.get('base_ref')).toBe('main');
      expect(u.searchParams.getAll('event_type')).toEqual(['action.queue.enter', 'action.queue.leave']);
      expect(u.searchParams.get('received_from')).toBe('2026-10-01T00:00:00Z');
    }
    expect(new URL(links['first']!).searchParams.has('cursor')).toBe(false);
    const last = await api.request(links['last']!, { token });
    expect(Object.keys(parseLinkHeader(last.headers.get('link'))).sort()).toEqual(['first', 'last', 'prev']);
    const middle = await api.request(links['next']!, { token });
    expect(Object.keys(parseLinkHeader(middle.headers.get('link'))).sort()).toEqual([
      'first',
      'last',
      'next',
      'prev',
    ]);
  });

  it('filters by received_from and received_to, both inclusive, with offsets and bare dates', async () => {
    const sample = events[600]!;
    const iso = sample.receivedAt.toISOString();
    const res = await api.request(`${BASE}?per_page=100&received_from=${iso}&received_to=${iso}`, { token });
    expect(res.body.events.map((e: { id: number }) => e.id)).toEqual(
      expected((e) => e.receivedAt.getTime() === sample.receivedAt.getTime()),
    );
    const day = await api.request(
      `${BASE}?per_page=100&received_from=2026-10-01&received_to=2026-10-01T02:00:00%2B02:00`,
      { token },
    );
    expect(day.body.events.map((e: { id: number }) => e.id)).toEqual(
      expected((e) => e.receivedAt.getTime() <= Date.parse('2026-10-01T00:00:00Z')).slice(0, 100),
    );
  });

  it('answers an empty page without a Link header when nothing matches', async () => {
    const res = await api.request(`${BASE}?pull_request=999`, { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ size: 0, per_page: 10, events: [] });
    expect(res.headers.get('link')).toBeNull();
  });

  it.each([
    ['per_page=0', 'per_page'],
    ['per_page=101', 'per_page'],
    ['per_page=abc', 'per_page'],
    ['per_page=2.5', 'per_page'],
    ['pull_request=0', 'pull_request'],
    ['pull_request=2147483647', 'pull_request'],
    ['base_ref=', 'base_ref'],
    [`base_ref=${'x'.repeat(256)}`, 'base_ref'],
    ['event_type=action.nope', 'event_type'],
    ['event_type=action.queue.enter&event_type=nope', 'event_type'],
    ['received_from=yesterday', 'received_from'],
    ['received_from=2026-10-01T00:00:00', 'received_from'],
    ['received_from=2026-10-02&received_to=2026-10-01', 'received_from'],
    // Valid RFC 3339, but years PostgreSQL cannot store: a 422, not a database error.
    ['received_from=0000-01-01T00:00:00Z', 'received_from'],
    ['received_to=0001-01-01T00:30:00%2B01:00', 'received_to'],
    ['received_to=9999-12-31T23:59:59-23:59', 'received_to'],
    ['cursor=%%%', 'cursor'],
    ['cursor=eyJ2IjoyfQ', 'cursor'],
  ])('answers 422 with the location for %s', async (query, field) => {
    const res = await api.request(`${BASE}?${query}`, { token });
    expect(res.status).toBe(422);
    expect(res.body.detail.length).toBeGreaterThan(0);
    expect(res.body.detail[0].loc).toEqual(expect.arrayContaining(['query', field]));
    expect(typeof res.body.detail[0].msg).toBe('string');
  });

  it('refuses a cursor taken from another query or another repository', async () => {
    const first = await api.request(`${BASE}?per_page=5`, { token });
    const next = new URL(parseLinkHeader(first.headers.get('link'))['next']!);
    const cursor = next.searchParams.get('cursor')!;
    const otherFilter = await api.request(`${BASE}?per_page=5&base_ref=main&cursor=${cursor}`, { token });
    expect(otherFilter.status).toBe(422);
    const otherRepo = await api.request(`/v1/repos/acme/other/logs?per_page=5&cursor=${cursor}`, { token });
    expect(otherRepo.status).toBe(422);
    const tampered = await api.request(`${BASE}?per_page=5&cursor=${cursor.slice(0, -3)}xyz`, { token });
    expect(tampered.status).toBe(422);
  });

  it('ignores unknown query parameters', async () => {
    const res = await api.request(`${BASE}?per_page=3&colour=blue`, { token });
    expect(res.status).toBe(200);
    expect(res.body.size).toBe(3);
  });

  it('answers 404 for a repository unknown to this installation, once authorized', async () => {
    const res = await api.request('/v1/repos/acme/nothing-here/logs', { token });
    expect(res.status).toBe(404);
    expect(res.body.detail).toMatch(/not known/);
  });
});

describe("Mergify's /logs filters this server does not implement", () => {
  it.each([
    'not_pull_request=1',
    'batch_pull=2',
    'not_batch_pull=2',
    'not_event_type=action.queue.merged',
    'outcome=success',
    'not_outcome=failure',
    'trigger=Rule%3A%20automatic%20merge',
    'not_trigger=x',
  ])('%s is a 422 naming the parameter, never an unfiltered page', async (query) => {
    const res = await api.request(`${BASE}?per_page=5&${query}`, { token });
    expect(res.status).toBe(422);
    const name = query.split('=')[0];
    expect(res.body.detail).toEqual([
      {
        loc: ['query', name],
        msg: expect.stringContaining(`${name} is not supported`),
        type: 'unsupported_filter',
      },
    ]);
  });
  it('other unknown parameters are ignored, as before', async () => {
    const res = await api.request(`${BASE}?per_page=5&colour=blue`, { token });
    expect(res.status).toBe(200);
    expect(res.body.size).toBe(5);
  });
});
