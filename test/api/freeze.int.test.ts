import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QueueState } from '../../app/queue/state.ts';
import { loadQueueState } from '../../app/store/queue-state.ts';
import { runStep } from '../../app/store/step-transaction.ts';
import { createCountingIds } from '../queue/support/scenario.ts';
import { ApiHarness } from '../support/api-harness.ts';
import { openedAndQueued } from '../support/queue-inputs.ts';

/*
 * Scheduled freezes on the real server (loopback HTTP, a real store): Mergify's shapes, the
 * scheduled_freeze.* events, time zones, and the engine holding merges while one is active.
 */

let api: ApiHarness;
// Winter in Paris: UTC+1.
let clock = new Date('2026-11-02T09:00:00.000Z');
let admin: { secret: string; id: string };
let reader: string;
let repoCount = 0;

beforeAll(async () => {
  api = await ApiHarness.start({ now: () => clock });
  const { createApiKey } = await import('../../app/store/api-keys.ts');
  const made = await createApiKey(api.store.db, {
    name: 'oncall',
    owner: 'acme',
    repository: null,
    role: 'admin',
    now: clock,
  });
  admin = { secret: made.secret, id: made.key.id };
  reader = await api.key({ owner: 'acme', role: 'read', name: 'dashboard' });
});

afterAll(async () => {
  await api?.stop();
});

async function freshRepo() {
  repoCount += 1;
  const repository = await api.repository(`acme/frozen-${repoCount}`);
  return { id: repository.id, base: `/v1/repos/acme/frozen-${repoCount}` };
}

const advance = (minutes: number) => {
  clock = new Date(clock.getTime() + minutes * 60_000);
};

type Freeze = {
  id: string;
  reason: string;
  start: string;
  end: string | null;
  timezone: string;
  matching_conditions: string[];
  exclude_conditions: string[];
};

// Answers are a freeze or an error body.
const create = (base: string, body: unknown, token = admin.secret) =>
  api.request(`${base}/scheduled_freeze`, { method: 'POST', token, body });
const update = (base: string, id: string, body: unknown, token = admin.secret) =>
  api.request(`${base}/scheduled_freeze/${id}`, { method: 'PATCH', token, body });
const list = async (base: string) => {
  const res = await api.request<{ scheduled_freezes: Freeze[] }>(`${base}/scheduled_freeze`, {
    token: reader,
  });
  expect(res.status).toBe(200);
  return res.body.scheduled_freezes;
};

async function eventsOf(base: string, type: string) {
  const res = await api.request(`${base}/logs?event_type=${type}&per_page=100`, { token: reader });
  expect(res.status).toBe(200);
  return res.body.events as { trigger: string; received_at: string; metadata: Record<string, unknown> }[];
}

const release = {
  reason: 'Release week',
  start: '2026-11-02T12:00:00',
  end: '2026-11-02T18:00:00',
  timezone: 'Europe/Paris',
  matching_conditions: ['base=main'],
  exclude_conditions: ['label=hotfix'],
};

