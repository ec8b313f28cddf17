import { describe, expect, it } from 'vitest';
import type { NewEventOf } from '../../../shared/schemas/event.schema.ts';
import { checkAll } from '../support/invariants.ts';
import { failIfContains, scenario } from '../support/scenario.ts';

/*
 * merge_queue.bisect_aside (app/queue/aside.ts): a failed batch steps aside while it is bisected;
 * the queue goes on without it, and its innocent pull requests wait again.
 */

const merged = (s: ReturnType<typeof scenario>) => s.events('action.queue.merged').map((e) => e.pull_request);
const culprits = (s: ReturnType<typeof scenario>) =>
  s
    .events('action.queue.batch_bisection_end')
    .flatMap((e) => (e as NewEventOf<'action.queue.batch_bisection_end'>).metadata.culprit_pr_numbers);

describe('bisect aside', () => {
  it('the batch behind a failed batch is rebuilt without it and merges while the failed one is bisected', () => {
    const s = scenario({
      queue_rules: [{ name: 'default', batch_size: 3, batch_max_wait_time: '1m' }],
      merge_queue: { max_parallel_checks: 2, bisect_aside: true },
    });
    s.at('0s').queue(1, 2, 3, 4, 5, 6);
    const mark = s.mark() - 1;
    s.runUntilIdle({ ci: failIfContains(2) });
    expect(s.timeline({ from: mark })).toMatchInlineSnapshot(`
      "
      0s     command queue #6
               command.queue #6
               action.queue.enter #6
               → react +1
               → prepare_test_branch batch-2 [#1,#2,#3,#4,#5,#6]
      0s     test_branch_prepared batch-1 (attempt 1) sha=test-batch-1-1
               action.queue.checks_start #1,#2,#3 batch-1 [#1,#2,#3]
      0s     test_branch_prepared batch-2 (attempt 1) sha=test-batch-2-1
               action.queue.checks_start #4,#5,#6 batch-2 [#1,#2,#3,#4,#5,#6]
      10m    checks_reported test-batch-1-1 ci=failure
               action.queue.checks_end #4,#5,#6 batch-2 BATCH_AHEAD_FAILED REEMBARKED
               action.queue.checks_end #1,#2,#3 batch-1 CHECKS_FAILED REEMBARKED
               action.queue.batch_bisection_start #1 depth=1 sub_batches=2 size=3
               → cancel_checks batch-2
               → close_draft_pr batch-2
               → close_draft_pr batch-1
               → prepare_test_branch batch-1.1.1 [#1]
               → prepare_test_branch batch-1.1.2 [#1,#2]
               → prepare_test_branch batch-3 [#4,#5,#6]
      10m    checks_reported test-batch-2-1 ci=failure
      10m    test_branch_prepared batch-1.1.1 (attempt 1) sha=test-batch-1.1.1-1
               action.queue.checks_start #1 batch-1.1.1 [#1]
      10m    test_branch_prepared batch-1.1.2 (attempt 1) sha=test-batch-1.1.2-1
               action.queue.checks_start #1,#2 batch-1.1.2 [#1,#2]
      10m    test_branch_prepared batch-3 (attempt 1) sha=test-batch-3-1
               action.queue.checks_start #4,#5,#6 batch-3 [#4,#5,#6]
      20m    checks_reported test-batch-1.1.1-1 ci=success
      20m    checks_reported test-batch-1.1.2-1 ci=failure
               action.queue.checks_end #1,#2 batch-1.1.2 failure
               action.queue.checks_end #1 batch-1.1.1 MERGE_QUEUE_RESET REEMBARKED
               action.queue.batch_bisection_end #1 culprits=[#2] remaining=[#1,#3]
               action.queue.leave #2 CHECKS_FAILED
               → close_draft_pr batch-1.1.2
               → close_draft_pr batch-1.1.1
               → prepare_test_branch batch-4 [#4,#5,#6,#1,#3]
      20m    checks_reported test-batch-3-1 ci=success
               → merge_pr #4 (merge)
      20m    test_branch_prepared batch-4 (attempt 1) sha=test-batch-4-1
               action.queue.checks_start #1,#3 batch-4 [#4,#5,#6,#1,#3]
      20m    merge_completed #4 sha=main-1
               action.queue.checks_end #4 batch-3 success
               action.queue.merged #4
               action.queue.leave #4 PR_MERGED merged
               → merge_pr #5 (merge)
      20m    base_branch_moved main=main-1
      20m    merge_completed #5 sha=main-2
               action.queue.checks_end #5 batch-3 success
               action.queue.merged #5
               action.queue.leave #5 PR_MERGED merged
               → merge_pr #6 (merge)
      20m    base_branch_moved main=main-2
      20m    merge_completed #6 sha=main-3
               action.queue.checks_end #6 batch-3 success
               action.queue.merged #6
               action.queue.leave #6 PR_MERGED merged
               → close_draft_pr batch-3
               → verify_merge batch-3 main tested=test-batch-3-1
      20m    base_branch_moved main=main-3
      20m    base_tree_read batch-3 main=main-3 tree=tree-of-test-batch-3-1
               action.queue.merge_verified #4,#5,#6
      30m    checks_reported test-batch-4-1 ci=success
               → merge_pr #1 (merge)
      30m    merge_completed #1 sha=main-4
               action.queue.checks_end #1 batch-4 success
               action.queue.merged #1
               action.queue.leave #1 PR_MERGED merged
               → merge_pr #3 (merge)
      30m    base_branch_moved main=main-4
      30m    merge_completed #3 sha=main-5
               action.queue.checks_end #3 batch-4 success
               action.queue.merged #3
               action.queue.leave #3 PR_MERGED merged
               → close_draft_pr batch-4
               → verify_merge batch-4 main tested=test-batch-4-1
      30m    base_branch_moved main=main-5
      30m    base_tree_read batch-4 main=main-5 tree=tree-of-test-batch-4-1
               action.queue.merge_verified #1,#3
      "
    `);
    // #4–#6 overtook the failed batch; #1 and #3 were cleared and merged after them.
    expect(merged(s)).toEqual([4, 5, 6, 1, 3]);
    expect(culprits(s)).toEqual([2]);
  });

  it('without pull requests queued behind, the passing prefix merges at once (nothing overtook it)', () => {
    const s = scenario({
      queue_rules: [{ name: 'default', batch_size: 4, batch_max_wait_time: '1m' }],
      merge_queue: { max_parallel_checks: 1, bisect_aside: true },
    });
    s.at('0s').queue(1, 2, 3, 4);
    s.runUntilIdle({ ci: failIfContains(4) });
    expect(merged(s)).toEqual([1, 2, 3]);
    expect(culprits(s)).toEqual([4]);
    // Tested in the batch and in two probes, not again: the prefix that passed is what merged.
    expect(s.events('action.queue.checks_start').filter((e) => e.pull_request === 1)).toHaveLength(3);
  });

  it('goes on after a culprit: two culprits of one batch are found by one bisection, the rest merge', () => {
    const s = scenario({
      queue_rules: [{ name: 'default', batch_size: 8, batch_max_wait_time: '1m' }],
      merge_queue: { max_parallel_checks: 2, bisect_aside: true },
    });
    s.at('0s').queue(1, 2, 3, 4, 5, 6, 7, 8);
    s.runUntilIdle({ ci: failIfContains(3, 6) });
    expect(culprits(s)).toEqual([3, 6]);
    expect(merged(s)).toEqual([1, 2, 4, 5, 7, 8]);
    expect(s.events('action.queue.leave').filter((e) => e.pull_request === 6)).toHaveLength(1);
  });

  it('a suspect in two partitions is held in its other lane and queued again behind whoever overtook it', () => {
    const s = scenario({
      queue_rules: [{ name: 'default', batch_size: 2, batch_max_wait_time: '1m' }],
      partition_rules: [
        { name: 'web', conditions: ['files~=^web/'] },
        { name: 'api', conditions: ['files~=^api/'] },
      ],
      merge_queue: { max_parallel_checks: 2, bisect_aside: true },
    });
    s.open(1, { files: ['web/a.ts'] });
    s.open(2, { files: ['web/b.ts', 'api/b.ts'] });
    s.open(3, { files: ['api/c.ts'] });
    s.open(4, { files: ['web/d.ts', 'api/d.ts'] });
    s.at('0s').queue(1, 2, 3, 4);
    s.runUntilIdle({ ci: failIfContains(1) });
    expect(culprits(s)).toEqual([1]);
    // #2 was a suspect (in web's failed batch): #3 and #4 went first in api, so #2 follows #4 everywhere.
    expect(merged(s)).toEqual([3, 4, 2]);
  });

  // #1 is cleared as its batch's passing prefix becomes the head; re-ordering it behind #3, which
  // it holds in that very batch, would break the queue order.
  it('a suspect whose passing prefix stays in line keeps its place in the queue order', () => {
    const s = scenario({
      queue_rules: [{ name: 'default', batch_size: 3, batch_max_wait_time: '1m' }],
      partition_rules: [
        { name: 'web', conditions: ['files~=^web/'] },
        { name: 'api', conditions: ['files~=^api/'] },
      ],
      merge_queue: { max_parallel_checks: 1, bisect_aside: true },
    });
    s.open(1, { files: ['web/a.ts', 'api/a.ts'] });
    s.open(2, { files: ['web/b.ts', 'api/b.ts'] });
    s.open(3, { files: ['api/c.ts'] });
    s.at('0s').queue(1, 2, 3);
    s.runUntilIdle({ ci: failIfContains(2) });
    expect(culprits(s)).toEqual([2]);
    // api's [1,2,3] failed; #1 and #2 were suspects; [1,3] passed and merges as the head.
    expect(merged(s)).toEqual([1, 3]);
    const problems = checkAll(s.log, { verdicts: s.verdicts, tested: s.tested(), skipIntermediate: false });
    expect(problems).toEqual([]);
  });
});
