import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { trainyardConfigSchema } from '../../app/config/config.schema.ts';
import type { QueueInput } from '../../app/queue/inputs.ts';
import type { QueueState } from '../../app/queue/state.ts';
import { loadQueueState, saveQueueState } from '../../app/store/queue-state.ts';
import type { Repository } from '../../app/store/repositories.ts';
import { runStep } from '../../app/store/step-transaction.ts';
import { createCountingIds, pullRequest, Scenario } from '../queue/support/scenario.ts';
import { ApiHarness, FAKE_GITHUB_API } from '../support/api-harness.ts';
import { openedAndQueued } from '../support/queue-inputs.ts';

/*
 * GET …/merge-queue/pull/{pr_number}, GET …/dequeue-impact and POST …/dequeue on the real server
 * (loopback HTTP, a real store); every answer is checked against the OpenAPI document.
 */

let api: ApiHarness;
let scenario: Scenario;
let repo: Repository;
let reader: string;
let admin: string;
let repoCount = 0;
let clock: Date;

const PULL = '/v1/repos/acme/app/merge-queue/pull';

beforeAll(async () => {
  // Two batches of two under test (max_parallel_checks 2), three pull requests waiting; the head
  // batch has a check still running.
  scenario = new Scenario({
    queue_rules: [
      { name: 'default', batch_size: 2, checks_timeout: '1h', merge_conditions: ['check-success=ci'] },
    ],
    merge_queue: { max_parallel_checks: 2 },
  });
  scenario.queue(1, 2, 3, 4, 5, 6, 7);
  scenario.runUntilIdle({ until: '5m' });
  scenario.ci('batch-1', 'pending', 'lint');
  clock = new Date(scenario.now);
  api = await ApiHarness.start({ now: () => clock });
  repo = await api.repository('acme/app');
  await saveQueueState(api.store.db, repo.id, scenario.state, clock);
  reader = await api.key({ owner: 'acme', role: 'read', name: 'dashboard' });
  admin = await api.key({ owner: 'acme', role: 'admin', name: 'oncall' });
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
}, 60_000);

afterEach(() => {
  nock.cleanAll();
});

afterAll(async () => {
  nock.enableNetConnect();
  await api?.stop();
});

type PullView = {
  number: number;
  queued_at: string;
  estimated_time_of_merge: string | null;
  position: number;
  priority_rule_name: string | null;
  queue_rule_name: string;
  checks_timeout_at: string | null;
  queue_rule: { name: string; config: Record<string, unknown> };
  mergeability_check: {
    check_type: string;
    queue_pull_request_number: number;
    started_at: string | null;
    ci_ended_at: string | null;
    ci_state: string;
    state: string;
    checks: { name: string; state: string }[];
    conditions_evaluation: {
      match: boolean;
      label: string;
      subconditions: { label: string; match: boolean; evaluations: { related_checks: string[] }[] }[];
    } | null;
  } | null;
};

const batchOf = (name: string) => scenario.state.lanes[0]!.batches.find((b) => b.name === name)!;

