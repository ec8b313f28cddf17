import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { QueueState } from '../../app/queue/state.ts';
import { createApiKey, type KeyRole } from '../../app/store/api-keys.ts';
import { loadQueueState } from '../../app/store/queue-state.ts';
import { runStep } from '../../app/store/step-transaction.ts';
import { createCountingIds } from '../queue/support/scenario.ts';
import { ApiHarness, FAKE_GITHUB_API } from '../support/api-harness.ts';
import { openedAndQueued } from '../support/queue-inputs.ts';

let api: ApiHarness;
let clock = new Date('2026-11-01T10:00:00.000Z');
let admin: { id: string; secret: string };
let reader: string;
let repoCount = 0;

async function makeKey(name: string, role: KeyRole = 'admin') {
  const { key, secret } = await createApiKey(api.store.db, {
    name,
    owner: 'acme',
    repository: null,
    role,
    now: clock,
  });
  return { id: key.id, secret };
}

/** A repository of its own, so each test starts with a queue that is not paused. */
async function freshRepo(): Promise<string> {
  repoCount += 1;
  await api.repository(`acme/queue-${repoCount}`);
  return `/v1/repos/acme/queue-${repoCount}`;
}

const advance = (seconds: number) => {
  clock = new Date(clock.getTime() + seconds * 1000);
};

async function eventsOf(base: string, type: string) {
  const res = await api.request(`${base}/logs?event_type=${type}&per_page=100`, { token: reader });
  expect(res.status).toBe(200);
  return res.body.events as {
    type: string;
    trigger: string;
    received_at: string;
    metadata: Record<string, unknown>;
  }[];
}

const pause = (base: string, body: unknown, token = admin.secret) =>
  api.request(`${base}/merge-queue/pause`, { method: 'PUT', token, body });

beforeAll(async () => {
  api = await ApiHarness.start({ now: () => clock });
  admin = await makeKey('oncall');
  reader = (await makeKey('dashboard', 'read')).secret;
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
});

afterEach(() => {
  nock.cleanAll();
});

afterAll(async () => {
  nock.enableNetConnect();
  await api?.stop();
});

