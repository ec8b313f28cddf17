import { describe, expect, it } from 'vitest';
import { scenario } from '../support/scenario.ts';

describe('the life of a pull request', () => {
  it('a queued pull request is tested on a draft PR and merged when its checks pass', () => {
    const s = scenario();
    s.at('0s').queue(1);
    s.runUntilIdle();
    expect(s.timeline()).toMatchInlineSnapshot(`
      "
      0s     pull_request_updated #1 head=pr-1-head
      0s     command queue #1
               command.queue #1
               action.queue.enter #1
               → react +1
               → prepare_test_branch batch-1 [#1]
      0s     test_branch_prepared batch-1 (attempt 1) sha=test-batch-1-1
               action.queue.checks_start #1 batch-1 [#1]
      10m    checks_reported test-batch-1-1 ci=success
               → merge_pr #1 (merge)
      10m    merge_completed #1 sha=main-1
               action.queue.checks_end #1 batch-1 success
               action.queue.merged #1
               action.queue.leave #1 PR_MERGED merged
      10m    base_branch_moved main=main-1
      "
    `);
  });
});