describe('GET /merge-queue/pull/{pr_number}', () => {
  it('shows a pull request under test: 0-based position, estimate, rule, timeout and its draft pull request checks', async () => {
    const res = await api.request<PullView>(`${PULL}/3`, { token: reader });
    expect(res.status).toBe(200);
    const batch = batchOf('batch-2');
    if (batch.phase !== 'trial' || batch.trial.phase !== 'testing')
      throw new Error('batch-2 should be testing');
    const run = batch.trial.run;
    expect(res.body).toMatchObject({
      number: 3,
      queued_at: scenario.state.sessions['3']!.queuedAt,
      position: 2,
      priority_rule_name: null,
      queue_rule_name: 'default',
      checks_timeout_at: new Date(Date.parse(run.startedAt) + 3_600_000).toISOString(),
      queue_rule: { name: 'default', config: { name: 'default', merge_conditions: ['check-success=ci'] } },
      mergeability_check: {
        check_type: 'draft_pr',
        queue_pull_request_number: run.draftPullRequest,
        started_at: run.startedAt,
        ci_ended_at: null,
        ci_state: 'pending',
        state: 'pending',
        checks: [],
      },
    });
    expect(res.body.queue_rule.config['batch_size']).toEqual({ min: 2, max: 2 });
    expect(Date.parse(res.body.estimated_time_of_merge!)).toBeGreaterThan(clock.getTime());
    const evaluation = res.body.mergeability_check!.conditions_evaluation!;
    expect(evaluation.match).toBe(false);
    expect(evaluation.subconditions).toMatchObject([{ label: 'check-success=ci', match: false }]);
    expect(evaluation.subconditions[0]!.evaluations[0]!.related_checks).toEqual(['ci']);
  });

  it('lists the checks reported on the tested commit, running ones included', async () => {
    const res = await api.request<PullView>(`${PULL}/1`, { token: reader });
    expect(res.status).toBe(200);
    expect(res.body.position).toBe(0);
    expect(res.body.mergeability_check!.checks).toEqual([
      { name: 'lint', state: 'pending', description: 'lint: pending', url: null, avatar_url: null },
    ]);
  });

  it('shows a waiting pull request after the batched ones, with no test yet and a later estimate', async () => {
    const head = await api.request<PullView>(`${PULL}/3`, { token: reader });
    const res = await api.request<PullView>(`${PULL}/6`, { token: reader });
    expect(res.status).toBe(200);
    expect(res.body.position).toBe(5);
    expect(res.body.mergeability_check).toBeNull();
    expect(res.body.checks_timeout_at).toBeNull();
    expect(Date.parse(res.body.estimated_time_of_merge!)).toBeGreaterThan(
      Date.parse(head.body.estimated_time_of_merge!),
    );
  });

  it('gives the reasons it waits and the p90 beside the estimate, as the status does', async () => {
    type WithReasons = PullView & {
      estimated_time_of_merge_p90: string | null;
      reasons: { code: string; message: string; since: string | null; next_action: string | null }[];
    };
    const tested = await api.request<WithReasons>(`${PULL}/3`, { token: reader });
    expect(tested.status).toBe(200);
    expect(tested.body.reasons).toEqual([
      expect.objectContaining({
        code: 'waiting_for_checks',
        message: 'Waiting for check ci on batch-2',
        checks: ['ci'],
      }),
    ]);
    const waiting = await api.request<WithReasons>(`${PULL}/6`, { token: reader });
    expect(waiting.body.reasons.map((r) => r.code)).toEqual(['waiting_for_slot']);
    expect(waiting.body.reasons[0]).toMatchObject({
      since: scenario.state.sessions['6']!.queuedAt,
      next_action: null,
    });
    for (const body of [tested.body, waiting.body]) {
      expect(Date.parse(body.estimated_time_of_merge_p90!)).toBeGreaterThanOrEqual(
        Date.parse(body.estimated_time_of_merge!),
      );
    }
    const status = await api.request<{ waiting_pull_requests: { number: number; reasons: unknown[] }[] }>(
      '/v1/repos/acme/app/merge-queue/status',
      { token: reader },
    );
    expect(status.body.waiting_pull_requests.find((p) => p.number === 6)?.reasons).toEqual(
      waiting.body.reasons,
    );
  });

  it('names its head branch, as the status does, so that a checkout finds its pull request', async () => {
    const tested = await api.request<PullView & { head_ref: string | null }>(`${PULL}/3`, { token: reader });
    expect(tested.body.head_ref).toBe(scenario.state.pullRequests['3']!.head);
    expect(tested.body.head_ref).toBe('feature-3');
    const waiting = await api.request<PullView & { head_ref: string | null }>(`${PULL}/6`, { token: reader });
    expect(waiting.body.head_ref).toBe('feature-6');
  });

  it('answers 404 with a detail for a pull request in no queue', async () => {
    const res = await api.request(`${PULL}/42`, { token: reader });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'pull request #42 is not in any merge queue of this repository' });
  });

  it('answers 404 for a repository the engine never ran for, and for an unknown repository', async () => {
    await api.repository('acme/quiet');
    expect((await api.request('/v1/repos/acme/quiet/merge-queue/pull/1', { token: reader })).status).toBe(
      404,
    );
    const unknown = await api.request('/v1/repos/acme/nowhere/merge-queue/pull/1', { token: reader });
    expect(unknown.status).toBe(404);
    expect(unknown.body.detail).toContain('not known');
  });

  it.each([['abc'], ['0'], ['-3'], ['1.5'], ['2147483647']])(
    'refuses pr_number %s with 422 at path.pr_number',
    async (n) => {
      const res = await api.request(`${PULL}/${n}`, { token: reader });
      expect(res.status).toBe(422);
      expect(res.body.detail[0].loc).toEqual(['path', 'pr_number']);
    },
  );

  it('refuses a missing, unknown or foreign credential with 403 (never 401) and WWW-Authenticate', async () => {
    const missing = await api.request(`${PULL}/1`);
    expect(missing.status).toBe(403);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer');
    expect((await api.request(`${PULL}/1`, { token: `ty_${'x'.repeat(43)}` })).status).toBe(403);
    const foreign = await api.key({ owner: 'other', role: 'admin' });
    const res = await api.request(`${PULL}/1`, { token: foreign });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: expect.any(String) });
  });
});

