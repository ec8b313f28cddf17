import { describe, expect, it } from 'vitest';
import type { NewEventOf } from '../../../shared/schemas/event.schema.ts';
import { failIfContains, scenario } from '../support/scenario.ts';

/*
 * merge_queue.bisect_aside_probes: 1 (app/queue/bisection.ts): a bisection aside searches by
 * halves, one probe a round, also when the batch holds a pull request of several partitions.
 */

type BisectionStart = NewEventOf<'action.queue.batch_bisection_start'>;
const rounds = (s: ReturnType<typeof scenario>) =>
  s
    .events('action.queue.batch_bisection_start')
    .map((e) => (e as BisectionStart).metadata.number_of_sub_batches);
const culprits = (s: ReturnType<typeof scenario>) =>
  s
    .events('action.queue.batch_bisection_end')
    .flatMap((e) => (e as NewEventOf<'action.queue.batch_bisection_end'>).metadata.culprit_pr_numbers);
const merged = (s: ReturnType<typeof scenario>) => s.events('action.queue.merged').map((e) => e.pull_request);
const probeStarts = (s: ReturnType<typeof scenario>) =>
  s.events('action.queue.checks_start').filter((e) => e.pull_request === 1).length;

describe('bisect aside with one probe a round', () => {
  const config = (probes: 1 | 2) => ({
    queue_rules: [{ name: 'default', batch_size: 8, batch_max_wait_time: '1m' }],
    merge_queue: { max_parallel_checks: 2, bisect_aside: true, bisect_aside_probes: probes },
  });

  it('finds the culprit by halves, with fewer probes than by thirds', () => {
    const halves = scenario(config(1));
    halves.at('0s').queue(1, 2, 3, 4, 5, 6, 7, 8);
    halves.runUntilIdle({ ci: failIfContains(3) });
    expect(culprits(halves)).toEqual([3]);
    expect(merged(halves)).toEqual([1, 2, 4, 5, 6, 7, 8]);
    // [1..4] fails, [1,2] passes, [1..3] fails: #3; then [1,2,4..8] passes.
    expect(rounds(halves)).toEqual([1, 1, 1, 1]);

    const thirds = scenario(config(2));
    thirds.at('0s').queue(1, 2, 3, 4, 5, 6, 7, 8);
    thirds.runUntilIdle({ ci: failIfContains(3) });
    expect(culprits(thirds)).toEqual([3]);
    expect(merged(thirds)).toEqual([1, 2, 4, 5, 6, 7, 8]);
    expect(rounds(thirds).every((n) => n === 2)).toBe(true);
    expect(probeStarts(halves)).toBeLessThan(probeStarts(thirds));
  });

  it('also probes once a round for a batch holding a pull request of several partitions', () => {
    const s = scenario({
      ...config(1),
      partition_rules: [
        { name: 'web', conditions: ['files~=^web/'] },
        { name: 'api', conditions: ['files~=^api/'] },
      ],
    });
    for (const n of [1, 3, 4, 5, 6, 7, 8]) s.open(n, { files: [`web/${n}.ts`] });
    s.open(2, { files: ['web/2.ts', 'api/2.ts'] });
    s.at('0s').queue(1, 2, 3, 4, 5, 6, 7, 8);
    s.runUntilIdle({ ci: failIfContains(5) });
    expect(culprits(s)).toEqual([5]);
    expect(rounds(s).every((n) => n === 1)).toBe(true);
  });
});
