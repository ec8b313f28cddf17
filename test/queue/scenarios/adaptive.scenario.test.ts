import { describe, expect, it } from 'vitest';
import { trainyardConfigSchema } from '../../../app/config/config.schema.ts';
import {
  computeLaneDepth,
  decideAdaptiveRetry,
  estimateSoloFlake,
  recordSoloRetry,
} from '../../../app/queue/adaptive.ts';
import { initialState } from '../../../app/queue/state.schema.ts';
import type { Batch } from '../../../app/queue/state.ts';
import { failIfContains, scenario } from '../support/scenario.ts';

/** One pull request a batch, so that the number of batches under test is the lane's depth. */
const single = { name: 'default', batch_size: 1, batch_max_wait_time: '0s' };

function adaptive(mergeQueue: Record<string, unknown> = {}) {
  return {
    queue_rules: [single],
    merge_queue: { mode: 'adaptive' as const, max_parallel_checks: 4, queued_per_check: 2, ...mergeQueue },
  };
}

function queueMany(s: ReturnType<typeof scenario>, numbers: number[], files?: string[]) {
  for (const n of numbers) s.open(n, files === undefined ? {} : { files }).command(n, 'queue');
}

const underTest = (s: ReturnType<typeof scenario>) =>
  s.status().batches.filter((b) => b.status.code !== 'waiting_for_batch').length;

describe('mode: adaptive — the lane tests as many batches as its queue needs', () => {
  it('one batch per queued_per_check queued pull requests, at most max_parallel_checks', () => {
    const config = trainyardConfigSchema.parse(adaptive());
    expect([0, 1, 2, 3, 4, 5, 7, 8, 9, 40].map((q) => computeLaneDepth(config, q).depth)).toEqual([
      1, 1, 1, 2, 2, 3, 4, 4, 4, 4,
    ]);
    const fixed = trainyardConfigSchema.parse({ ...adaptive(), merge_queue: { max_parallel_checks: 4 } });
    expect(computeLaneDepth(fixed, 1).depth).toBe(4);
  });

  it('a short queue is tested one batch at a time; a longer one deeper', () => {
    const s = scenario(adaptive());
    queueMany(s, [1, 2]);
    s.runUntilIdle({ ci: () => 'hang', until: '1m' });
    // 2 queued, one batch a 2: #2 waits for #1's batch instead of being stacked on it.
    expect(s.effects('prepare_test_branch')).toHaveLength(1);
    queueMany(s, [3, 4, 5, 6]);
    s.runUntilIdle({ ci: () => 'hang', until: '2m' });
    // 6 queued: 3 batches at once.
    expect(s.effects('prepare_test_branch').map((e) => e.pullRequests.map((p) => p.number))).toEqual([
      [1],
      [1, 2],
      [1, 2, 3],
    ]);
    expect(underTest(s)).toBe(3);
  });

  it('says why in the batch’s checks_start event', () => {
    const s = scenario(adaptive());
    queueMany(s, [1, 2, 3]);
    s.runUntilIdle({ ci: () => 'hang', until: '1m' });
    const reasons = s
      .events('action.queue.checks_start')
      .map((e) => e.type === 'action.queue.checks_start' && e.metadata.start_reason);
    expect(reasons).toEqual([
      'batch-1 started; adaptive: 1 batch at once for 1 queued (one per 2, at most 4)',
      'batch-2 started; adaptive: 2 batches at once for 3 queued (one per 2, at most 4)',
    ]);
  });

  it('says why on the check run of each pull request in the batch and in the status', () => {
    const s = scenario(adaptive());
    queueMany(s, [1, 2, 3]);
    s.runUntilIdle({ ci: () => 'hang', until: '1m' });
    const last = s
      .effects('publish_check_run')
      .filter((e) => e.number === 2)
      .at(-1);
    expect(last?.details.kind === 'queued' && last.details.batch?.laneDepth).toEqual({
      depth: 2,
      queued: 3,
      perCheck: 2,
      ceiling: 4,
    });
    // And in the status, for programs.
    expect(s.status().batches.map((b) => b.lane_depth)).toEqual([
      { depth: 1, queued: 1, queued_per_check: 2, max_parallel_checks: 4 },
      { depth: 2, queued: 3, queued_per_check: 2, max_parallel_checks: 4 },
    ]);
  });

  it('the fixed mode tests max_parallel_checks batches whatever the queue', () => {
    const s = scenario({ queue_rules: [single], merge_queue: { max_parallel_checks: 4 } });
    queueMany(s, [1, 2]);
    s.runUntilIdle({ ci: () => 'hang', until: '1m' });
    expect(s.effects('prepare_test_branch')).toHaveLength(2);
    expect(
      s
        .events('action.queue.checks_start')
        .map((e) => e.type === 'action.queue.checks_start' && e.metadata.start_reason),
    ).toEqual(['batch-1 started', 'batch-2 started']);
  });

  it('the depth shrinks as the queue drains: no new batch is stacked once the queue is short', () => {
    const s = scenario(adaptive());
    queueMany(s, [1, 2, 3, 4, 5, 6]);
    s.runUntilIdle({ ci: () => 'hang', until: '1m' });
    expect(underTest(s)).toBe(3);
    // #1, #2 and #3 merge: 3 queued, depth 2, and 2 are under test already (#4 and #5 embarked as
    // the slots freed, #6 waits).
    s.at('30m').ci('batch-1', 'success').ci('batch-2', 'success').ci('batch-3', 'success');
    s.runUntilIdle({ ci: () => 'hang', until: '31m' });
    expect(s.events('action.queue.merged').map((e) => e.pull_request)).toEqual([1, 2, 3]);
    expect(underTest(s)).toBe(2);
    expect(s.status().batches.flatMap((b) => b.pull_requests.map((p) => p.number))).toEqual([4, 5]);
  });
});

