import { describe, expect, it } from 'vitest';
import { scenario } from '../support/scenario.ts';

/*
 * merge_method fast-forward: the base moves to each batch's tested commit in turn, so a batch
 * behind another is built on that batch's tested commit (the scenario's shell refuses a
 * fast-forward to a commit that does not descend from the base, as GitHub does).
 */

const merged = (s: ReturnType<typeof scenario>) => s.events('action.queue.merged').map((e) => e.pull_request);
const leaves = (s: ReturnType<typeof scenario>) =>
  s
    .events('action.queue.leave')
    .map((e) => `#${e.pull_request} ${(e.metadata as { reason: string }).reason}`);

describe('fast-forward with batches behind others', () => {
  it.each([1, 2, 3])(
    'six pull requests in batches of two, max_parallel_checks %d: every batch lands by fast-forward',
    (parallel) => {
      const s = scenario({
        queue_rules: [{ name: 'default', batch_size: 2, merge_method: 'fast-forward' }],
        merge_queue: { max_parallel_checks: parallel },
      });
      s.queue(1, 2, 3, 4, 5, 6).runUntilIdle();
      expect(leaves(s)).toEqual([1, 2, 3, 4, 5, 6].map((n) => `#${n} PR_MERGED`));
      expect(merged(s)).toEqual([1, 2, 3, 4, 5, 6]);
      // Each batch behind starts on the tested commit of the batch ahead, with its own pull requests only.
      const prepared = s.effects('prepare_test_branch');
      expect(prepared.map((e) => [e.baseSha, e.pullRequests.map((p) => p.number)])).toEqual([
        [null, [1, 2]],
        ['test-batch-1-1', [3, 4]],
        ['test-batch-2-1', [5, 6]],
      ]);
      expect(s.effects('fast_forward_base').map((e) => e.sha)).toEqual([
        'test-batch-1-1',
        'test-batch-2-1',
        'test-batch-3-1',
      ]);
      expect(s.state.mergeIntegrity?.counts).toMatchObject({ equal: 3, different: 0 });
    },
  );

  it('a batch behind waits for the tested commit of the batch ahead before its test branch is asked for', () => {
    const s = scenario({
      queue_rules: [{ name: 'default', batch_size: 2, merge_method: 'fast-forward' }],
      merge_queue: { max_parallel_checks: 2 },
    });
    s.queue(1, 2, 3, 4);
    expect(s.effects('prepare_test_branch')).toHaveLength(1);
    expect(s.status().waiting_pull_requests.map((p) => p.number)).toEqual([3, 4]);
    const mark = s.mark();
    s.runUntilIdle({ until: '1m' });
    expect(s.timeline({ from: mark })).toMatchInlineSnapshot(`
      "
      0s     test_branch_prepared batch-1 (attempt 1) sha=test-batch-1-1
               action.queue.checks_start #1,#2 batch-1 [#1,#2]
               → prepare_test_branch batch-2 [#3,#4]
      0s     test_branch_prepared batch-2 (attempt 1) sha=test-batch-2-1
               action.queue.checks_start #3,#4 batch-2 [#1,#2,#3,#4]
      "
    `);
  });

  it('a retried batch ahead gets a new tested commit: the batches built on the old one are built again on it', () => {
    const s = scenario({
      queue_rules: [{ name: 'default', batch_size: 2, merge_method: 'fast-forward', max_checks_retries: 1 }],
      merge_queue: { max_parallel_checks: 2 },
    });
    s.queue(1, 2, 3, 4).runUntilIdle({
      ci: (numbers, attempt) =>
        numbers.includes(1) && numbers.length === 2 && attempt === 1 ? 'failure' : 'success',
    });
    expect(merged(s)).toEqual([1, 2, 3, 4]);
    const prepared = s.effects('prepare_test_branch');
    expect(prepared.map((e) => [s.names.get(e.batchId), e.attempt, e.baseSha])).toEqual([
      ['batch-1', 1, null],
      ['batch-2', 1, 'test-batch-1-1'],
      ['batch-1', 2, null],
      ['batch-3', 1, 'test-batch-1-2'],
    ]);
  });

  it('a conflict of the first pull request on the commit ahead holds it behind those ahead, as for the other methods', () => {
    const s = scenario({
      queue_rules: [{ name: 'default', batch_size: 2, merge_method: 'fast-forward' }],
      merge_queue: { max_parallel_checks: 2 },
    });
    // #3 conflicts with #1: on any commit holding #1 (batch-1's tested commit, then the base).
    s.queue(1, 2, 3, 4).runUntilIdle({
      prepare: (effect) =>
        effect.pullRequests[0]?.number === 3 && effect.baseSha !== null
          ? {
              type: 'test_branch_failed',
              batchId: effect.batchId,
              attempt: effect.attempt,
              reason: 'conflict_with_base',
              pullRequest: 3,
              message: 'Merge conflict',
            }
          : null,
    });
    const failed = s.log.find((r) => r.input.type === 'test_branch_failed')!;
    expect(failed.state.sessions['3']?.waitingForAhead).toEqual([1, 2]);
    // Once #1 has merged, the conflict is with the base: #3 leaves then, not before.
    expect(leaves(s)).toEqual([
      '#1 PR_MERGED',
      '#2 PR_MERGED',
      '#4 PR_MERGED',
      '#3 CONFLICT_WITH_BASE_BRANCH: Merge conflict',
    ]);
  });
});
