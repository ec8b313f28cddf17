import { describe, expect, it } from 'vitest';
import { scenario } from '../support/scenario.ts';

/*
 * A pull request in several partitions merges only after the pull requests before it in each of
 * them (app/queue/merge.ts). Two pull requests never share two partitions here, so the pairwise
 * rule (findBehindElsewhere) does not apply, yet three lanes can wait on each other in a ring:
 * each lane's passed head needs a pull request that waits behind another lane's head. The lane
 * whose order goes against the queue order is rebuilt (app/queue/cross-partition.ts,
 * planBreakWaitCycles); left alone, such a ring stalls every lane in it.
 */

const hotfix = [{ id: 3, name: 'hotfix', color: 'ff0000', default: false }];

describe('cross-partition wait cycle', () => {
  it('three lanes waiting on each other in a ring: the lane out of queue order is rebuilt', () => {
    const s = scenario({
      queue_rules: [{ name: 'default', batch_size: 1, batch_max_wait_time: '0s' }],
      priority_rules: [
        { name: 'hotfix', conditions: ['label=hotfix'], priority: 'high', allow_checks_interruption: false },
      ],
      partition_rules: [
        { name: 'web', conditions: ['files~=^web/'] },
        { name: 'api', conditions: ['files~=^api/'] },
        { name: 'docs', conditions: ['files~=^docs/'] },
      ],
      merge_queue: { max_parallel_checks: 1, max_batches_in_line: 3 },
    });
    s.open(1, { files: ['web/a.ts'] });
    s.open(2, { files: ['web/b.ts', 'docs/b.md'] });
    s.open(3, { files: ['api/c.ts', 'docs/c.md'] });
    s.open(4, { files: ['web/d.ts', 'api/d.ts'], labels: hotfix });
    // web tests #1; #2 waits there but is tested at once in docs, #3 at once in api.
    s.at('0s').queue(1);
    s.runUntilIdle({ until: '1m' });
    s.at('1m').queue(2, 3);
    s.runUntilIdle({ until: '2m' });
    // The hotfix goes before #2 in web (#1 is not interrupted), but waits behind #3 in api.
    // web waits for api (#3 first), api for docs (#2 first), docs for web (#4 first).
    s.at('2m').queue(4);
    s.runUntilIdle({ until: '12h' });
    expect(s.events('action.queue.merged').map((e) => e.pull_request)).toEqual([1, 4, 2, 3]);
    expect(s.status().waiting_pull_requests).toEqual([]);
    expect(
      s
        .events('action.queue.checks_end')
        .some((e) => JSON.stringify(e).includes('api and web waited on each other: #4 goes before #3')),
    ).toBe(true);
  });
});