describe('GET /merge-queue/pull/{pr_number}/dequeue-impact', () => {
  it('counts the batches from its own to the last, and their other pull requests', async () => {
    const first = await api.request(`${PULL}/1/dequeue-impact`, { token: reader });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      interrupted_batches: 2,
      rechecked_pull_requests: 3,
      cascaded_pull_requests: 0,
    });
    const second = await api.request(`${PULL}/4/dequeue-impact`, { token: reader });
    expect(second.body).toEqual({
      interrupted_batches: 1,
      rechecked_pull_requests: 1,
      cascaded_pull_requests: 0,
    });
    const waiting = await api.request(`${PULL}/7/dequeue-impact`, { token: reader });
    expect(waiting.body).toEqual({
      interrupted_batches: 0,
      rechecked_pull_requests: 0,
      cascaded_pull_requests: 0,
    });
  });

  it('answers 404 for a pull request in no queue, 422 for a bad number, 403 without a credential', async () => {
    expect((await api.request(`${PULL}/42/dequeue-impact`, { token: reader })).status).toBe(404);
    expect((await api.request(`${PULL}/x/dequeue-impact`, { token: reader })).status).toBe(422);
    expect((await api.request(`${PULL}/1/dequeue-impact`)).status).toBe(403);
  });
});

describe('POST /merge-queue/pull/{pr_number}/dequeue', () => {
  const ids = createCountingIds();

  /** A repository of its own whose engine queued #1, #2 and #3, each in a batch being prepared. */
  async function queuedRepo() {
    repoCount += 1;
    const name = `queue-${repoCount}`;
    const repository = await api.repository(`acme/${name}`);
    const inputs = [1, 2, 3].flatMap((n) => openedAndQueued(n));
    await runStep({ db: api.store.db, repositoryId: repository.id, inputs, now: clock, ids });
    return { id: repository.id, base: `/v1/repos/acme/${name}/merge-queue/pull` };
  }

  const dequeue = (base: string, number: number | string, token: string | null = admin) =>
    api.request(`${base}/${number}/dequeue`, { method: 'POST', token });

  async function leaves(id: string) {
    return api.store.db
      .selectFrom('events')
      .select(['pull_request', 'metadata'])
      .where('repository_id', '=', id)
      .where('type', '=', 'action.queue.leave')
      .execute();
  }

  it('takes the pull request out through the engine: 204, a leave naming the key, the batches behind rebuilt', async () => {
    const r = await queuedRepo();
    const impact = await api.request(`${r.base}/1/dequeue-impact`, { token: reader });
    expect(impact.body).toEqual({
      interrupted_batches: 3,
      rechecked_pull_requests: 2,
      cascaded_pull_requests: 0,
    });

    const res = await dequeue(r.base, 1);
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();

    const state = (await loadQueueState(api.store.db, r.id)) as QueueState;
    expect(Object.keys(state.sessions).sort()).toEqual(['2', '3']);
    expect(state.lanes.flatMap((l) => l.batches.map((b) => b.numbers))).toEqual([[2], [3]]);
    const [leave, ...others] = await leaves(r.id);
    expect(others).toEqual([]);
    expect(leave!.pull_request).toBe(1);
    expect(leave!.metadata).toMatchObject({
      reason: 'PR_MANUALLY_DEQUEUED: dequeued by key "oncall" through the API',
      merged: false,
    });
    expect((await api.request(`${r.base}/1`, { token: reader })).status).toBe(404);
    expect((await api.request(`${r.base}/2`, { token: reader })).body.position).toBe(0);
  });

  it('answers 404 and changes nothing for a pull request in no queue (or already dequeued)', async () => {
    const r = await queuedRepo();
    expect((await dequeue(r.base, 2)).status).toBe(204);
    const before = await loadQueueState(api.store.db, r.id);
    const again = await dequeue(r.base, 2);
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ detail: 'pull request #2 is not in any merge queue of this repository' });
    expect((await dequeue(r.base, 99)).status).toBe(404);
    expect(await loadQueueState(api.store.db, r.id)).toEqual(before);
    expect(await leaves(r.id)).toHaveLength(1);
  });

  it('needs an admin key: a read key gets 403 and the pull request stays', async () => {
    const r = await queuedRepo();
    const res = await dequeue(r.base, 1, reader);
    expect(res.status).toBe(403);
    expect(res.body.detail).toContain('admin key');
    expect((await api.request(`${r.base}/1`, { token: reader })).status).toBe(200);
  });

  it('refuses a GitHub token with read access only (403) and accepts one with push, naming the user', async () => {
    const r = await queuedRepo();
    const name = r.base.split('/')[4];
    const readOnly = `ghp_${'R'.repeat(36)}`;
    const writer = `ghp_${'W'.repeat(36)}`;
    const github = nock(FAKE_GITHUB_API)
      .get(`/repos/acme/${name}`)
      .matchHeader('authorization', `Bearer ${readOnly}`)
      .reply(200, { permissions: { admin: false, maintain: false, push: false, triage: false, pull: true } })
      .get(`/repos/acme/${name}`)
      .matchHeader('authorization', `Bearer ${writer}`)
      .reply(200, { permissions: { admin: false, maintain: false, push: true, triage: true, pull: true } })
      .get('/user')
      .reply(200, { id: 583231, login: 'octocat' });
    expect((await dequeue(r.base, 3, readOnly)).status).toBe(403);
    expect((await dequeue(r.base, 3, writer)).status).toBe(204);
    expect(github.isDone()).toBe(true);
    const [leave] = await leaves(r.id);
    expect(leave!.metadata).toMatchObject({
      reason: 'PR_MANUALLY_DEQUEUED: dequeued by @octocat through the API',
    });
  });

  it('refuses a bad number with 422 and a missing credential with 403, before anything else', async () => {
    const r = await queuedRepo();
    expect((await dequeue(r.base, 'one')).status).toBe(422);
    expect((await dequeue(r.base, 1, null)).status).toBe(403);
    expect(await leaves(r.id)).toHaveLength(0);
  });
});

