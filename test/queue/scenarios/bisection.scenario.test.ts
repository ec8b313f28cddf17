import { describe, expect, it } from 'vitest';
import type { NewEventOf } from '../../../shared/schemas/event.schema.ts';
import { failIfContains, scenario } from '../support/scenario.ts';

const bisectionEnds = (s: ReturnType<typeof scenario>) =>
  s
    .events('action.queue.batch_bisection_end')
    .map((e) => (e as NewEventOf<'action.queue.batch_bisection_end'>).metadata);

describe('bisection', () => {
  it('one bad PR in a batch of 6 is found with 3 parallel checks', () => {
    const s = scenario({
      queue_rules: [{ name: 'default', batch_size: 6 }],
      merge_queue: { max_parallel_checks: 3 },
    });
    s.at('0s').queue(1, 2, 3, 4, 5, 6);
    const mark = s.mark() - 1;
    s.runUntilIdle({ ci: failIfContains(4) });
    expect(s.timeline({ from: mark })).toMatchInlineSnapshot(`
      "
      0s     command queue #6
               command.queue #6
               action.queue.enter #6
               → react +1
               → prepare_test_branch batch-1 [#1,#2,#3,#4,#5,#6]
      0s     test_branch_prepared batch-1 (attempt 1) sha=test-batch-1-1
               action.queue.checks_start #1,#2,#3,#4,#5,#6 batch-1 [#1,#2,#3,#4,#5,#6]
      10m    checks_reported test-batch-1-1 ci=failure
               action.queue.checks_end #1,#2,#3,#4,#5,#6 batch-1 CHECKS_FAILED REEMBARKED
               action.queue.batch_bisection_start #1 depth=1 sub_batches=3 size=6
               → close_draft_pr batch-1
               → prepare_test_branch batch-1.1.2 [#1,#2]
               → prepare_test_branch batch-1.1.4 [#1,#2,#3,#4]
               → prepare_test_branch batch-1.1.5 [#1,#2,#3,#4,#5]
      10m    test_branch_prepared batch-1.1.2 (attempt 1) sha=test-batch-1.1.2-1
               action.queue.checks_start #1,#2 batch-1.1.2 [#1,#2]
      10m    test_branch_prepared batch-1.1.4 (attempt 1) sha=test-batch-1.1.4-1
               action.queue.checks_start #1,#2,#3,#4 batch-1.1.4 [#1,#2,#3,#4]
      10m    test_branch_prepared batch-1.1.5 (attempt 1) sha=test-batch-1.1.5-1
               action.queue.checks_start #1,#2,#3,#4,#5 batch-1.1.5 [#1,#2,#3,#4,#5]
      20m    checks_reported test-batch-1.1.2-1 ci=success
      20m    checks_reported test-batch-1.1.4-1 ci=failure
               action.queue.checks_end #1,#2,#3,#4 batch-1.1.4 failure
               action.queue.checks_end #1,#2,#3,#4,#5 batch-1.1.5 BATCH_AHEAD_FAILED REEMBARKED
               action.queue.batch_bisection_start #1 depth=2 sub_batches=1 size=2
               → close_draft_pr batch-1.1.4
               → cancel_checks batch-1.1.5
               → close_draft_pr batch-1.1.5
               → prepare_test_branch batch-1.2.3 [#1,#2,#3]
      20m    checks_reported test-batch-1.1.5-1 ci=failure
      20m    test_branch_prepared batch-1.2.3 (attempt 1) sha=test-batch-1.2.3-1
               action.queue.checks_start #1,#2,#3 batch-1.2.3 [#1,#2,#3]
      30m    checks_reported test-batch-1.2.3-1 ci=success
               action.queue.checks_end #1,#2 batch-1.1.2 success
               action.queue.batch_bisection_end #1 culprits=[#4] remaining=[#1,#2,#3,#5,#6]
               action.queue.leave #4 CHECKS_FAILED
               → close_draft_pr batch-1.1.2
               → merge_pr #1 (merge)
               → prepare_test_branch batch-2 [#1,#2,#3,#5,#6]
      30m    merge_completed #1 sha=main-1
               action.queue.checks_end #1 batch-1.2.3 success
               action.queue.merged #1
               action.queue.leave #1 PR_MERGED merged
               → merge_pr #2 (merge)
      30m    base_branch_moved main=main-1
      30m    test_branch_prepared batch-2 (attempt 1) sha=test-batch-2-1
               action.queue.checks_start #5,#6 batch-2 [#1,#2,#3,#5,#6]
      30m    merge_completed #2 sha=main-2
               action.queue.checks_end #2 batch-1.2.3 success
               action.queue.merged #2
               action.queue.leave #2 PR_MERGED merged
               → merge_pr #3 (merge)
      30m    base_branch_moved main=main-2
      30m    merge_completed #3 sha=main-3
               action.queue.checks_end #3 batch-1.2.3 success
               action.queue.merged #3
               action.queue.leave #3 PR_MERGED merged
               → close_draft_pr batch-1.2.3
               → verify_merge batch-1.2.3 main tested=test-batch-1.2.3-1
      30m    base_branch_moved main=main-3
      30m    base_tree_read batch-1.2.3 main=main-3 tree=tree-of-test-batch-1.2.3-1
               action.queue.merge_verified #1,#2,#3
      40m    checks_reported test-batch-2-1 ci=success
               → merge_pr #5 (merge)
      40m    merge_completed #5 sha=main-4
               action.queue.checks_end #5 batch-2 success
               action.queue.merged #5
               action.queue.leave #5 PR_MERGED merged
               → merge_pr #6 (merge)
      40m    base_branch_moved main=main-4
      40m    merge_completed #6 sha=main-5
               action.queue.checks_end #6 batch-2 success
               action.queue.merged #6
               action.queue.leave #6 PR_MERGED merged
               → close_draft_pr batch-2
               → verify_merge batch-2 main tested=test-batch-2-1
      40m    base_branch_moved main=main-5
      40m    base_tree_read batch-2 main=main-5 tree=tree-of-test-batch-2-1
               action.queue.merge_verified #5,#6
      "
    `);
  });

  it('the split is announced with its depth, size and number of sub-batches, then resolved with the culprit', () => {
    const s = scenario({
      queue_rules: [{ name: 'default', batch_size: 6 }],
      merge_queue: { max_parallel_checks: 3 },
    });
    s.queue(1, 2, 3, 4, 5, 6).runUntilIdle({ ci: failIfContains(4) });
    const starts = s.events(
      'action.queue.batch_bisection_start',
    ) as NewEventOf<'action.queue.batch_bisection_start'>[];
    expect(starts.map((e) => e.metadata)).toEqual([
      expect.objectContaining({
        original_batch_pr_numbers: [1, 2, 3, 4, 5, 6],
        batch_size_before_split: 6,
        number_of_sub_batches: 3,
        bisection_depth: 1,
        is_top_level: true,
        partition_name: '__default__',
        queue_name: 'default',
      }),
      expect.objectContaining({
        batch_size_before_split: 2,
        number_of_sub_batches: 1,
        bisection_depth: 2,
        is_top_level: false,
      }),
    ]);
    expect(bisectionEnds(s)).toEqual([
      expect.objectContaining({
        culprit_found: true,
        culprit_pr_numbers: [4],
        remaining_pr_numbers: [1, 2, 3, 5, 6],
        max_failure_resolution_reached: false,
      }),
    ]);
  });

  it('with one parallel check the two probes of a round run one after the other', () => {
    const s = scenario({
      queue_rules: [{ name: 'default', batch_size: 4 }],
      merge_queue: { max_parallel_checks: 1 },
    });
    s.queue(1, 2, 3, 4).runUntilIdle({ ci: failIfContains(2) });
    const running = s
      .events('action.queue.checks.change')
      .map((e) => (e as NewEventOf<'action.queue.checks.change'>).metadata.running_checks);
    expect(Math.max(...running)).toBe(1);
    expect(bisectionEnds(s).map((e) => e.culprit_pr_numbers)).toEqual([[2]]);
    expect(s.events('action.queue.merged').map((e) => e.pull_request)).toEqual([1, 3, 4]);
  });

  it('a culprit at the head of the batch: nothing merges from the bisection, the rest is re-batched', () => {
    const s = scenario({
      queue_rules: [{ name: 'default', batch_size: 5 }],
      merge_queue: { max_parallel_checks: 2 },
    });
    s.queue(1, 2, 3, 4, 5).runUntilIdle({ ci: failIfContains(1) });
    expect(bisectionEnds(s).map((e) => [e.culprit_pr_numbers, e.remaining_pr_numbers])).toEqual([
      [[1], [2, 3, 4, 5]],
    ]);
    expect(s.events('action.queue.merged').map((e) => e.pull_request)).toEqual([2, 3, 4, 5]);
  });

  it('a probe that times out counts as failing', () => {
    const s = scenario({
      queue_rules: [{ name: 'default', batch_size: 3, checks_timeout: '15m' }],
      merge_queue: { max_parallel_checks: 2 },
    });
    s.queue(1, 2, 3).runUntilIdle({
      ci: (numbers) => (numbers.includes(2) ? (numbers.length === 3 ? 'failure' : 'hang') : 'success'),
    });
    expect(bisectionEnds(s).map((e) => e.culprit_pr_numbers)).toEqual([[2]]);
  });
});