describe('GET and POST /scheduled_freeze', () => {
  it('lists nothing before any freeze, even before the engine ran for the repository', async () => {
    const { base } = await freshRepo();
    expect(await list(base)).toEqual([]);
  });

  it('creates a freeze: 201 with its id, wall-clock times of its zone, and a scheduled_freeze.create naming the key', async () => {
    const { base } = await freshRepo();
    const res = await create(base, release);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.any(String), ...release });
    expect(await list(base)).toEqual([res.body]);
    const [event, ...rest] = await eventsOf(base, 'scheduled_freeze.create');
    expect(rest).toEqual([]);
    expect(event!.metadata).toEqual({
      scheduled_freeze_attributes: {
        reason: 'Release week',
        start: '2026-11-02T11:00:00.000Z',
        end: '2026-11-02T17:00:00.000Z',
        timezone: 'Europe/Paris',
        matching_conditions: ['base=main'],
        exclude_conditions: ['label=hotfix'],
      },
      created_by: { type: 'application', id: admin.id, name: 'oncall' },
      created_at: clock.toISOString(),
    });
  });

  it('starts now without a start, lasts until deleted without an end, and reads an offset as that instant', async () => {
    const { base } = await freshRepo();
    const res = await create(base, { reason: 'Incident', timezone: 'America/New_York', start: null });
    expect(res.status).toBe(201);
    // 09:00Z is 04:00 in New York in November.
    expect(res.body).toMatchObject({
      start: '2026-11-02T04:00:00',
      end: null,
      matching_conditions: [],
      exclude_conditions: [],
    });
    const offset = await create(base, {
      ...release,
      start: '2026-11-03T08:00:00Z',
      end: '2026-11-03T10:00:00+01:00',
    });
    expect(offset.body).toMatchObject({ start: '2026-11-03T09:00:00', end: '2026-11-03T10:00:00' });
    expect((await list(base)).map((f) => f.reason)).toEqual(['Incident', 'Release week']);
  });

  it.each([
    ['an unknown time zone', { ...release, timezone: 'Mars/Olympus' }, ['body', 'timezone']],
    ['no time zone', { reason: 'x' }, ['body', 'timezone']],
    ['no reason', { timezone: 'UTC' }, ['body', 'reason']],
    ['an empty reason', { ...release, reason: '  ' }, ['body', 'reason']],
    ['a time that is not one', { ...release, start: 'next monday' }, ['body', 'start']],
    ['a date that does not exist', { ...release, end: '2026-11-31T10:00:00' }, ['body', 'end']],
    ['an end before the start', { ...release, end: '2026-11-02T11:00:00' }, ['body', 'end']],
    [
      'an end already past',
      { ...release, start: '2026-11-01T08:00:00', end: '2026-11-02T08:00:00' },
      ['body', 'end'],
    ],
    [
      'a condition that does not parse',
      { ...release, matching_conditions: ['label~=('] },
      ['body', 'matching_conditions', 0],
    ],
    [
      'conditions as a mapping',
      { ...release, exclude_conditions: { or: ['label=a'] } },
      ['body', 'exclude_conditions'],
    ],
    ['an unknown field', { ...release, paused: true }, ['body']],
  ])('refuses %s with 422 and creates nothing', async (_name, body, loc) => {
    const { base } = await freshRepo();
    const res = await create(base, body);
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: unknown[] }) => d.loc.slice(0, loc.length))).toContainEqual(loc);
    expect(await list(base)).toEqual([]);
    expect(await eventsOf(base, 'scheduled_freeze.create')).toEqual([]);
  });

  it('lets a read key list but not create (403), and refuses a request without a credential (403)', async () => {
    const { base } = await freshRepo();
    const res = await create(base, release, reader);
    expect(res.status).toBe(403);
    expect(res.body.detail).toContain('admin key');
    expect((await api.request(`${base}/scheduled_freeze`)).status).toBe(403);
    expect((await api.request('/v1/repos/acme/nowhere/scheduled_freeze', { token: reader })).status).toBe(
      404,
    );
  });
});

