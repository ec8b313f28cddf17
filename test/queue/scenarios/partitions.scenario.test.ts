import { describe, expect, it } from 'vitest';
import { scenario } from '../support/scenario.ts';

const config = {
  partition_rules: [
    { name: 'web', conditions: ['files~=^web/'] },
    { name: 'api', conditions: ['files~=^api/'] },
  ],
  merge_queue: { max_parallel_checks: 1 },
};

describe('partitions', () => {
  it('partitions are independent lanes, each with its own batches', () => {
    const s = scenario(config);
    s.open(1, { files: ['web/a.ts'] }).command(1, 'queue');
    s.open(2, { files: ['api/b.ts'] }).command(2, 'queue');
    const status = s.status();
    expect(Object.keys(status.scope_queues).sort()).toEqual(['api', 'web']);
    expect(status.batches.map((b) => [b.scopes, b.pull_requests.map((p) => p.number)])).toEqual([
      [['api'], [2]],
      [['web'], [1]],
    ]);
  });

  it('a PR in two partitions merges only when validated in both', () => {
    const s = scenario(config);
    s.open(1, { files: ['web/a.ts'] }).command(1, 'queue');
    s.open(2, { files: ['api/b.ts'] }).command(2, 'queue');
    s.open(3, { files: ['web/c.ts', 'api/c.ts'] }).command(3, 'queue');
    s.runUntilIdle({ ci: () => 'hang', until: '1m' });
    s.at('5m').ci('batch-2', 'success');
    s.runUntilIdle({ ci: () => 'hang', until: '6m' });
    const mark = s.mark();
    // batch-3 is #3 in api: it passes, but #3 is not validated in web yet.
    s.at('7m').ci('batch-3', 'success');
    expect(s.effects('merge_pr').map((e) => e.type === 'merge_pr' && e.number)).toEqual([2]);
    s.at('8m').ci('batch-1', 'success');
    s.runUntilIdle({ ci: () => 'hang', until: '9m' });
    s.at('10m').ci('batch-4', 'success');
    s.runUntilIdle();
    expect(s.timeline({ from: mark })).toMatchInlineSnapshot(`
      "
      7m     checks_reported test-batch-3-1 ci=success
      8m     checks_reported pr-1-updated-1 ci=success
               → merge_pr #1 (merge)
               → prepare_test_branch batch-4 [#1,#3]
      8m     merge_completed #1 sha=main-2
               action.queue.checks_end #1 batch-1 success
               action.queue.merged #1
               action.queue.leave #1 PR_MERGED merged
      8m     base_branch_moved main=main-2
      8m     test_branch_prepared batch-4 (attempt 1) sha=test-batch-4-1
               action.queue.checks_start #3 batch-4 [#1,#3]
      10m    checks_reported test-batch-4-1 ci=success
               → merge_pr #3 (merge)
      10m    merge_completed #3 sha=main-3
               action.queue.checks_end #3 batch-4 success
               action.queue.checks_end #3 batch-3 success
               action.queue.merged #3
               action.queue.leave #3 PR_MERGED merged
               → close_draft_pr batch-4
               → close_draft_pr batch-3
      10m    base_branch_moved main=main-3
      "
    `);
    expect(s.events('action.queue.merged').map((e) => e.pull_request)).toEqual([2, 1, 3]);
    expect(s.events('action.queue.leave').filter((e) => e.pull_request === 3)).toHaveLength(1);
  });
});
