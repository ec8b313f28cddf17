import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveQueueState } from '../../app/store/queue-state.ts';
import type { Repository } from '../../app/store/repositories.ts';
import { failIfContains, Scenario } from '../queue/support/scenario.ts';
import { ApiHarness } from '../support/api-harness.ts';

let api: ApiHarness;
let repo: Repository;
let token: string;
let scenario: Scenario;
const URL_ = '/v1/repos/acme/app/merge-queue/status';

beforeAll(async () => {
  // The engine's clock and the API's agree, so estimates are comparable.
  scenario = new Scenario({
    queue_rules: [{ name: 'default', batch_size: 3 }],
    merge_queue: { max_parallel_checks: 4 },
  });
  scenario.queue(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
  scenario.runUntilIdle({ ci: failIfContains(2), until: '11m' });
  api = await ApiHarness.start({ now: () => new Date(scenario.now) });
  repo = await api.repository('acme/app');
  token = await api.key({ owner: 'acme', role: 'read' });
}, 60_000);
afterAll(async () => {
  await api?.stop();
});

type Status = {
  scope_queues: Record<string, string[]>;
  batches: {
    id: string;
    name: string;
    status: { code: string };
    pull_requests: { number: number; head_ref: string }[];
    sub_batches?: { name: string }[];
  }[];
  waiting_pull_requests: { number: number; head_ref: string }[];
  pause: unknown;
};

describe('GET /merge-queue/status', () => {
  it('answers an empty queue before the engine has run for the repository', async () => {
    const res = await api.request<Status>(URL_, { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      mode: 'serial',
      scope_queues: { __default__: [] },
      batches: [],
      waiting_pull_requests: [],
      pause: null,
    });
  });

  it('serves the engine state: a bisecting batch with its sub-batches, then the waiting pull requests in order', async () => {
    await saveQueueState(api.store.db, repo.id, scenario.state, new Date(scenario.now));
    const res = await api.request<Status>(URL_, { token });
    expect(res.status).toBe(200);
    const head = res.body.batches[0]!;
    expect(head.status.code).toBe('bisecting');
    expect(head.pull_requests.map((p) => p.number)).toEqual([1, 2, 3]);
    expect(head.sub_batches?.length).toBeGreaterThan(0);
    expect(res.body.scope_queues['__default__']).toEqual(res.body.batches.map((b) => b.id));
    // Embarked and waiting together are every queued PR, each once.
    const embarked = res.body.batches.flatMap((b) => b.pull_requests.map((p) => p.number));
    const waiting = res.body.waiting_pull_requests.map((p) => p.number);
    expect([...embarked, ...waiting].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(waiting).toEqual([...waiting].sort((a, b) => a - b));
    // Each names its head branch (the engine's pull request snapshot), batched and waiting.
    const heads = [
      ...res.body.batches.flatMap((b) => b.pull_requests),
      ...res.body.waiting_pull_requests,
    ].map((p) => [p.number, p.head_ref]);
    expect(heads).toEqual(heads.map(([n]) => [n, scenario.state.pullRequests[String(n)]!.head]));
    expect(heads).toContainEqual([11, 'feature-11']);
    // What the engine itself projects.
    const projected = scenario.status('main');
    expect(res.body.batches.map((b) => b.name)).toEqual(projected.batches.map((b) => b.name));
  });

  it('answers an empty queue for another base branch', async () => {
    const res = await api.request<Status>(`${URL_}?branch=release`, { token });
    expect(res.status).toBe(200);
    expect(res.body.batches).toEqual([]);
    expect(res.body.waiting_pull_requests).toEqual([]);
  });

  it('refuses an inconsistent stored state with a 500 and a request id, and keeps serving', async () => {
    const broken = structuredClone(scenario.state) as { lanes: { batches: unknown[] }[] };
    broken.lanes[0]!.batches.push(broken.lanes[0]!.batches[0]);
    await saveQueueState(api.store.db, repo.id, broken, new Date(scenario.now));
    const res = await api.request<{ detail: string; request_id: string }>(URL_, { token });
    expect(res.status).toBe(500);
    expect(res.body.detail).toBe('internal error');
    expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
    await saveQueueState(api.store.db, repo.id, scenario.state, new Date(scenario.now));
    expect((await api.request(URL_, { token })).status).toBe(200);
  });
});