describe('PATCH /scheduled_freeze/{freeze_id}', () => {
  it('changes only the fields given, and logs scheduled_freeze.update with before and after', async () => {
    const { base } = await freshRepo();
    const { body: created } = await create(base, release);
    advance(1);
    const res = await update(base, created.id, {
      reason: 'Release week, extended',
      end: '2026-11-02T20:00:00',
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...created, reason: 'Release week, extended', end: '2026-11-02T20:00:00' });
    expect(await list(base)).toEqual([res.body]);
    const [event] = await eventsOf(base, 'scheduled_freeze.update');
    expect(event!.metadata).toMatchObject({
      scheduled_freeze_attributes_before: { reason: 'Release week', end: '2026-11-02T17:00:00.000Z' },
      scheduled_freeze_attributes_after: {
        reason: 'Release week, extended',
        end: '2026-11-02T19:00:00.000Z',
      },
      updated_by: { type: 'application', name: 'oncall' },
      updated_at: clock.toISOString(),
    });
  });

  it('keeps the wall-clock times when the time zone of a freeze not started yet changes', async () => {
    const { base } = await freshRepo();
    const { body: created } = await create(base, release);
    const res = await update(base, created.id, { timezone: 'UTC' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      start: '2026-11-02T12:00:00',
      end: '2026-11-02T18:00:00',
      timezone: 'UTC',
    });
    const [event] = await eventsOf(base, 'scheduled_freeze.update');
    expect(event!.metadata).toMatchObject({
      scheduled_freeze_attributes_after: {
        start: '2026-11-02T12:00:00.000Z',
        end: '2026-11-02T18:00:00.000Z',
      },
    });
  });

  it('answers 400 when the start of a freeze that has started would change; its end may still change', async () => {
    const { base } = await freshRepo();
    const { body: created } = await create(base, { ...release, start: null });
    advance(5);
    const moved = await update(base, created.id, { start: '2026-11-02T13:00:00' });
    expect(moved.status).toBe(400);
    expect(moved.body).toEqual({ detail: expect.stringContaining('already started') });
    const rezoned = await update(base, created.id, { timezone: 'Asia/Tokyo' });
    expect(rezoned.status).toBe(400);
    // The same start is no change.
    expect((await update(base, created.id, { start: created.start })).status).toBe(200);
    const ended = await update(base, created.id, { end: null });
    expect(ended.status).toBe(200);
    expect(ended.body.end).toBeNull();
    expect(await eventsOf(base, 'scheduled_freeze.update')).toHaveLength(2);
  });

  it('answers 404 for an unknown id, 422 for an id that is not a uuid or a bad change, 403 for a read key', async () => {
    const { base } = await freshRepo();
    const { body: created } = await create(base, release);
    const unknown = await update(base, '6f1c2a4e-1111-4222-8333-944445555666', { reason: 'x' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.detail).toContain('does not exist');
    expect((await update(base, 'not-a-uuid', { reason: 'x' })).status).toBe(422);
    expect((await update(base, created.id, { end: '2026-11-02T11:00:00' })).status).toBe(422);
    expect((await update(base, created.id, { start: null })).status).toBe(422);
    expect((await update(base, created.id, { id: created.id })).status).toBe(422);
    expect((await update(base, created.id, { reason: 'x' }, reader)).status).toBe(403);
    expect(await list(base)).toEqual([created]);
  });

  it('forgets a freeze once it has ended: not listed, 404 to change or delete', async () => {
    const { base } = await freshRepo();
    const { body: created } = await create(base, { ...release, start: null, end: '2026-11-02T11:00:00' });
    advance(61);
    expect(await list(base)).toEqual([]);
    expect((await update(base, created.id, { reason: 'x' })).status).toBe(404);
    const del = await api.request(`${base}/scheduled_freeze/${created.id}`, {
      method: 'DELETE',
      token: admin.secret,
    });
    expect(del.status).toBe(404);
  });
});

describe('deleting a scheduled freeze', () => {
  it('POST …/delete with a reason: 204, scheduled_freeze.delete with the reason, gone from the list', async () => {
    const { base } = await freshRepo();
    const { body: created } = await create(base, release);
    const res = await api.request(`${base}/scheduled_freeze/${created.id}/delete`, {
      method: 'POST',
      token: admin.secret,
      body: { delete_reason: 'shipped early' },
    });
    expect(res.status).toBe(204);
    expect(await list(base)).toEqual([]);
    const [event] = await eventsOf(base, 'scheduled_freeze.delete');
    expect(event!.metadata).toMatchObject({
      scheduled_freeze_attributes: { reason: 'Release week' },
      reason: 'shipped early',
      deleted_by: { type: 'application', name: 'oncall' },
      deleted_at: clock.toISOString(),
    });
    const again = await api.request(`${base}/scheduled_freeze/${created.id}/delete`, {
      method: 'POST',
      token: admin.secret,
    });
    expect(again.status).toBe(404);
  });

  it('POST …/delete without a body and DELETE both answer 204; a read key gets 403', async () => {
    const { base } = await freshRepo();
    const { body: one } = await create(base, release);
    const { body: two } = await create(base, release);
    const path = (id: string) => `${base}/scheduled_freeze/${id}`;
    expect((await api.request(`${path(one.id)}/delete`, { method: 'POST', token: reader })).status).toBe(403);
    expect(
      (await api.request(`${path(one.id)}/delete`, { method: 'POST', token: admin.secret })).status,
    ).toBe(204);
    expect((await api.request(path(two.id), { method: 'DELETE', token: admin.secret })).status).toBe(204);
    const deleted = await eventsOf(base, 'scheduled_freeze.delete');
    expect(deleted.map((e) => e.metadata['reason'])).toEqual(['', '']);
    expect(
      (
        await api.request(`${path(two.id)}/delete`, {
          method: 'POST',
          token: admin.secret,
          body: { why: 'x' },
        })
      ).status,
    ).toBe(422);
  });
});

describe('a freeze created through the API, in the engine', () => {
  const ids = createCountingIds();

  const engineState = async (id: string) => (await loadQueueState(api.store.db, id)) as QueueState;
  const merges = async (id: string) =>
    (
      await api.store.db
        .selectFrom('outbox')
        .select('key')
        .where('repository_id', '=', id)
        .where('key', 'like', 'merge_pr:%')
        .execute()
    ).map((r) => r.key);

  it('holds the merge of a pull request whose checks passed, shows it frozen, and lifts at its end', async () => {
    clock = new Date('2026-11-02T09:00:00.000Z');
    const repo = await freshRepo();
    await runStep({ db: api.store.db, repositoryId: repo.id, inputs: openedAndQueued(1), now: clock, ids });
    // 10:00 to 11:00 in Paris: 09:00Z to 10:00Z.
    const res = await create(repo.base, {
      reason: 'Deploy',
      start: null,
      end: '2026-11-02T11:00:00',
      timezone: 'Europe/Paris',
    });
    expect(res.status).toBe(201);
    const state = await engineState(repo.id);
    expect(state.freezes.map((f) => f.freeze)).toEqual([
      {
        id: res.body.id,
        reason: 'Deploy',
        start: '2026-11-02T09:00:00.000Z',
        end: '2026-11-02T10:00:00.000Z',
        timezone: 'Europe/Paris',
        matchingConditions: [],
        excludeConditions: [],
      },
    ]);
    const batch = state.lanes[0]!.batches[0]!;
    const step = (inputs: Parameters<typeof runStep>[0]['inputs']) =>
      runStep({ db: api.store.db, repositoryId: repo.id, inputs, now: clock, ids });
    await step([
      { type: 'test_branch_prepared', batchId: batch.id, attempt: 1, sha: 'tested-1', draftPullRequest: 900 },
    ]);
    advance(10);
    await step([
      {
        type: 'checks_reported',
        sha: 'tested-1',
        checks: [
          {
            name: 'ci',
            state: 'success',
            url: null,
            description: '',
            avatarUrl: null,
            startedAt: null,
            completedAt: null,
          },
        ],
      },
    ]);
    expect(await merges(repo.id)).toEqual([]);
    const status = await api.request(`${repo.base}/merge-queue/status`, { token: reader });
    expect(status.body.batches.map((b: { status: { code: string } }) => b.status.code)).toEqual(['frozen']);
    // The engine asked to be woken at the freeze's end.
    const timers = await api.store.db
      .selectFrom('timers')
      .select('due_at')
      .where('repository_id', '=', repo.id)
      .execute();
    expect(timers.map((t) => new Date(t.due_at).toISOString())).toEqual(['2026-11-02T10:00:00.000Z']);
    clock = new Date('2026-11-02T10:00:00.000Z');
    await step([{ type: 'tick' }]);
    expect(await merges(repo.id)).toHaveLength(1);
  });

  it('a deleted freeze stops holding at once', async () => {
    clock = new Date('2026-11-02T09:00:00.000Z');
    const repo = await freshRepo();
    await runStep({ db: api.store.db, repositoryId: repo.id, inputs: openedAndQueued(1), now: clock, ids });
    const { body: freeze } = await create(repo.base, { reason: 'Deploy', timezone: 'UTC' });
    const batch = (await engineState(repo.id)).lanes[0]!.batches[0]!;
    const step = (inputs: Parameters<typeof runStep>[0]['inputs']) =>
      runStep({ db: api.store.db, repositoryId: repo.id, inputs, now: clock, ids });
    await step([
      { type: 'test_branch_prepared', batchId: batch.id, attempt: 1, sha: 'tested-2', draftPullRequest: 901 },
    ]);
    await step([
      {
        type: 'checks_reported',
        sha: 'tested-2',
        checks: [
          {
            name: 'ci',
            state: 'success',
            url: null,
            description: '',
            avatarUrl: null,
            startedAt: null,
            completedAt: null,
          },
        ],
      },
    ]);
    expect(await merges(repo.id)).toEqual([]);
    const del = await api.request(`${repo.base}/scheduled_freeze/${freeze.id}`, {
      method: 'DELETE',
      token: admin.secret,
    });
    expect(del.status).toBe(204);
    expect(await merges(repo.id)).toHaveLength(1);
  });
});