describe('PUT /merge-queue/pause', () => {
  it('pauses a queue that is not paused: 200 with reason and paused_at, and a queue.pause.create naming the key', async () => {
    const base = await freshRepo();
    const res = await pause(base, { reason: 'release freeze' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ paused: true, reason: 'release freeze', paused_at: clock.toISOString() });

    const [event, ...rest] = await eventsOf(base, 'queue.pause.create');
    expect(rest).toHaveLength(0);
    expect(event).toMatchObject({
      type: 'queue.pause.create',
      received_at: clock.toISOString(),
      repository: `acme/${base.split('/').at(-1)}`,
      pull_request: null,
      base_ref: null,
      metadata: {
        reason: 'release freeze',
        created_by: { type: 'application', id: admin.id, name: 'oncall' },
      },
    });
    expect(Object.keys(event!.metadata).sort()).toEqual(['created_by', 'reason']);
    expect(event!.trigger).toContain('"oncall"');
  });

  it('pausing again replaces the reason, keeps paused_at, and logs queue.pause.update naming the key', async () => {
    const base = await freshRepo();
    const first = await pause(base, { reason: 'first' });
    advance(90);
    const second = await pause(base, { reason: 'second' });
    expect(second.status).toBe(200);
    expect(second.body).toEqual({ paused: true, reason: 'second', paused_at: first.body.paused_at });

    expect(await eventsOf(base, 'queue.pause.create')).toHaveLength(1);
    const updates = await eventsOf(base, 'queue.pause.update');
    expect(updates).toHaveLength(1);
    expect(updates[0]!.received_at).toBe(clock.toISOString());
    expect(updates[0]!.metadata).toEqual({
      reason: 'second',
      updated_by: { type: 'application', id: admin.id, name: 'oncall' },
    });
    expect(updates[0]!.trigger).toContain('"oncall"');
  });

  it('trims the reason, and accepts 255 characters once trimmed', async () => {
    const base = await freshRepo();
    expect((await pause(base, { reason: '  deploy freeze \n' })).body.reason).toBe('deploy freeze');
    const long = 'r'.repeat(255);
    const res = await pause(base, { reason: `  ${long}  ` });
    expect(res.status).toBe(200);
    expect(res.body.reason).toBe(long);
    expect((await eventsOf(base, 'queue.pause.update'))[0]!.metadata.reason).toBe(long);
  });

  it.each([
    ['an empty reason', { reason: '' }],
    ['a whitespace-only reason', { reason: ' \t\n ' }],
    ['a 256-character reason', { reason: 'x'.repeat(256) }],
    ['no reason', {}],
    ['a number as reason', { reason: 42 }],
    ['null as reason', { reason: null }],
    ['an array as reason', { reason: ['a'] }],
  ])('refuses %s with 422 at body.reason and leaves the queue as it was', async (_name, body) => {
    const base = await freshRepo();
    const res = await pause(base, body);
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: unknown }) => d.loc)).toContainEqual(['body', 'reason']);
    expect((await api.request(`${base}/merge-queue/pause`, { token: reader })).status).toBe(404);
    expect(await eventsOf(base, 'queue.pause.create')).toHaveLength(0);
  });

  it('counts the reason in characters, not UTF-16 units: 255 emoji pass, 256 do not', async () => {
    const base = await freshRepo();
    expect((await pause(base, { reason: '😀'.repeat(255) })).status).toBe(200);
    expect((await pause(base, { reason: '😀'.repeat(256) })).status).toBe(422);
  });

  it.each([
    ['a NUL character', 'stop\u0000now'],
    ['a lone surrogate', 'stop \ud800 now'],
  ])('answers 200 or 422, never a 5xx, to a reason with %s', async (_name, reason) => {
    const base = await freshRepo();
    const res = await pause(base, { reason });
    expect([200, 422]).toContain(res.status);
    const read = await api.request(`${base}/merge-queue/pause`, { token: reader });
    expect(read.status).toBe(res.status === 200 ? 200 : 404);
  });

  it('refuses an unknown body field with 422', async () => {
    const base = await freshRepo();
    const res = await pause(base, { reason: 'ok', paused_at: '2020-01-01T00:00:00Z' });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc[0]).toBe('body');
    expect((await api.request(`${base}/merge-queue/pause`, { token: reader })).status).toBe(404);
  });

  it.each([
    ['a malformed JSON body', { rawBody: '{"reason": "x"', headers: { 'content-type': 'application/json' } }],
    ['an empty JSON body', { rawBody: '', headers: { 'content-type': 'application/json' } }],
    ['no body at all', {}],
    ['a JSON array', { rawBody: '["x"]', headers: { 'content-type': 'application/json' } }],
  ])('refuses %s with 422 located in the body', async (_name, options) => {
    const base = await freshRepo();
    const res = await api.request(`${base}/merge-queue/pause`, {
      method: 'PUT',
      token: admin.secret,
      ...options,
    });
    expect(res.status).toBe(422);
    expect(res.body.detail.length).toBeGreaterThan(0);
    expect(res.body.detail[0].loc[0]).toBe('body');
  });

  it('accepts a GitHub user token with push permission and names the user as the actor', async () => {
    const base = await freshRepo();
    const name = base.split('/').at(-1);
    const token = `ghp_${'P'.repeat(36)}`;
    const github = nock(FAKE_GITHUB_API)
      .matchHeader('authorization', `Bearer ${token}`)
      .get(`/repos/acme/${name}`)
      .once()
      .reply(200, { permissions: { admin: false, maintain: false, push: true, triage: true, pull: true } })
      .get('/user')
      .once()
      .reply(200, { id: 583231, login: 'octocat' });

    expect((await pause(base, { reason: 'hotfix' }, token)).status).toBe(200);
    const del = await api.request(`${base}/merge-queue/pause`, { method: 'DELETE', token });
    expect(del.status).toBe(204);
    expect(github.isDone()).toBe(true);

    const user = { type: 'user', id: 583231, name: 'octocat' };
    const [created] = await eventsOf(base, 'queue.pause.create');
    expect(created!.metadata).toEqual({ reason: 'hotfix', created_by: user });
    expect(created!.trigger).toContain('octocat');
    const [deleted] = await eventsOf(base, 'queue.pause.delete');
    expect(deleted!.metadata).toEqual({ deleted_by: user });
  });

  it('serializes concurrent pauses from several clients: each answers 200 or 409, and exactly one creates', async () => {
    const base = await freshRepo();
    const clients = await Promise.all(Array.from({ length: 8 }, (_, i) => makeKey(`client-${i}`)));
    const answers = await Promise.all(
      clients.map((c, i) => pause(base, { reason: `client ${i}` }, c.secret)),
    );
    const statuses = answers.map((a) => a.status);
    for (const s of statuses) expect([200, 409]).toContain(s);
    const ok = answers.filter((a) => a.status === 200);
    expect(ok.length).toBeGreaterThan(0);
    for (const a of answers.filter((x) => x.status === 409)) expect(typeof a.body.detail).toBe('string');

    expect(await eventsOf(base, 'queue.pause.create')).toHaveLength(1);
    expect(await eventsOf(base, 'queue.pause.update')).toHaveLength(ok.length - 1);
    const current = await api.request(`${base}/merge-queue/pause`, { token: reader });
    expect(ok.map((a) => a.body.reason)).toContain(current.body.reason);
    expect(new Set(ok.map((a) => a.body.paused_at)).size).toBe(1);
  });
});