describe('POST /merge-queue/pull/{pr_number}/requeue', () => {
  const ids = createCountingIds();

  /**
   * A repository of its own: rules `default` and `reviewed` (queue condition: two approvals; the fixtures have one);
   * #1, #2 and #3 queued, #4 open and not queued.
   */
  async function repoWithRules() {
    repoCount += 1;
    const name = `requeue-${repoCount}`;
    const repository = await api.repository(`acme/${name}`);
    const config = trainyardConfigSchema.parse({
      queue_rules: [{ name: 'default' }, { name: 'reviewed', queue_conditions: ['#approved-reviews-by>=2'] }],
    });
    const inputs: QueueInput[] = [
      { type: 'config_changed', config },
      ...[1, 2, 3].flatMap((n) => openedAndQueued(n)),
      { type: 'pull_request_updated', pullRequest: pullRequest(4) },
    ];
    await runStep({ db: api.store.db, repositoryId: repository.id, inputs, now: clock, ids });
    return { id: repository.id, base: `/v1/repos/acme/${name}/merge-queue/pull` };
  }

  const requeue = (base: string, number: number | string, body?: unknown, token: string | null = admin) =>
    api.request<PullView & { head_ref: string | null; detail: unknown }>(`${base}/${number}/requeue`, {
      method: 'POST',
      token,
      ...(body === undefined ? {} : { body }),
    });

  async function events(id: string, type: string) {
    return api.store.db
      .selectFrom('events')
      .select(['pull_request', 'trigger', 'metadata'])
      .where('repository_id', '=', id)
      .where('type', '=', type)
      .execute();
  }

  it('queues a dequeued pull request again through the engine: 200 and its view, action.requeue naming the key, its enter', async () => {
    const r = await repoWithRules();
    expect((await api.request(`${r.base}/2/dequeue`, { method: 'POST', token: admin })).status).toBe(204);
    const res = await requeue(r.base, 2);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      number: 2,
      head_ref: 'feature-2',
      queue_rule_name: 'default',
      position: 2,
    });
    expect(await events(r.id, 'action.requeue')).toEqual([
      { pull_request: 2, trigger: 'API: requeue by key "oncall"', metadata: {} },
    ]);
    expect((await events(r.id, 'action.queue.enter')).filter((e) => e.pull_request === 2)).toHaveLength(2);
    const status = await api.request<{
      waiting_pull_requests: { number: number }[];
      batches: { pull_requests: { number: number }[] }[];
    }>(`/v1/repos/acme/${r.base.split('/')[4]}/merge-queue/status`, { token: reader });
    const queued = [
      ...status.body.batches.flatMap((b) => b.pull_requests),
      ...status.body.waiting_pull_requests,
    ];
    expect(queued.map((p) => p.number).sort()).toEqual([1, 2, 3]);
    expect((await api.request(`${r.base}/2`, { token: reader })).status).toBe(200);
  });

  it('takes the queue rule asked for, when its queue conditions accept the pull request', async () => {
    const r = await repoWithRules();
    const res = await requeue(r.base, 4, { queue_name: 'default' });
    expect(res.status).toBe(200);
    expect(res.body.queue_rule_name).toBe('default');
  });

  it('answers 409 for a pull request already queued, and changes nothing', async () => {
    const r = await repoWithRules();
    const before = await loadQueueState(api.store.db, r.id);
    const res = await requeue(r.base, 1);
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      detail: 'pull request #1 is already in the merge queue (queue rule "default")',
    });
    expect(await loadQueueState(api.store.db, r.id)).toEqual(before);
    expect(await events(r.id, 'action.requeue')).toEqual([]);
  });

  it('answers 404 for a pull request the engine does not know open, and for a repository it never ran for', async () => {
    const r = await repoWithRules();
    const res = await requeue(r.base, 99);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      detail:
        'pull request #99 is not an open pull request Trainyard knows in this repository (closed, merged, or never seen)',
    });
    await api.repository('acme/quiet-requeue');
    expect((await requeue('/v1/repos/acme/quiet-requeue/merge-queue/pull', 1)).status).toBe(404);
  });

  it('answers 422 for an unknown queue rule, for queue conditions not met, and for a bad body', async () => {
    const r = await repoWithRules();
    const unknown = await requeue(r.base, 4, { queue_name: 'nope' });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail).toEqual([
      {
        loc: ['body', 'queue_name'],
        msg: 'no queue rule "nope"; the rules are: default, reviewed',
        type: 'unknown_queue_rule',
      },
    ]);
    const unmet = await requeue(r.base, 4, { queue_name: 'reviewed' });
    expect(unmet.status).toBe(422);
    expect(unmet.body.detail).toEqual([
      {
        loc: ['path', 'pr_number'],
        msg: 'pull request #4 does not meet the queue conditions: reviewed: #approved-reviews-by>=2',
        type: 'queue_conditions_not_met',
      },
    ]);
    const extra = await requeue(r.base, 4, { queue_name: 'default', priority: 1 });
    expect(extra.status).toBe(422);
    expect((await requeue(r.base, 'x')).status).toBe(422);
    expect(await events(r.id, 'action.requeue')).toEqual([]);
    expect((await api.request(`${r.base}/4`, { token: reader })).status).toBe(404);
  });

  it('needs write access: a read key gets 403, no credential 403', async () => {
    const r = await repoWithRules();
    await api.request(`${r.base}/3/dequeue`, { method: 'POST', token: admin });
    const res = await requeue(r.base, 3, undefined, reader);
    expect(res.status).toBe(403);
    expect(res.body.detail).toContain('admin key');
    expect((await requeue(r.base, 3, undefined, null)).status).toBe(403);
    expect((await api.request(`${r.base}/3`, { token: reader })).status).toBe(404);
  });
});
