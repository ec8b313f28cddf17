import { describe, expect, it } from 'vitest';
import type { NewEventOf } from '../../../shared/schemas/event.schema.ts';
import { checkEmbarkOrder } from '../support/invariants.ts';
import { scenario } from '../support/scenario.ts';

/*
 * A freeze holding #6 (web and api) lets #1 overtake it in api and #3 in web. If nothing were
 * rebuilt when the freeze ends, #3 would stay in line before #6 in web, and api would then embark
 * #3 before #6 too (two pull requests in the same partitions keep one order in both,
 * app/queue/cross-partition.ts), breaking invariant 4. The end of the freeze rebuilds the
 * batches that overtook #6, so it gets its place back in both lanes.
 */

const frozen = [{ id: 3, name: 'frozen', color: '0000ff', default: false }];
const ops = { type: 'user' as const, id: 7, name: 'ops' };

describe('the end of a freeze, pull requests in several partitions', () => {
  it('rebuilds the batches that overtook the frozen pull request, in every one of its lanes', () => {
    const s = scenario({
      queue_rules: [{ name: 'default', batch_size: 1, batch_max_wait_time: '0s' }],
      partition_rules: [
        { name: 'web', conditions: ['files~=^web/'] },
        { name: 'api', conditions: ['files~=^api/'] },
      ],
      merge_queue: { max_parallel_checks: 1 },
    });
    s.open(6, { files: ['web/a.ts', 'api/b.ts'], labels: frozen }).command(6, 'queue');
    s.runUntilIdle({ until: '1m' });
    s.at('1m');
    s.open(1, { files: ['api/y.ts'] }).command(1, 'queue');
    s.open(3, { files: ['web/c.ts', 'api/c.ts'] }).command(3, 'queue');
    // 09:02: a freeze holding #6 starts: #1 goes first in api, #3 in web. It ends at 09:07.
    s.at('2m').send({
      type: 'freeze_saved',
      freeze: {
        id: 'release',
        reason: 'Release',
        start: '2026-11-02T09:02:00Z',
        end: '2026-11-02T09:07:00Z',
        timezone: 'UTC',
        matchingConditions: ['label=frozen'],
        excludeConditions: [],
      },
      by: ops,
    });
    s.runUntilIdle();
    const rebuilt = (s.events('action.queue.checks_end') as NewEventOf<'action.queue.checks_end'>[])
      .filter((e) => e.metadata.abort_code === 'SCHEDULED_FREEZE_STATUS_CHANGED')
      .map((e) => [e.pull_request, e.received_at]);
    expect(rebuilt).toEqual([
      [6, '2026-11-02T09:02:00.000Z'],
      [6, '2026-11-02T09:02:00.000Z'],
      [3, '2026-11-02T09:07:00.000Z'],
      [1, '2026-11-02T09:07:00.000Z'],
    ]);
    expect(checkEmbarkOrder(s.log)).toEqual([]);
    expect(s.events('action.queue.merged').map((e) => e.pull_request)).toEqual([6, 1, 3]);
  });
});
