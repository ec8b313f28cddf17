import { describe, expect, it } from 'vitest';
import {
  computeBatchEtas,
  computeCiQuantile,
  computeEtaRange,
  computeFailureRate,
  computeMergeChance,
  DEFAULT_CI_SECONDS,
} from '../../app/queue/eta.ts';
import { failIfContains, scenario } from './support/scenario.ts';

describe('status projection', () => {
  it('shows batches head first with parents, status codes, checks summary and waiting PRs in queue order', () => {
    const s = scenario({
      queue_rules: [{ name: 'default', batch_size: 2 }],
      merge_queue: { max_parallel_checks: 2 },
    });
    s.queue(1, 2, 3, 4, 5);
    s.runUntilIdle({ ci: () => 'hang', until: '1m' });
    const status = s.status();
    const [head, second] = status.batches;
    expect(status.mode).toBe('serial');
    expect(status.scope_queues).toEqual({ __default__: [head?.id, second?.id] });
    expect(head).toMatchObject({
      name: 'batch-1',
      parent_ids: [],
      status: { code: 'running' },
      started_at: '2026-11-02T09:00:00.000Z',
      estimated_merge_at: '2026-11-02T09:10:00.000Z',
      estimated_ci_finish_at: '2026-11-02T09:10:00.000Z',
      ci_finished_at: null,
      checks_timeout_at: '2026-11-02T10:00:00.000Z',
      scopes: ['__default__'],
      queue_rule_name: 'default',
      // Nothing reported yet: the check the merge conditions name (ci) is awaited.
      checks_summary: { passed: 0, total: 1 },
    });
    expect(second).toMatchObject({ parent_ids: [head?.id], status: { code: 'running' } });
    expect(status.waiting_pull_requests.map((p) => p.number)).toEqual([5]);
    expect(status.waiting_pull_requests[0]).toEqual({
      number: 5,
      title: 'Change 5',
      url: 'https://github.com/acme/app/pull/5',
      author: { id: 1001, login: 'alice' },
      head_ref: 'feature-5',
      queued_at: '2026-11-02T09:00:00.000Z',
      priority_alias: 'medium',
      priority_rule_name: null,
      labels: [],
      github_labels: [],
      scopes: ['__default__'],
      // After the two batches under test, as soon as one frees its slot (09:10), one CI run.
      estimated_merge_at: '2026-11-02T09:20:00.000Z',
      // The p90 allows for one failure among the batches up to it (10 % failure rate until some are
      // seen), which costs no more here than the wait for a slot.
      estimated_merge_at_p90: '2026-11-02T09:20:00.000Z',
      reasons: [
        {
          code: 'waiting_for_slot',
          message:
            'Waiting for a test slot: 2 batches in line in partition __default__, 2 tested at once; pull requests ahead are batched first',
          since: '2026-11-02T09:00:00.000Z',
          until: null,
          next_action: null,
        },
      ],
    });
    s.at('4m').ci('batch-2', 'success');
    expect(s.status().batches[1]).toMatchObject({
      status: { code: 'waiting_for_previous_batches' },
      checks_summary: { passed: 1, total: 1 },
      estimated_ci_finish_at: null,
      ci_finished_at: '2026-11-02T09:04:00.000Z',
      checks_timeout_at: null,
      // batch-2 took 4 minutes: the median CI duration is now 4 minutes, so batch-1 is due at 09:04.
      estimated_merge_at: '2026-11-02T09:04:00.000Z',
    });
  });

  it('a bisected batch shows as bisecting with its sub-batches', () => {
    const s = scenario({
      queue_rules: [{ name: 'default', batch_size: 4 }],
      merge_queue: { max_parallel_checks: 2 },
    });
    s.queue(1, 2, 3, 4);
    s.runUntilIdle({ ci: failIfContains(3), until: '15m' });
    const [batch] = s.status().batches;
    expect(batch?.status.code).toBe('bisecting');
    expect(
      batch?.sub_batches?.map((b) => [b.name, b.status.code, b.pull_requests.map((p) => p.number)]),
    ).toEqual([
      ['batch-1.1.2', 'running', [1, 2]],
      ['batch-1.1.3', 'running', [1, 2, 3]],
    ]);
  });

  it('the status of another base branch is empty', () => {
    const s = scenario();
    s.queue(1);
    expect(s.status('release')).toEqual({
      mode: 'serial',
      scope_queues: {},
      batches: [],
      waiting_pull_requests: [],
      pause: null,
    });
  });
});