describe('mode: adaptive — pull requests in several partitions go first among equals', () => {
  const partitioned = (mode: 'fixed' | 'adaptive') => ({
    queue_rules: [single],
    partition_rules: [
      { name: 'web', conditions: ['files~=^web/'] },
      { name: 'api', conditions: ['files~=^api/'] },
    ],
    merge_queue: { mode, max_parallel_checks: 1 },
  });

  /** #10 holds the web lane; then #1 and #2 (web) and #3 (web and api) are queued, in that order. */
  function queueBehindBusyLane(s: ReturnType<typeof scenario>) {
    queueMany(s, [10], ['web/z.ts']);
    queueMany(s, [1, 2], ['web/a.ts']);
    s.open(3, { files: ['web/c.ts', 'api/c.ts'] }).command(3, 'queue');
    s.runUntilIdle({ ci: () => 'hang', until: '1m' });
    s.at('10m').ci('batch-1', 'success');
    s.runUntilIdle({ ci: () => 'hang', until: '11m' });
  }

  it('both lanes test the shared pull request first, so neither waits for the other', () => {
    const s = scenario(partitioned('adaptive'));
    queueBehindBusyLane(s);
    const firsts = s.status().batches.map((b) => [b.scopes, b.pull_requests.map((p) => p.number)]);
    expect(firsts).toEqual([
      [['api'], [3]],
      [['web'], [3]],
    ]);
  });

  it('in the fixed mode queue order holds: the web lane tests #1 first', () => {
    const s = scenario(partitioned('fixed'));
    queueBehindBusyLane(s);
    const firsts = s.status().batches.map((b) => [b.scopes, b.pull_requests.map((p) => p.number)]);
    expect(firsts).toEqual([
      [['api'], [3]],
      [['web'], [1]],
    ]);
  });

  it('priority still comes first: a hotfix in one partition goes before a shared pull request', () => {
    const s = scenario({
      ...partitioned('adaptive'),
      priority_rules: [{ name: 'hotfix', conditions: ['label=hotfix'], priority: 'high' }],
    });
    s.open(3, { files: ['web/c.ts', 'api/c.ts'] });
    s.open(4, { files: ['web/d.ts'], labels: [{ id: 9, name: 'hotfix', color: 'ff0000', default: false }] });
    s.command(3, 'queue').command(4, 'queue');
    s.runUntilIdle({ ci: () => 'hang', until: '1m' });
    const web = s.status().batches.filter((b) => b.scopes.includes('web'));
    expect(web.flatMap((b) => b.pull_requests.map((p) => p.number))).toEqual([4]);
  });
});

describe('mode: adaptive — a failed single pull request is retried while failures of single pull requests are often flakes', () => {
  it('learns P(flake | a single pull request failed) from how its retries ended', () => {
    const config = trainyardConfigSchema.parse(adaptive());
    let state = initialState(config);
    expect(estimateSoloFlake(state)).toBe(0.5);
    const batch = { numbers: [1], retries: 0 } as Batch;
    expect(decideAdaptiveRetry(state, batch)).toBe(true);
    expect(decideAdaptiveRetry(state, { ...batch, numbers: [1, 2] })).toBe(false);
    expect(decideAdaptiveRetry(state, { ...batch, retries: 1 })).toBe(false);
    state = recordSoloRetry(recordSoloRetry(state, false), false);
    expect(estimateSoloFlake(state)).toBeCloseTo(1 / 3.95, 3);
    expect(decideAdaptiveRetry(state, batch)).toBe(false);
    state = recordSoloRetry(recordSoloRetry(state, true), true);
    expect(decideAdaptiveRetry(state, batch)).toBe(true);
  });

  it('a flaky failure is retried, passes, and the pull request merges without leaving the queue', () => {
    const s = scenario(adaptive());
    queueMany(s, [1]);
    s.runUntilIdle({ ci: (_numbers, attempt) => (attempt === 1 ? 'failure' : 'success') });
    expect(s.events('action.queue.merged').map((e) => e.pull_request)).toEqual([1]);
    const retried = s
      .events('action.queue.checks_end')
      .map((e) => e.type === 'action.queue.checks_end' && e.metadata.abort_reason)
      .filter((r) => typeof r === 'string' && r.includes('retry'));
    expect(retried).toEqual([
      'batch-1 failed; retry 1 of 1 (adaptive: a failure of a single pull request has been a flake 50 % of the time here)',
    ]);
    expect(s.state.soloRetries).toEqual({ passed: 1, failed: 0 });
  });

  it('once retries keep failing, a failing pull request leaves at its first failure', () => {
    const s = scenario(adaptive());
    queueMany(s, [1]);
    s.runUntilIdle({ ci: failIfContains(1) });
    queueMany(s, [2]);
    s.runUntilIdle({ ci: failIfContains(2) });
    expect(s.state.soloRetries).toEqual({ passed: 0, failed: 1.95 });
    const runsBefore = s.effects('prepare_test_branch').length;
    queueMany(s, [3]);
    s.runUntilIdle({ ci: failIfContains(3) });
    expect(s.effects('prepare_test_branch').length - runsBefore).toBe(1);
    expect(s.events('action.queue.leave').map((e) => e.pull_request)).toEqual([1, 2, 3]);
  });

  it('the fixed mode never retries beyond max_checks_retries', () => {
    const s = scenario({ queue_rules: [single], merge_queue: { max_parallel_checks: 4 } });
    queueMany(s, [1]);
    s.runUntilIdle({ ci: (_numbers, attempt) => (attempt === 1 ? 'failure' : 'success') });
    expect(s.events('action.queue.merged')).toEqual([]);
    expect(s.state.soloRetries).toBeUndefined();
  });
});