describe('GET and DELETE /merge-queue/pause, and the status endpoint', () => {
  it('reads the pause record, and the status endpoint shows it', async () => {
    const base = await freshRepo();
    const put = await pause(base, { reason: 'incident 42' });
    const got = await api.request(`${base}/merge-queue/pause`, { token: reader });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(put.body);
    const status = await api.request(`${base}/merge-queue/status`, { token: reader });
    expect(status.status).toBe(200);
    expect(status.body.pause).toEqual(put.body);
  });

  it('answers 404 with a detail when reading the pause of a queue that is not paused, and status shows pause null', async () => {
    const base = await freshRepo();
    const got = await api.request(`${base}/merge-queue/pause`, { token: reader });
    expect(got.status).toBe(404);
    expect(got.body).toEqual({ detail: expect.any(String) });
    expect((await api.request(`${base}/merge-queue/status`, { token: reader })).body.pause).toBeNull();
  });

  it('unpauses with 204 and no body, logs queue.pause.delete naming the key, and forgets the record', async () => {
    const base = await freshRepo();
    await pause(base, { reason: 'maintenance' });
    advance(30);
    const del = await api.request(`${base}/merge-queue/pause`, { method: 'DELETE', token: admin.secret });
    expect(del.status).toBe(204);
    expect(del.body).toBeUndefined();

    const [event, ...rest] = await eventsOf(base, 'queue.pause.delete');
    expect(rest).toHaveLength(0);
    expect(event!.received_at).toBe(clock.toISOString());
    expect(event!.metadata).toEqual({ deleted_by: { type: 'application', id: admin.id, name: 'oncall' } });
    expect(event!.trigger).toContain('"oncall"');
    expect((await api.request(`${base}/merge-queue/pause`, { token: reader })).status).toBe(404);
    expect((await api.request(`${base}/merge-queue/status`, { token: reader })).body.pause).toBeNull();
  });

  it('answers 404 with a detail when unpausing a queue that is not paused, and logs nothing', async () => {
    const base = await freshRepo();
    await pause(base, { reason: 'x' });
    expect(
      (await api.request(`${base}/merge-queue/pause`, { method: 'DELETE', token: admin.secret })).status,
    ).toBe(204);
    const again = await api.request(`${base}/merge-queue/pause`, { method: 'DELETE', token: admin.secret });
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ detail: expect.any(String) });
    expect(await eventsOf(base, 'queue.pause.delete')).toHaveLength(1);
  });

  it('starts a new pause with a new paused_at and a queue.pause.create after an unpause', async () => {
    const base = await freshRepo();
    const first = await pause(base, { reason: 'one' });
    await api.request(`${base}/merge-queue/pause`, { method: 'DELETE', token: admin.secret });
    advance(60);
    const second = await pause(base, { reason: 'two' });
    expect(second.body.paused_at).not.toBe(first.body.paused_at);
    expect(second.body.paused_at).toBe(clock.toISOString());
    expect(await eventsOf(base, 'queue.pause.create')).toHaveLength(2);
    expect(await eventsOf(base, 'queue.pause.update')).toHaveLength(0);
  });
});

