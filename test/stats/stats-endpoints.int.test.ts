import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendEvents } from '../../app/store/events.ts';
import { inRepositoryTransaction } from '../../app/store/repository-transaction.ts';
import { CHECK_OUTCOMES } from '../../shared/schemas/stats-response.schema.ts';
import { ApiHarness } from '../support/api-harness.ts';
import { History, sessionUuid } from './support/history.ts';

/*
 * Every statistics endpoint over loopback HTTP, on hand-written histories whose figures are
 * computed by hand below (never by the code under test). Each history has its own repository.
 */

const NOW = new Date('2026-11-02T12:30:00Z');
let api: ApiHarness;
let token: string;

async function seed(name: string, history: History) {
  const repo = await api.repository(`acme/${name}`);
  // Several transactions, so projections are merged across appends as in production.
  const events = history.events;
  const cut = Math.floor(events.length / 2);
  for (const part of [events.slice(0, cut), events.slice(cut)]) {
    await inRepositoryTransaction(api.store.db, repo.id, (tx) => appendEvents(tx, repo.id, part));
  }
}

// biome-ignore lint/suspicious/noExplicitAny: loosely typed JSON bodies
async function stats(repo: string, endpoint: string, query = ''): Promise<any> {
  const res = await api.request(`/v1/repos/acme/${repo}/stats/${endpoint}${query ? `?${query}` : ''}`, {
    token,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

const W = 'start_at=2026-11-01T10:00:00Z&end_at=2026-11-01T12:00:00Z';
const main = {
  base_ref: 'main',
  partition_name: '__default__',
  queue_name: 'default',
  priority_rule_name: 'default',
};
const b10 = { start: '2026-11-01T10:00:00Z', end: '2026-11-01T10:59:59Z' };
const b11 = { start: '2026-11-01T11:00:00Z', end: '2026-11-01T11:59:59Z' };
const b12 = { start: '2026-11-01T12:00:00Z', end: '2026-11-01T12:59:59Z' };

// Sessions (window 10:00–12:00, hourly buckets):
// S1 queued 09:30, checks 09:50, merged 10:10, freeze 60 s, schedule 30 s: total 2400, capacity 1200
// S2 (PR 2) queued 10:00, checks 10:05, retried (attempt 1) 10:20, checks 10:21, failed (attempt 1) 10:40,
//    left CHECKS_FAILED 10:41: total 2460, capacity 300
// S3 (PR 2 re-queued) queued 10:45, dequeued 11:30, no checks: total 2700, capacity 2700
// S4 (PR 3) queued 10:00, checks 10:10, retried 10:30 (1), retried 10:50 (2), passed 11:10 (2), merged 11:15:
//    total 4500, capacity 600
// S5 (PR 5) queued 08:00 (before the window), left CHECKS_TIMEOUT 10:20: total 8400, capacity 8400
// S6 (PR 6) on release/hotfix, no priority rule, queued 11:00, merged 11:40: total 2400
// S7 queued 2026-07-01, merged 2026-07-01T01:00 (outside the 90-day window of time to merge)
const [s1, s2, s3, s4, s5, s6, s7] = Array.from({ length: 7 }, () => sessionUuid()) as [
  string,
  string,
  string,
  string,
  string,
  string,
  string,
];
const rel = { branch: 'release', queue: 'hotfix', priority: null, partition: null };

function sessionsHistory(): History {
  const h = new History();
  const day = '2026-11-01T';
  h.enter(`${day}08:00:00Z`, { pr: 5, session: s5 });
  h.enter(`${day}09:30:00Z`, { pr: 1, session: s1 });
  h.checksStart(`${day}09:50:00Z`, { pr: 1, session: s1 });
  h.enter(`${day}10:00:00Z`, { pr: 2, session: s2 });
  h.enter(`${day}10:00:00Z`, { pr: 3, session: s4 });
  h.checksStart(`${day}10:05:00Z`, { pr: 2, session: s2 });
  h.checksStart(`${day}10:10:00Z`, { pr: 3, session: s4 });
  h.checksEnd(`${day}10:10:00Z`, { pr: 1, session: s1, startedAt: `${day}09:50:00Z` });
  h.merged(`${day}10:10:00Z`, { pr: 1, session: s1 });
  h.leave(`${day}10:10:00Z`, {
    pr: 1,
    session: s1,
    queuedAt: `${day}09:30:00Z`,
    code: 'PR_MERGED',
    freeze: 60,
    schedule: 30,
  });
  h.checksEnd(`${day}10:20:00Z`, { pr: 2, session: s2, outcome: { abort: 'CHECKS_RETRIED' }, retry: 1 });
  h.leave(`${day}10:20:00Z`, { pr: 5, session: s5, queuedAt: `${day}08:00:00Z`, code: 'CHECKS_TIMEOUT' });
  h.checksStart(`${day}10:21:00Z`, { pr: 2, session: s2 });
  h.checksEnd(`${day}10:30:00Z`, { pr: 3, session: s4, outcome: { abort: 'CHECKS_RETRIED' }, retry: 1 });
  h.checksEnd(`${day}10:40:00Z`, { pr: 2, session: s2, outcome: 'failure', retry: 1 });
  h.leave(`${day}10:41:00Z`, { pr: 2, session: s2, queuedAt: `${day}10:00:00Z`, code: 'CHECKS_FAILED' });
  h.enter(`${day}10:45:00Z`, { pr: 2, session: s3 });
  h.checksEnd(`${day}10:50:00Z`, { pr: 3, session: s4, outcome: { abort: 'CHECKS_RETRIED' }, retry: 2 });
  h.enter(`${day}11:00:00Z`, { pr: 6, session: s6, ...rel });
  h.checksEnd(`${day}11:10:00Z`, { pr: 3, session: s4, retry: 2 });
  h.merged(`${day}11:15:00Z`, { pr: 3, session: s4 });
  h.leave(`${day}11:15:00Z`, { pr: 3, session: s4, queuedAt: `${day}10:00:00Z`, code: 'PR_MERGED' });
  h.leave(`${day}11:30:00Z`, {
    pr: 2,
    session: s3,
    queuedAt: `${day}10:45:00Z`,
    code: 'PR_MANUALLY_DEQUEUED',
  });
  h.leave(`${day}11:40:00Z`, { pr: 6, session: s6, queuedAt: `${day}11:00:00Z`, code: 'PR_MERGED', ...rel });
  h.enter('2026-07-01T00:00:00Z', { pr: 9, session: s7 });
  h.leave('2026-07-01T01:00:00Z', {
    pr: 9,
    session: s7,
    queuedAt: '2026-07-01T00:00:00Z',
    code: 'PR_MERGED',
  });
  h.other(`${day}10:30:00Z`);
  return h;
}

function mergesHistory(): History {
  const h = new History();
  h.merged('2026-11-01T10:05:00Z', { session: s1, partitions: ['a', 'b'] });
  h.merged('2026-11-01T10:06:00Z', { session: s2, partitions: ['a', 'b'] });
  h.merged('2026-11-01T11:06:00Z', { session: s3 });
  h.merged('2026-11-01T11:07:00Z', { session: s4, partitions: ['b'], priority: null });
  return h;
}

function checksHistory(): History {
  const h = new History();
  const s = sessionUuid();
  h.checksEnd('2026-11-01T10:10:00Z', { session: s, startedAt: '2026-11-01T10:00:00Z' });
  h.checksEnd('2026-11-01T10:20:00Z', { session: s, startedAt: null });
  h.checksEnd('2026-11-01T10:50:00Z', { session: s, startedAt: '2026-11-01T10:30:00Z', outcome: 'failure' });
  h.checksEnd('2026-11-01T11:05:00Z', {
    session: s,
    startedAt: '2026-11-01T10:55:00Z',
    outcome: { abort: 'CHECKS_RETRIED' },
  });
  h.checksEnd('2026-11-01T11:20:00Z', { session: s, startedAt: null, outcome: 'timeout' });
  h.checksEnd('2026-11-01T12:00:01Z', { session: s, startedAt: '2026-11-01T12:00:00Z' }); // after the window
  return h;
}

function gaugesHistory(): History {
  const h = new History();
  h.queueSize('2026-11-01T09:00:00Z', 2);
  h.queueSize('2026-11-01T10:15:00Z', 4);
  h.queueSize('2026-11-01T10:45:00Z', 0);
  h.queueSize('2026-11-01T11:30:00Z', 1);
  h.queueSize('2026-11-01T10:30:00Z', 7, { queue: 'other' });
  h.running('2026-11-01T09:00:00Z', 2);
  h.running('2026-11-01T10:15:00Z', 4);
  h.running('2026-11-01T10:45:00Z', 0);
  h.running('2026-11-01T11:30:00Z', 1);
  return h;
}

function batchesHistory(): History {
  const h = new History();
  const x = sessionUuid();
  const y = sessionUuid();
  for (const pr of [1, 2, 3]) {
    h.checksStart('2026-11-01T10:05:00Z', { pr, session: sessionUuid(), prs: [1, 2, 3], batch: x });
  }
  h.checksStart('2026-11-01T10:10:00Z', { pr: 4, session: sessionUuid(), prs: [4], batch: y });
  for (const pr of [1, 2, 3]) {
    h.checksStart('2026-11-01T10:40:00Z', { pr, session: sessionUuid(), prs: [1, 2, 3], batch: x });
  }
  h.checksStart('2026-11-01T11:00:00Z', { pr: 5, session: sessionUuid(), prs: [5, 6], batch: null });
  h.checksStart('2026-11-01T11:00:00Z', { pr: 6, session: sessionUuid(), prs: [5, 6], batch: null });
  return h;
}

function bisectionHistory(): History {
  const h = new History();
  const s = sessionUuid();
  h.bisectionStart('2026-11-01T10:10:00Z', { depth: 1, size: 4, session: s });
  h.bisectionStart('2026-11-01T10:20:00Z', { depth: 2, size: 2, session: s });
  h.bisectionEnd('2026-11-01T10:50:00Z', { culprit: true, maxReached: false, session: s });
  h.bisectionEnd('2026-11-01T11:10:00Z', { culprit: false, maxReached: true, session: s });
  return h;
}

function entersHistory(): History {
  const h = new History();
  h.enter('2026-10-31T09:00:00Z', { session: sessionUuid() });
  h.enter('2026-11-01T10:15:00Z', { session: sessionUuid() });
  h.enter('2026-11-01T10:45:00Z', { session: sessionUuid() });
  h.enter('2026-11-01T11:05:00Z', { session: sessionUuid() });
  h.enter('2026-11-01T10:30:00Z', { session: sessionUuid(), ...rel });
  h.enter('2026-11-01T12:45:00Z', { session: sessionUuid() });
  h.enter('2026-11-02T12:30:00Z', { session: sessionUuid() });
  return h;
}

beforeAll(async () => {
  api = await ApiHarness.start({ now: () => NOW });
  token = await api.key({ owner: 'acme', role: 'read' });
  await seed('sessions', sessionsHistory());
  await seed('merges', mergesHistory());
  await seed('checks', checksHistory());
  await seed('gauges', gaugesHistory());
  await seed('batches', batchesHistory());
  await seed('bisection', bisectionHistory());
  await seed('enters', entersHistory());
  await api.repository('acme/empty');
}, 60_000);

afterAll(async () => {
  await api?.stop();
});

const relGroup = {
  base_ref: 'release',
  partition_name: '__default__',
  queue_name: 'hotfix',
  // No priority rule: null in the groups, `__default__` in a filter.
  priority_rule_name: null,
};

describe('queues_entered_count', () => {
  const both = [
    {
      ...main,
      stats: [
        { ...b10, entered: 2 },
        { ...b11, entered: 1 },
      ],
    },
    { ...relGroup, stats: [{ ...b10, entered: 1 }] },
  ];
  it('counts enters per group and hour, groups ordered by their keys', async () => {
    expect(await stats('enters', 'queues_entered_count', W)).toEqual({ groups: both });
  });
  it.each([
    ['base_ref=release', [both[1]]],
    ['base_ref=main&base_ref=release', both],
    ['queue_name=hotfix', [both[1]]],
    ['priority_rule_name=__default__', [both[1]]],
    ['priority_rule_name=default', [both[0]]],
    ['partition_name=__default__', both],
    ['partition_name=nope', []],
    ['base_ref=main&queue_name=hotfix', []],
    [
      'base_ref=release&queue_name=hotfix&priority_rule_name=__default__&partition_name=__default__',
      [both[1]],
    ],
    ['queue_name=default&queue_name=hotfix&base_ref=main', [both[0]]],
  ])('filters %s', async (filter, groups) => {
    expect(await stats('enters', 'queues_entered_count', `${W}&${filter}`)).toEqual({ groups });
  });
  it('defaults to the day before now, both ends inclusive', async () => {
    expect(await stats('enters', 'queues_entered_count')).toEqual({
      groups: [
        {
          ...main,
          stats: [
            { start: '2026-11-01T12:00:00Z', end: '2026-11-01T12:59:59Z', entered: 1 },
            { start: '2026-11-02T12:00:00Z', end: '2026-11-02T12:59:59Z', entered: 1 },
          ],
        },
      ],
    });
  });
  it('answers no groups for an empty repository or period', async () => {
    expect(await stats('empty', 'queues_entered_count', W)).toEqual({ groups: [] });
    expect(await stats('enters', 'queues_entered_count', 'start_at=2020-01-01&end_at=2020-01-02')).toEqual({
      groups: [],
    });
  });

  // The enter at 2026-10-31T09:00Z is day 20757 since the epoch (odd).
  const at = '2026-10-31T09:00:00Z';
  const only = (q: string) => `${q}&queue_name=default&base_ref=main`;
  it.each([
    [
      'exactly 2 days ⇒ 1 hour',
      '2026-10-30T12:00:00Z',
      '2026-11-01T12:00:00Z',
      '2026-10-31T09:00:00Z',
      '2026-10-31T09:59:59Z',
    ],
    [
      '2 days + 1 s ⇒ 4 hours',
      '2026-10-30T11:59:59Z',
      '2026-11-01T12:00:00Z',
      '2026-10-31T08:00:00Z',
      '2026-10-31T11:59:59Z',
    ],
    [
      'exactly 7 days ⇒ 4 hours',
      '2026-10-25T12:00:00Z',
      '2026-11-01T12:00:00Z',
      '2026-10-31T08:00:00Z',
      '2026-10-31T11:59:59Z',
    ],
    [
      '7 days + 1 s ⇒ 1 day',
      '2026-10-25T11:59:59Z',
      '2026-11-01T12:00:00Z',
      '2026-10-31T00:00:00Z',
      '2026-10-31T23:59:59Z',
    ],
    [
      'exactly 60 days ⇒ 1 day',
      '2026-09-02T12:00:00Z',
      '2026-11-01T12:00:00Z',
      '2026-10-31T00:00:00Z',
      '2026-10-31T23:59:59Z',
    ],
    [
      '60 days + 1 s ⇒ 2 days, epoch-aligned',
      '2026-09-02T11:59:59Z',
      '2026-11-01T12:00:00Z',
      '2026-10-30T00:00:00Z',
      '2026-10-31T23:59:59Z',
    ],
  ])('bucket ladder: %s', async (_name, start, end, bucketStart, bucketEnd) => {
    const body = await stats('enters', 'queues_entered_count', only(`start_at=${start}&end_at=${end}`));
    const first = body.groups[0].stats[0];
    expect(at >= first.start && at <= first.end).toBe(true);
    expect(first).toEqual({ start: bucketStart, end: bucketEnd, entered: 1 });
  });
  it('accepts offsets and bare dates, answers in UTC', async () => {
    const body = await stats(
      'enters',
      'queues_entered_count',
      'start_at=2026-11-01T11:00:00%2B01:00&end_at=2026-11-01T13:00:00%2B01:00',
    );
    expect(body).toEqual({
      groups: [
        {
          ...main,
          stats: [
            { ...b10, entered: 2 },
            { ...b11, entered: 1 },
          ],
        },
        both[1],
      ],
    });
    const byDate = await stats(
      'enters',
      'queues_entered_count',
      'start_at=2026-11-01&end_at=2026-11-02&base_ref=release',
    );
    expect(byDate).toEqual({ groups: [both[1]] });
  });
});

describe('422s', () => {
  it.each([
    'queues_entered_count?start_at=2026-11-01T12:00:00Z&end_at=2026-11-01T10:00:00Z',
    'queue_size?start_at=yesterday',
    'failure_rate?end_at=2026-13-01T00:00:00Z',
    'batch_size?start_at=2026-11-03T00:00:00Z',
    'average_ci_runtime?base_ref=',
    `checks_retries?queue_name=${'x'.repeat(256)}`,
    'running_speculative_checks?end_at=2026-11-01T00:00:00',
    'time_to_merge?at=tomorrow',
    'time_to_merge?branch=',
    // Dates PostgreSQL cannot store, or whose window or buckets would reach them: a 422, not a
    // database error.
    'queues_entered_count?end_at=0001-01-01T12:00:00Z',
    'queue_size?start_at=1969-12-31T23:59:59Z&end_at=2026-11-01T00:00:00Z',
    'batch_size?end_at=9999-12-31T23:59:59-23:59',
    'time_to_merge?at=0001-03-01',
    // Longer than the longest period (366 days), and more repeated values than allowed (100).
    'queues_entered_count?start_at=2025-01-01&end_at=2026-01-03',
    'queue_size?start_at=2026-01-01&end_at=2030-01-01',
    `queue_size?${Array.from({ length: 101 }, (_, i) => `queue_name=q${i}`).join('&')}`,
  ])('GET /stats/%s ⇒ 422', async (path) => {
    const res = await api.request(`/v1/repos/acme/enters/stats/${path}`, { token });
    expect(res.status).toBe(422);
    expect(Array.isArray(res.body.detail)).toBe(true);
    expect(res.body.detail[0].loc[0]).toBe('query');
  });
  it('an unknown repository is a 404, no credential a 403', async () => {
    expect((await api.request('/v1/repos/acme/nope/stats/queue_size', { token })).status).toBe(404);
    expect((await api.request('/v1/repos/acme/enters/stats/queue_size')).status).toBe(403);
  });
});

describe('queues_merged_count', () => {
  const ab = {
    base_ref: 'main',
    partition_names: ['a', 'b'],
    queue_name: 'default',
    priority_rule_name: 'default',
  };
  const b = { ...ab, partition_names: ['b'], priority_rule_name: null };
  const def = { ...ab, partition_names: ['__default__'] };
  it('groups merges by their partition names', async () => {
    expect(await stats('merges', 'queues_merged_count', W)).toEqual({
      groups: [
        { ...def, stats: [{ ...b11, merged: 1 }] },
        { ...ab, stats: [{ ...b10, merged: 2 }] },
        { ...b, stats: [{ ...b11, merged: 1 }] },
      ],
    });
  });
  it('a partition filter matches any of the merge partitions', async () => {
    expect(await stats('merges', 'queues_merged_count', `${W}&partition_name=b`)).toEqual({
      groups: [
        { ...ab, stats: [{ ...b10, merged: 2 }] },
        { ...b, stats: [{ ...b11, merged: 1 }] },
      ],
    });
    expect(
      await stats('merges', 'queues_merged_count', `${W}&partition_name=a&priority_rule_name=default`),
    ).toEqual({
      groups: [{ ...ab, stats: [{ ...b10, merged: 2 }] }],
    });
  });
});

describe('checks outcomes and CI runtime', () => {
  it('queues_checks_outcome_count: one bucket object per outcome, in outcome order', async () => {
    expect(await stats('checks', 'queues_checks_outcome_count', W)).toEqual({
      groups: [
        {
          ...main,
          stats: [
            { ...b10, check_outcome: 'SUCCESS', count: 2 },
            { ...b10, check_outcome: 'CHECKS_FAILED', count: 1 },
            { ...b11, check_outcome: 'CHECKS_TIMEOUT', count: 1 },
            { ...b11, check_outcome: 'CHECKS_RETRIED', count: 1 },
          ],
        },
      ],
    });
  });
  it('merge_queue_checks_outcome: every outcome key over the period, zeros included', async () => {
    const body = await stats('checks', 'merge_queue_checks_outcome', W);
    const expected = Object.fromEntries(CHECK_OUTCOMES.map((o) => [o, 0]));
    Object.assign(expected, { SUCCESS: 2, CHECKS_FAILED: 1, CHECKS_TIMEOUT: 1, CHECKS_RETRIED: 1 });
    expect(body).toEqual({ groups: [{ ...main, stats: expected }] });
    expect(await stats('checks', 'merge_queue_checks_outcome', `${W}&queue_name=x`)).toEqual({ groups: [] });
  });
  it('average_ci_runtime: ended − started, bucketed by the end', async () => {
    expect(await stats('checks', 'average_ci_runtime', W)).toEqual({
      groups: [
        {
          ...main,
          stats: [
            { ...b10, runtime: 900, sum_runtime: 1800, count_runtime: 2 },
            { ...b11, runtime: 600, sum_runtime: 600, count_runtime: 1 },
          ],
        },
      ],
    });
  });
});

describe('queue sessions', () => {
  it('total_queue_time: leave − queued_at by leave bucket, sessions spanning bucket edges included', async () => {
    expect(await stats('sessions', 'total_queue_time', `${W}&base_ref=main`)).toEqual({
      groups: [
        {
          ...main,
          stats: [
            {
              ...b10,
              avg_queue_time: 4420,
              max_queue_time: 8400,
              min_queue_time: 2400,
              sum_queue_time: 13260,
              count_queue_time: 3,
            },
            {
              ...b11,
              avg_queue_time: 3600,
              max_queue_time: 4500,
              min_queue_time: 2700,
              sum_queue_time: 7200,
              count_queue_time: 2,
            },
          ],
        },
      ],
    });
  });
  it('average_queue_time: capacity, schedule and freeze means; queue_time their sum', async () => {
    expect(await stats('sessions', 'average_queue_time', W)).toEqual({
      groups: [
        {
          ...main,
          stats: [
            { ...b10, queue_time: 3330, idle_capacity: 3300, idle_schedule: 10, idle_freeze: 20 },
            { ...b11, queue_time: 1650, idle_capacity: 1650, idle_schedule: 0, idle_freeze: 0 },
          ],
        },
        {
          ...relGroup,
          stats: [{ ...b11, queue_time: 2400, idle_capacity: 2400, idle_schedule: 0, idle_freeze: 0 }],
        },
      ],
    });
  });
  it('failure_rate: CHECKS_FAILED and CHECKS_TIMEOUT leaves over all leaves', async () => {
    expect(await stats('sessions', 'failure_rate', `${W}&priority_rule_name=default`)).toEqual({
      groups: [
        {
          ...main,
          stats: [
            { ...b10, total: 3, failures: 2, failure_rate: 2 / 3 },
            { ...b11, total: 2, failures: 0, failure_rate: 0 },
          ],
        },
      ],
    });
  });
  it('queues_pr_exit_reasons: each session once, a re-queued PR in each of its sessions', async () => {
    expect(await stats('sessions', 'queues_pr_exit_reasons', W)).toEqual({
      groups: [
        {
          ...main,
          stats: [
            { ...b10, exit_reason: 'PR_MERGED', count: 1 },
            { ...b10, exit_reason: 'CHECKS_TIMEOUT', count: 1 },
            { ...b10, exit_reason: 'CHECKS_FAILED', count: 1 },
            { ...b11, exit_reason: 'PR_MERGED', count: 1 },
            { ...b11, exit_reason: 'PR_MANUALLY_DEQUEUED', count: 1 },
          ],
        },
        { ...relGroup, stats: [{ ...b11, exit_reason: 'PR_MERGED', count: 1 }] },
      ],
    });
  });
  it('checks_retries: retries, recovery and depth of the sessions that left', async () => {
    expect(await stats('sessions', 'checks_retries', `${W}&base_ref=main`)).toEqual({
      groups: [
        {
          ...main,
          stats: [
            {
              ...b10,
              total_retries: 1,
              sessions_with_retries: 1,
              recovered: 0,
              not_recovered: 1,
              recovery_rate: 0,
              avg_retry_depth: 1,
              max_retry_depth: 1,
            },
            {
              ...b11,
              total_retries: 2,
              sessions_with_retries: 1,
              recovered: 1,
              not_recovered: 0,
              recovery_rate: 1,
              avg_retry_depth: 2,
              max_retry_depth: 2,
            },
          ],
        },
      ],
    });
    expect(await stats('sessions', 'checks_retries', `${W}&base_ref=release`)).toEqual({
      groups: [
        {
          ...relGroup,
          stats: [
            {
              ...b11,
              total_retries: 0,
              sessions_with_retries: 0,
              recovered: 0,
              not_recovered: 0,
              recovery_rate: null,
              avg_retry_depth: null,
              max_retry_depth: 0,
            },
          ],
        },
      ],
    });
  });
  it('time_to_merge: merged sessions of the last 90 days, minus freeze and schedule waits', async () => {
    // main/default merged: S1 2400 − 60 − 30 = 2310, S4 4500 ⇒ mean = median = 3405; S7 is too old.
    // release/hotfix merged: S6 2400. Every partition lists every queue rule seen.
    expect(await stats('sessions', 'time_to_merge', 'at=2026-11-02T00:00:00Z')).toEqual([
      {
        partition_name: '__default__',
        queues: [
          { queue_name: 'default', time_to_merge: { mean: 3405, median: 3405 } },
          { queue_name: 'hotfix', time_to_merge: { mean: 2400, median: 2400 } },
        ],
      },
    ]);
    expect(await stats('sessions', 'time_to_merge', 'at=2026-11-02T00:00:00Z&branch=release')).toEqual([
      {
        partition_name: '__default__',
        queues: [{ queue_name: 'hotfix', time_to_merge: { mean: 2400, median: 2400 } }],
      },
    ]);
    // At 10:30 only S1 has merged in main; S2–S4 have not left, so default has data, hotfix none.
    expect(await stats('sessions', 'time_to_merge', 'at=2026-11-01T10:30:00Z&branch=main')).toEqual([
      {
        partition_name: '__default__',
        queues: [{ queue_name: 'default', time_to_merge: { mean: 2310, median: 2310 } }],
      },
    ]);
    expect(await stats('empty', 'time_to_merge')).toEqual([]);
  });
});

describe('gauges', () => {
  it('queue_size: time-weighted with the value in force carried into each bucket', async () => {
    // 10:00–11:00: 2 (carried from 09:00) for 15 min, 4 for 30 min, 0 for 15 min ⇒ 9000 / 3600 = 2.5
    // 11:00–12:00: 0 for 30 min, 1 for 30 min ⇒ 0.5
    expect(await stats('gauges', 'queue_size', `${W}&queue_name=default`)).toEqual({
      groups: [
        {
          ...main,
          stats: [
            { ...b10, avg_size: 2.5, max_size: 4, min_size: 0 },
            { ...b11, avg_size: 0.5, max_size: 1, min_size: 0 },
          ],
        },
      ],
    });
  });
  it('queue_size: a period starting and ending inside buckets measures only its part of them', async () => {
    // 10:30–11:00: 4 for 15 min, 0 for 15 min ⇒ 2; 11:00–11:45: 0 for 30 min, 1 for 15 min ⇒ 1/3
    // queue "other": 0 until 10:30, 7 from 10:30 (a reading exactly at the start) ⇒ 7 for the whole span
    expect(
      await stats('gauges', 'queue_size', 'start_at=2026-11-01T10:30:00Z&end_at=2026-11-01T11:45:00Z'),
    ).toEqual({
      groups: [
        {
          ...main,
          stats: [
            { ...b10, avg_size: 2, max_size: 4, min_size: 0 },
            { ...b11, avg_size: 1 / 3, max_size: 1, min_size: 0 },
          ],
        },
        {
          ...main,
          queue_name: 'other',
          stats: [
            { ...b10, avg_size: 7, max_size: 7, min_size: 7 },
            { ...b11, avg_size: 7, max_size: 7, min_size: 7 },
          ],
        },
      ],
    });
  });
  it('queue_size: buckets without readings report the value carried in when it is not 0', async () => {
    const body = await stats(
      'gauges',
      'queue_size',
      'start_at=2026-11-01T12:00:00Z&end_at=2026-11-01T12:59:59Z&queue_name=default',
    );
    expect(body).toEqual({
      groups: [{ ...main, stats: [{ ...b12, avg_size: 1, max_size: 1, min_size: 1 }] }],
    });
    expect(
      await stats(
        'gauges',
        'queue_size',
        'start_at=2026-11-01T10:50:00Z&end_at=2026-11-01T11:10:00Z&queue_name=default',
      ),
    ).toEqual({
      groups: [],
    });
  });
  it('queue_size: the value in force is not carried past now (no bucket after it)', async () => {
    // The last reading (1, at 11:30) stays in force; now is 2026-11-02T12:30: a window to the
    // end of the year reports the buckets up to now's and none after, measured up to now.
    const body = await stats(
      'gauges',
      'queue_size',
      'start_at=2026-11-01T00:00:00Z&end_at=2026-12-31T00:00:00Z&queue_name=default',
    );
    const buckets = body.groups[0].stats as { start: string; end: string; avg_size: number }[];
    expect(buckets.at(-1)).toEqual({
      start: '2026-11-02T00:00:00Z',
      end: '2026-11-02T23:59:59Z',
      avg_size: 1,
      max_size: 1,
      min_size: 1,
    });
    expect(buckets.map((b) => b.start)).toEqual(['2026-11-01T00:00:00Z', '2026-11-02T00:00:00Z']);
  });
  it.each(['queue_size', 'running_speculative_checks'])(
    '%s over the widest window the dates allow is a prompt 422, not a stalled server',
    async (endpoint) => {
      const started = performance.now();
      const res = await api.request(
        `/v1/repos/acme/gauges/stats/${endpoint}?start_at=1970-01-01&end_at=9998-12-31T23:59:59Z`,
        { token },
      );
      expect(res.status).toBe(422);
      expect(res.body.detail[0]).toMatchObject({ loc: ['query', 'start_at'], type: 'value_error' });
      expect(res.body.detail[0].msg).toMatch(/366 days/);
      // The longest period allowed answers, with at most one bucket per 2 days.
      const year = await stats('gauges', endpoint, 'start_at=2026-01-01&end_at=2027-01-02');
      for (const group of year.groups) expect(group.stats.length).toBeLessThanOrEqual(183);
      expect(performance.now() - started).toBeLessThan(5_000);
    },
  );
  it('running_speculative_checks: no priority rule in groups, its filter ignored', async () => {
    const expected = {
      groups: [
        {
          base_ref: 'main',
          partition_name: '__default__',
          queue_name: 'default',
          stats: [
            { ...b10, avg_running_checks: 2.5, max_running_checks: 4, min_running_checks: 0 },
            { ...b11, avg_running_checks: 0.5, max_running_checks: 1, min_running_checks: 0 },
          ],
        },
      ],
    };
    expect(await stats('gauges', 'running_speculative_checks', W)).toEqual(expected);
    expect(await stats('gauges', 'running_speculative_checks', `${W}&priority_rule_name=nope`)).toEqual(
      expected,
    );
    expect(await stats('gauges', 'running_speculative_checks', `${W}&base_ref=release`)).toEqual({
      groups: [],
    });
  });
});

describe('batches and bisections', () => {
  it('batch_size: one checks run per batch start', async () => {
    expect(await stats('batches', 'batch_size', W)).toEqual({
      groups: [
        {
          ...main,
          stats: [
            {
              ...b10,
              avg_batch_size: 7 / 3,
              max_batch_size: 3,
              min_batch_size: 1,
              sum_batch_size: 7,
              count_batch_size: 3,
            },
            // the two checks_start events without a batch id count as two runs
            {
              ...b11,
              avg_batch_size: 2,
              max_batch_size: 2,
              min_batch_size: 2,
              sum_batch_size: 4,
              count_batch_size: 2,
            },
          ],
        },
      ],
    });
  });
  it('batch_bisection: started and completed', async () => {
    expect(await stats('bisection', 'batch_bisection', W)).toEqual({
      started: [
        {
          ...main,
          stats: [
            { ...b10, bisection_count: 2, avg_depth: 1.5, max_depth: 2, avg_batch_size_before_split: 3 },
          ],
        },
      ],
      completed: [
        {
          ...main,
          stats: [
            { ...b10, bisection_completed_count: 1, culprit_found_count: 1, max_failure_reached_count: 0 },
            { ...b11, bisection_completed_count: 1, culprit_found_count: 0, max_failure_reached_count: 1 },
          ],
        },
      ],
    });
    expect(await stats('bisection', 'batch_bisection', `${W}&queue_name=nope`)).toEqual({
      started: [],
      completed: [],
    });
  });
});
