import { describe, expect, it } from 'vitest';
import type { NewEventOf } from '../../../shared/schemas/event.schema.ts';
import { failIfContains, scenario } from '../support/scenario.ts';

const leaves = (s: ReturnType<typeof scenario>) =>
  s.events('action.queue.leave').map((e) => {
    const leave = e as NewEventOf<'action.queue.leave'>;
    return `#${leave.pull_request} ${leave.metadata.reason.split(':')[0]}`;
  });

describe('failures', () => {
  it('retries that recover: a failed batch is re-run before anything is isolated', () => {
    const s = scenario({ queue_rules: [{ name: 'default', max_checks_retries: 2 }] });
    s.queue(1);
    const mark = s.mark();
    s.runUntilIdle({ ci: (_numbers, attempt) => (attempt < 3 ? 'failure' : 'success') });
    expect(s.timeline({ from: mark })).toMatchInlineSnapshot(`
      "
      0s     test_branch_prepared batch-1 (attempt 1) sha=test-batch-1-1
               action.queue.checks_start #1 batch-1 [#1]
      10m    checks_reported test-batch-1-1 ci=failure
               action.queue.checks_end #1 batch-1 CHECKS_RETRIED REEMBARKED retry 1/2
               → prepare_test_branch batch-1 [#1] attempt 2
      10m    test_branch_prepared batch-1 (attempt 2) sha=test-batch-1-2
               action.queue.checks_start #1 batch-1 [#1]
      20m    checks_reported test-batch-1-2 ci=failure
               action.queue.checks_end #1 batch-1 CHECKS_RETRIED REEMBARKED retry 2/2
               → prepare_test_branch batch-1 [#1] attempt 3
      20m    test_branch_prepared batch-1 (attempt 3) sha=test-batch-1-3
               action.queue.checks_start #1 batch-1 [#1]
      30m    checks_reported test-batch-1-3 ci=success
               → merge_pr #1 (merge)
      30m    merge_completed #1 sha=main-1
               action.queue.checks_end #1 batch-1 success
               action.queue.merged #1
               action.queue.leave #1 PR_MERGED merged
               → close_draft_pr batch-1
               → verify_merge batch-1 main tested=test-batch-1-3
      30m    base_branch_moved main=main-1
      30m    base_tree_read batch-1 main=main-1 tree=tree-of-test-batch-1-3
               action.queue.merge_verified #1
      "
    `);
    const retried = s.events('action.queue.checks_end')[0] as NewEventOf<'action.queue.checks_end'>;
    expect(retried.metadata).toMatchObject({
      abort_code: 'CHECKS_RETRIED',
      retry_attempt: 1,
      max_retries: 2,
    });
  });

  it('a failed single-PR batch leaves with CHECKS_FAILED and the batches behind it are rebuilt', () => {
    const s = scenario({ merge_queue: { max_parallel_checks: 3 } });
    s.queue(1, 2, 3);
    const mark = s.mark();
    s.runUntilIdle({ ci: failIfContains(1) });
    expect(s.timeline({ from: mark })).toMatchInlineSnapshot(`
      "
      0s     test_branch_prepared batch-1 (attempt 1) sha=test-batch-1-1
               action.queue.checks_start #1 batch-1 [#1]
      0s     test_branch_prepared batch-2 (attempt 1) sha=test-batch-2-1
               action.queue.checks_start #2 batch-2 [#1,#2]
      0s     test_branch_prepared batch-3 (attempt 1) sha=test-batch-3-1
               action.queue.checks_start #3 batch-3 [#1,#2,#3]
      10m    checks_reported test-batch-1-1 ci=failure
               action.queue.checks_end #1 batch-1 CHECKS_FAILED DEFINITIVE
               action.queue.checks_end #2 batch-2 BATCH_AHEAD_FAILED REEMBARKED
               action.queue.checks_end #3 batch-3 BATCH_AHEAD_FAILED REEMBARKED
               action.queue.leave #1 CHECKS_FAILED
               → close_draft_pr batch-1
               → cancel_checks batch-2
               → close_draft_pr batch-2
               → cancel_checks batch-3
               → close_draft_pr batch-3
               → prepare_test_branch batch-4 [#2]
               → prepare_test_branch batch-5 [#2,#3]
      10m    checks_reported test-batch-2-1 ci=failure
      10m    checks_reported test-batch-3-1 ci=failure
      10m    test_branch_prepared batch-4 (attempt 1) sha=test-batch-4-1
               action.queue.checks_start #2 batch-4 [#2]
      10m    test_branch_prepared batch-5 (attempt 1) sha=test-batch-5-1
               action.queue.checks_start #3 batch-5 [#2,#3]
      20m    checks_reported test-batch-4-1 ci=success
               → merge_pr #2 (merge)
      20m    checks_reported test-batch-5-1 ci=success
      20m    merge_completed #2 sha=main-1
               action.queue.checks_end #2 batch-4 success
               action.queue.merged #2
               action.queue.leave #2 PR_MERGED merged
               → close_draft_pr batch-4
               → verify_merge batch-4 main tested=test-batch-4-1
      20m    base_branch_moved main=main-1
      20m    base_tree_read batch-4 main=main-1 tree=tree-of-test-batch-4-1
               action.queue.merge_verified #2
               → merge_pr #3 (merge)
      20m    merge_completed #3 sha=main-2
               action.queue.checks_end #3 batch-5 success
               action.queue.merged #3
               action.queue.leave #3 PR_MERGED merged
               → close_draft_pr batch-5
               → verify_merge batch-5 main tested=test-batch-5-1
      20m    base_branch_moved main=main-2
      20m    base_tree_read batch-5 main=main-2 tree=tree-of-test-batch-5-1
               action.queue.merge_verified #3
      "
    `);
    expect(leaves(s)).toEqual(['#1 CHECKS_FAILED', '#2 PR_MERGED', '#3 PR_MERGED']);
  });

  it('a batch behind that fails while the head is still running waits for the head before being judged', () => {
    const s = scenario({ merge_queue: { max_parallel_checks: 2 } });
    s.queue(1, 2);
    s.runUntilIdle({ ci: () => 'hang', until: '1m' });
    s.at('2m').ci('batch-2', 'failure');
    expect(s.status().batches.map((b) => b.status.code)).toEqual(['running', 'failed']);
    s.at('3m').ci('batch-1', 'failure');
    s.runUntilIdle({ ci: () => 'success' });
    expect(leaves(s)).toEqual(['#1 CHECKS_FAILED', '#2 PR_MERGED']);
  });

  it('two culprits in a batch of 6 are both found; the others merge', () => {
    const s = scenario({
      queue_rules: [{ name: 'default', batch_size: 6 }],
      merge_queue: { max_parallel_checks: 3 },
    });
    s.queue(1, 2, 3, 4, 5, 6);
    s.runUntilIdle({ ci: failIfContains(2, 5) });
    expect(leaves(s).sort()).toEqual(
      [
        '#1 PR_MERGED',
        '#2 CHECKS_FAILED',
        '#3 PR_MERGED',
        '#4 PR_MERGED',
        '#5 CHECKS_FAILED',
        '#6 PR_MERGED',
      ].sort(),
    );
    const ends = s.events(
      'action.queue.batch_bisection_end',
    ) as NewEventOf<'action.queue.batch_bisection_end'>[];
    expect(ends.map((e) => e.metadata.culprit_pr_numbers)).toEqual([[2], [5]]);
  });

  it('batch_max_failure_resolution_attempts: 0 drops the whole failed batch', () => {
    const s = scenario({
      queue_rules: [{ name: 'default', batch_size: 3, batch_max_failure_resolution_attempts: 0 }],
    });
    s.queue(1, 2, 3).runUntilIdle({ ci: failIfContains(2) });
    expect(leaves(s)).toEqual([
      '#1 BATCH_MAX_FAILURE_RESOLUTION_ATTEMPTS',
      '#2 BATCH_MAX_FAILURE_RESOLUTION_ATTEMPTS',
      '#3 BATCH_MAX_FAILURE_RESOLUTION_ATTEMPTS',
    ]);
  });

  it('the bisection stops at batch_max_failure_resolution_attempts rounds and says so', () => {
    const s = scenario({
      queue_rules: [{ name: 'default', batch_size: 8, batch_max_failure_resolution_attempts: 1 }],
      merge_queue: { max_parallel_checks: 2 },
    });
    s.queue(1, 2, 3, 4, 5, 6, 7, 8).runUntilIdle({ ci: failIfContains(4) });
    const end = s.events(
      'action.queue.batch_bisection_end',
    )[0] as NewEventOf<'action.queue.batch_bisection_end'>;
    expect(end.metadata).toMatchObject({ max_failure_resolution_reached: true, culprit_found: true });
    expect(end.metadata.culprit_pr_numbers).toContain(4);
    expect(leaves(s).filter((l) => l.includes('BATCH_MAX'))).toEqual(
      end.metadata.culprit_pr_numbers.map((n) => `#${n} BATCH_MAX_FAILURE_RESOLUTION_ATTEMPTS`),
    );
  });

  it('skip_intermediate_results: a later passing batch containing the PRs makes an earlier failure transient', () => {
    const s = scenario({ merge_queue: { max_parallel_checks: 2, skip_intermediate_results: true } });
    s.queue(1, 2);
    s.runUntilIdle({ ci: () => 'hang', until: '1m' });
    s.at('2m').ci('batch-1', 'failure');
    expect(s.events('action.queue.leave')).toEqual([]);
    const mark = s.mark();
    s.at('3m').ci('batch-2', 'success');
    s.runUntilIdle();
    expect(s.timeline({ from: mark })).toMatchInlineSnapshot(`
      "
      3m     checks_reported test-batch-2-1 ci=success
               → merge_pr #1 (merge)
      3m     merge_completed #1 sha=main-1
               action.queue.checks_end #1 batch-1 success
               action.queue.merged #1
               action.queue.leave #1 PR_MERGED merged
               → close_draft_pr batch-1
               → verify_merge batch-1 main tested=test-batch-1-1
      3m     base_branch_moved main=main-1
      3m     base_tree_read batch-1 main=main-1 tree=tree-of-test-batch-1-1
               action.queue.merge_verified #1
               → merge_pr #2 (merge)
      3m     merge_completed #2 sha=main-2
               action.queue.checks_end #2 batch-2 success
               action.queue.merged #2
               action.queue.leave #2 PR_MERGED merged
               → close_draft_pr batch-2
               → verify_merge batch-2 main tested=test-batch-2-1
      3m     base_branch_moved main=main-2
      3m     base_tree_read batch-2 main=main-2 tree=tree-of-test-batch-2-1
               action.queue.merge_verified #2
      "
    `);
    expect(leaves(s)).toEqual(['#1 PR_MERGED', '#2 PR_MERGED']);
  });

  it('a draft PR that cannot be created is retried with back-off, then the PR leaves', () => {
    const s = scenario();
    s.queue(1);
    s.runUntilIdle({
      prepare: (effect) => ({
        type: 'test_branch_failed',
        batchId: effect.batchId,
        attempt: effect.attempt,
        reason: 'draft_pull_request_creation_failed',
        pullRequest: null,
        message: 'GitHub answered 502',
      }),
    });
    expect(s.timeline({ from: 2 })).toMatchInlineSnapshot(`
      "
      0s     test_branch_failed batch-1 draft_pull_request_creation_failed
               action.queue.checks_not_started #1 DRAFT_PULL_REQUEST_CREATION_FAILED
      30s    tick
               → prepare_test_branch batch-1 [#1] attempt 2
      30s    test_branch_failed batch-1 draft_pull_request_creation_failed
               action.queue.checks_not_started #1 DRAFT_PULL_REQUEST_CREATION_FAILED
      1m30s  tick
               → prepare_test_branch batch-1 [#1] attempt 3
      1m30s  test_branch_failed batch-1 draft_pull_request_creation_failed
               action.queue.checks_not_started #1 DRAFT_PULL_REQUEST_CREATION_FAILED
               action.queue.leave #1 DRAFT_PULL_REQUEST_CREATION_FAILED
               → close_draft_pr batch-1
      "
    `);
  });
});