describe('the pause goes through the engine', () => {
  const ids = createCountingIds();

  async function queuedRepo() {
    repoCount += 1;
    const repo = await api.repository(`acme/queue-${repoCount}`);
    // A queued pull request whose draft-PR batch is being prepared.
    await runStep({ db: api.store.db, repositoryId: repo.id, inputs: openedAndQueued(1), now: clock, ids });
    return { id: repo.id, base: `/v1/repos/acme/queue-${repoCount}` };
  }

  const engineState = async (id: string) => (await loadQueueState(api.store.db, id)) as QueueState;
  const outboxKeys = async (id: string) =>
    (
      await api.store.db
        .selectFrom('outbox')
        .select('key')
        .where('repository_id', '=', id)
        .orderBy('id')
        .execute()
    ).map((r) => r.key);

  it('pausing tells the engine, which cancels the running draft-PR batch, in the same transaction', async () => {
    const repo = await queuedRepo();
    expect((await outboxKeys(repo.id)).filter((k) => k.startsWith('close_draft_pr:'))).toEqual([]);

    expect((await pause(repo.base, { reason: 'release freeze' })).status).toBe(200);
    expect((await engineState(repo.id)).pause).toEqual({
      paused: true,
      reason: 'release freeze',
      since: clock.toISOString(),
      // The application key that paused: the reasons say who paused.
      by: 'oncall',
    });
    const state = await engineState(repo.id);
    expect(state.lanes.flatMap((l) => l.batches)).toEqual([]);
    expect((await outboxKeys(repo.id)).filter((k) => k.startsWith('close_draft_pr:'))).toHaveLength(1);
    // The API's event comes first, then the engine's.
    const types = (
      await api.store.db
        .selectFrom('events')
        .select('type')
        .where('repository_id', '=', repo.id)
        .orderBy('id')
        .execute()
    ).map((e) => e.type);
    const created = types.indexOf('queue.pause.create');
    expect(created).toBeGreaterThan(0);
    expect(types.slice(created + 1)).toEqual(['action.queue.checks.change']);
  });

  it('changing the reason updates the engine; unpausing resumes the queue', async () => {
    const repo = await queuedRepo();
    await pause(repo.base, { reason: 'first' });
    advance(60);
    await pause(repo.base, { reason: 'second' });
    const paused = (await engineState(repo.id)).pause;
    expect(paused).toMatchObject({ paused: true, reason: 'second' });

    const prepares = async () =>
      (await outboxKeys(repo.id)).filter((k) => k.startsWith('prepare_test_branch:'));
    expect(await prepares()).toHaveLength(1);
    const del = await api.request(`${repo.base}/merge-queue/pause`, {
      method: 'DELETE',
      token: admin.secret,
    });
    expect(del.status).toBe(204);
    expect((await engineState(repo.id)).pause).toEqual({ paused: false });
    // The pull request embarks again: a new test branch is asked for.
    expect(await prepares()).toHaveLength(2);
  });

  it('a refused pause or unpause leaves the engine as it was', async () => {
    const repo = await queuedRepo();
    const before = await engineState(repo.id);
    expect((await pause(repo.base, { reason: '' })).status).toBe(422);
    const del = await api.request(`${repo.base}/merge-queue/pause`, {
      method: 'DELETE',
      token: admin.secret,
    });
    expect(del.status).toBe(404);
    expect(await engineState(repo.id)).toEqual(before);
  });
});