describe('status parity with Mergify', () => {
  it('mode is parallel with partition rules (they are its scopes), serial without', () => {
    const s = scenario({ partition_rules: [{ name: 'web', conditions: ['files~=^web/'] }] });
    s.queue(1);
    expect(s.status().mode).toBe('parallel');
  });

  it('counts every check the merge conditions name in checks_summary, reported or not; neutral and skipped pass', () => {
    const s = scenario({
      queue_rules: [
        {
          name: 'default',
          merge_conditions: ['check-success=ci', { or: ['check-success=lint', '-check-failure=docs'] }],
        },
      ],
    });
    s.queue(1);
    s.runUntilIdle({ ci: () => 'hang', until: '1m' });
    expect(s.status().batches[0]?.checks_summary).toEqual({ passed: 0, total: 3 });
    s.ci('batch-1', 'skipped', 'lint');
    s.ci('batch-1', 'pending', 'e2e');
    // lint reported (and passes), e2e reported (running), ci and docs awaited.
    expect(s.status().batches[0]?.checks_summary).toEqual({ passed: 1, total: 4 });
  });

  it('waiting pull requests get the estimate of the batch they should join; none while paused or behind a freeze', () => {
    const s = scenario({
      queue_rules: [{ name: 'default', batch_size: 2 }],
      merge_queue: { max_parallel_checks: 1 },
    });
    s.queue(1, 2, 3, 4, 5, 6);
    s.runUntilIdle({ ci: () => 'hang', until: '1m' });
    const waiting = () => s.status().waiting_pull_requests.map((p) => [p.number, p.estimated_merge_at]);
    // One slot: batch-1 [1, 2] ends at 09:10, then [3, 4] at 09:20, then [5, 6] at 09:30.
    expect(waiting()).toEqual([
      [3, '2026-11-02T09:20:00.000Z'],
      [4, '2026-11-02T09:20:00.000Z'],
      [5, '2026-11-02T09:30:00.000Z'],
      [6, '2026-11-02T09:30:00.000Z'],
    ]);
    expect(s.status().batches[0]?.pull_requests.map((p) => p.estimated_merge_at)).toEqual([
      '2026-11-02T09:10:00.000Z',
      '2026-11-02T09:10:00.000Z',
    ]);
    s.send({ type: 'pause_set', reason: 'release', by: { type: 'user', id: 7, name: 'ops' } });
    expect(waiting().map(([, eta]) => eta)).toEqual([null, null, null, null, null, null]);
  });
});

describe('estimated merge time', () => {
  it('chains the median CI duration along the queue and is never earlier than now', () => {
    const s = scenario({ merge_queue: { max_parallel_checks: 1 } });
    s.queue(1, 2);
    s.runUntilIdle({ ci: () => 'hang', until: '1m' });
    const lane = s.state.lanes[0]!;
    expect(computeCiQuantile(s.state, 0.5)).toBe(DEFAULT_CI_SECONDS);
    s.at('30m');
    const [eta] = computeBatchEtas(s.state, lane, { now: new Date(s.now) });
    expect(eta).toBe(s.now);
  });

  it('learns from recent CI durations and gives a p50/p90 range', () => {
    const s = scenario();
    s.queue(1).runUntilIdle({ ciDuration: '4m' });
    s.queue(2).runUntilIdle({ ciDuration: '20m' });
    s.queue(3).runUntilIdle({ ciDuration: '6m' });
    expect(s.state.ciDurations).toEqual([240, 1200, 360]);
    expect(computeCiQuantile(s.state, 0.5)).toBe(360);
    expect(computeCiQuantile(s.state, 0.9)).toBe(1200);
    s.queue(4).runUntilIdle({ ci: () => 'hang', until: '31m' });
    const lane = s.state.lanes[0]!;
    const started = Date.parse('2026-11-02T09:30:00Z');
    expect(computeEtaRange(s.state, lane, new Date(s.now))).toEqual([
      { p50: started + 360_000, p90: started + 1_200_000 },
    ]);
  });

  it('knows the observed failure rate and the chance a batch merges by a given time', () => {
    const s = scenario();
    s.queue(1).runUntilIdle({ ciDuration: '10m' });
    s.queue(2).runUntilIdle({ ci: () => 'failure', ciDuration: '10m' });
    s.queue(3).runUntilIdle({ ciDuration: '20m' });
    expect(computeFailureRate(s.state)).toBeCloseTo(1 / 3);
    s.queue(4).runUntilIdle({ ci: () => 'hang', until: '41m' });
    const lane = s.state.lanes[0]!;
    const now = new Date(s.now);
    const chance = (minutes: number) =>
      computeMergeChance(s.state, { lane, index: 0, now, at: new Date(s.now + minutes * 60_000) });
    // Started at 40m; recent runs took 10 and 20 minutes; one test in three failed.
    expect(chance(5)).toBe(0);
    expect(chance(12)).toBeCloseTo((1 / 2) * (2 / 3));
    expect(chance(25)).toBeCloseTo(2 / 3);
  });
});
