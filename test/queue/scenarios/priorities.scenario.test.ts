import { describe, expect, it } from 'vitest';
import { scenario } from '../support/scenario.ts';

const hotfix = [{ id: 3, name: 'hotfix', color: 'ff0000', default: false }];

describe('priorities', () => {
  it('a hotfix interrupts running checks of lower priority and is tested first', () => {
    const s = scenario({
      priority_rules: [
        { name: 'hotfix', conditions: ['label=hotfix'], priority: 'high', allow_checks_interruption: true },
      ],
      merge_queue: { max_parallel_checks: 2 },
    });
    s.queue(1, 2, 3);
    s.runUntilIdle({ ci: () => 'hang', until: '1m' });
    const mark = s.mark();
    s.at('2m').open(9, { labels: hotfix }).command(9, 'queue');
    expect(s.timeline({ from: mark })).toMatchInlineSnapshot(`
      "
      2m     pull_request_updated #9 head=pr-9-head
      2m     command queue #9
               command.queue #9
               action.queue.enter #9
               action.queue.checks_end #1 batch-1 PR_WITH_HIGHER_PRIORITY_QUEUED REEMBARKED
               action.queue.checks_end #2 batch-2 PR_WITH_HIGHER_PRIORITY_QUEUED REEMBARKED
               → react +1
               → cancel_checks batch-1
               → close_draft_pr batch-1
               → cancel_checks batch-2
               → close_draft_pr batch-2
               → prepare_test_branch batch-3 [#9]
               → prepare_test_branch batch-4 [#9,#1]
      "
    `);
    s.runUntilIdle();
    expect(s.events('action.queue.merged').map((e) => e.pull_request)).toEqual([9, 1, 2, 3]);
  });

  it('without allow_checks_interruption a higher priority waits behind the running batches', () => {
    const s = scenario({
      priority_rules: [
        { name: 'hotfix', conditions: ['label=hotfix'], priority: 'high', allow_checks_interruption: false },
      ],
      merge_queue: { max_parallel_checks: 2 },
    });
    s.queue(1, 2, 3);
    s.runUntilIdle({ ci: () => 'hang', until: '1m' });
    s.at('2m').open(9, { labels: hotfix }).command(9, 'queue');
    expect(s.events('action.queue.checks_end')).toEqual([]);
    expect(s.status().waiting_pull_requests.map((p) => p.number)).toEqual([9, 3]);
    s.at('10m').ci('batch-1', 'success').ci('batch-2', 'success');
    s.runUntilIdle();
    expect(s.events('action.queue.merged').map((e) => e.pull_request)).toEqual([1, 2, 9, 3]);
  });
});
