import { describe, expect, it } from 'vitest';
import { scenario } from '../support/scenario.ts';

/*
 * Two pull requests in the same two partitions must be in the same order in both lanes: each
 * merges only after the pull requests before it in each of its partitions (app/queue/merge.ts).
 * A waiting pull request lets one behind it go first when that one is already in line in their
 * other partition (app/queue/embark.ts, findBehindElsewhere).
 */

const hotfix = [{ id: 3, name: 'hotfix', color: 'ff0000', default: false }];

describe('cross-partition order', () => {
  it('a hotfix does not go before a pull request already tested in their other partition', () => {
    const s = scenario({
      queue_rules: [{ name: 'default', batch_size: 1, batch_max_wait_time: '0s' }],
      priority_rules: [
        { name: 'hotfix', conditions: ['label=hotfix'], priority: 'high', allow_checks_interruption: false },
      ],
      partition_rules: [
        { name: 'web', conditions: ['files~=^web/'] },
        { name: 'api', conditions: ['files~=^api/'] },
      ],
      merge_queue: { max_parallel_checks: 1 },
    });
    s.open(1, { files: ['web/a.ts'] });
    s.open(3, { files: ['web/c.ts', 'api/c.ts'] });
    // #1 is tested in web; #3 waits behind it there but is tested at once in api.
    s.at('0s').queue(1, 3);
    s.runUntilIdle({ until: '1m' });
    // The hotfix is in both partitions: in api it waits behind #3 (no interruption); in web it is
    // first in line once #1 has merged — but #3, already tested in api, must go first there too.
    s.at('2m')
      .open(4, { files: ['web/d.ts', 'api/d.ts'], labels: hotfix })
      .queue(4);
    s.runUntilIdle({ until: '6h' });
    expect(s.events('action.queue.merged').map((e) => e.pull_request)).toEqual([1, 3, 4]);
    expect(s.status().waiting_pull_requests).toEqual([]);
  });
});

describe('max_batches_in_line', () => {
  it('bounds the batches a lane stacks behind a passed batch waiting for another partition', () => {
    const s = scenario({
      queue_rules: [{ name: 'default', batch_size: 1, batch_max_wait_time: '0s' }],
      partition_rules: [
        { name: 'web', conditions: ['files~=^web/'] },
        { name: 'api', conditions: ['files~=^api/'] },
      ],
      merge_queue: { max_parallel_checks: 2, max_batches_in_line: 3 },
    });
    s.open(1, { files: ['api/a.ts'] });
    s.open(2, { files: ['web/b.ts', 'api/b.ts'] });
    for (const n of [3, 4, 5, 6]) s.open(n, { files: [`web/${n}.ts`] });
    s.at('0s').queue(1, 2, 3, 4, 5, 6);
    // #1's checks never end: #2 passes in web but cannot merge before #1 in api.
    s.runUntilIdle({ ci: (numbers) => (numbers.includes(1) ? 'hang' : 'success'), until: '50m' });
    const started = (n: number) => s.events('action.queue.checks_start').some((e) => e.pull_request === n);
    expect(s.events('action.queue.merged').map((e) => e.pull_request)).toEqual([]);
    // In web: #2 (passed, waiting), #3 and #4 on top of it; #5 and #6 wait.
    expect([2, 3, 4, 5, 6].map(started)).toEqual([true, true, true, false, false]);
  });
});
