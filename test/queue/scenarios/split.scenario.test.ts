import { describe, expect, it } from 'vitest';
import { computeSplitGroups } from '../../../app/queue/split.ts';
import { type CiOracle, failIfContains, scenario } from '../support/scenario.ts';

/*
 * merge_queue.bisect_aside_split (app/queue/split.ts): a failed batch aside splits at once into
 * groups tested on the base alone; a failing group of several splits into singles.
 */
const config = (split: number, size = 4) => ({
  queue_rules: [{ name: 'default', batch_size: size, batch_max_wait_time: '5m', checks_timeout: null }],
  merge_queue: { max_parallel_checks: 2, bisect_aside: true, bisect_aside_split: split },
});

/** The pull requests of each test branch asked for, in order. */
const branches = (s: ReturnType<typeof scenario>) =>
  s.effects('prepare_test_branch').map((e) => e.pullRequests.map((p) => p.number));

describe('bisect_aside_split — a failed batch splits into groups tested side by side', () => {
  it('groups: at most `split` of them in queue order; a failed group splits into singles', () => {
    expect(computeSplitGroups([1, 2, 3, 4], 4, false)).toEqual([[1], [2], [3], [4]]);
    expect(computeSplitGroups([1, 2, 3, 4, 5, 6, 7, 8], 4, false)).toEqual([
      [1, 2],
      [3, 4],
      [5, 6],
      [7, 8],
    ]);
    expect(computeSplitGroups([1, 2, 3, 4, 5], 2, false)).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
    expect(computeSplitGroups([5, 6], 4, true)).toEqual([[5], [6]]);
  });

  it('one round finds a culprit among four: each is tested alone on the base, at once', () => {
    const s = scenario(config(4)).queue(1, 2, 3, 4);
    s.runUntilIdle({ ci: failIfContains(3) });
    // The batch, then four groups of one on the base alone (no parents), then the innocents again.
    expect(branches(s).slice(0, 5)).toEqual([[1, 2, 3, 4], [1], [2], [3], [4]]);
    const left = s
      .events('action.queue.leave')
      .filter((e) => e.type === 'action.queue.leave' && e.metadata.reason.startsWith('CHECKS_FAILED'));
    expect(left.map((e) => e.pull_request)).toEqual([3]);
    expect(s.events('action.queue.merged').map((e) => e.pull_request)).toEqual([1, 2, 4]);
    // One round: 1 batch, 4 groups, and the innocents' runs in line; no other probe.
    expect(
      branches(s)
        .slice(5)
        .every((b) => !b.includes(3)),
    ).toBe(true);
  });

  it('a culprit in a group of several takes a second round, of singles; the passing groups are cleared after one', () => {
    const s = scenario(config(4, 8)).queue(1, 2, 3, 4, 5, 6, 7, 8);
    s.runUntilIdle({ ci: failIfContains(6) });
    expect(branches(s).slice(0, 5)).toEqual([
      [1, 2, 3, 4, 5, 6, 7, 8],
      [1, 2],
      [3, 4],
      [5, 6],
      [7, 8],
    ]);
    // [5, 6] failed and splits into singles; no other group does.
    const singles = branches(s).filter((b) => b.length === 1);
    expect(singles).toEqual([[5], [6]]);
    const left = s
      .events('action.queue.leave')
      .filter((e) => e.type === 'action.queue.leave' && e.metadata.reason.startsWith('CHECKS_FAILED'));
    expect(left.map((e) => e.pull_request)).toEqual([6]);
    const merged = s.events('action.queue.merged').map((e) => e.pull_request ?? 0);
    expect(merged.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 7, 8]);
  });

  it('a split round is logged as a bisection: its start, and its end with the culprits once every group is done', () => {
    const s = scenario(config(2, 8)).queue(1, 2, 3, 4, 5, 6, 7, 8);
    s.runUntilIdle({ ci: failIfContains(6) });
    const starts = s
      .events('action.queue.batch_bisection_start')
      .map((e) =>
        e.type === 'action.queue.batch_bisection_start'
          ? [e.metadata.bisection_depth, e.metadata.number_of_sub_batches, e.metadata.batch_size_before_split]
          : null,
      );
    // [1–8] into two groups of 4; [5–8] failed: into singles (4 > split would halve again).
    expect(starts).toEqual([
      [1, 2, 8],
      [2, 2, 4],
      [3, 2, 2],
    ]);
    const ends = s
      .events('action.queue.batch_bisection_end')
      .map((e) =>
        e.type === 'action.queue.batch_bisection_end'
          ? [
              e.metadata.original_batch_pr_numbers,
              e.metadata.culprit_pr_numbers,
              e.metadata.remaining_pr_numbers,
            ]
          : null,
      );
    expect(ends).toEqual([
      [[1, 2, 3, 4, 5, 6, 7, 8], [], [1, 2, 3, 4, 5, 6, 7, 8]],
      [[5, 6, 7, 8], [], [5, 6, 7, 8]],
      [[5, 6], [6], [5]],
    ]);
  });

  it('a flake: every group passes, nobody leaves, all merge', () => {
    let first = true;
    const flakyOnce: CiOracle = (numbers) => {
      if (numbers.length === 4 && first) {
        first = false;
        return 'failure';
      }
      return 'success';
    };
    const s = scenario(config(2)).queue(1, 2, 3, 4);
    s.runUntilIdle({ ci: flakyOnce });
    expect(branches(s).slice(0, 3)).toEqual([
      [1, 2, 3, 4],
      [1, 2],
      [3, 4],
    ]);
    expect(
      s
        .events('action.queue.leave')
        .filter((e) => e.type === 'action.queue.leave' && e.metadata.reason.startsWith('CHECKS_FAILED')),
    ).toEqual([]);
    const merged = s.events('action.queue.merged').map((e) => e.pull_request ?? 0);
    expect(merged.sort((a, b) => a - b)).toEqual([1, 2, 3, 4]);
  });

  it('says why: the groups’ checks_start and the pull request’s reason name the failed batch', () => {
    const s = scenario(config(2)).queue(1, 2, 3, 4);
    s.runUntilIdle({ ci: (numbers) => (numbers.length === 4 ? 'failure' : 'hang'), until: '1h' });
    const reasons = s
      .events('action.queue.checks_start')
      .map((e) => e.type === 'action.queue.checks_start' && e.metadata.start_reason);
    expect(reasons).toContain(
      'batch-2 started; split from batch-1, which failed: tested on main alone beside the line to clear or find the failing pull request',
    );
    const pr = s
      .status()
      .batches.flatMap((b) => b.pull_requests)
      .find((p) => p.number === 3);
    expect(pr?.reasons?.[0]).toMatchObject({
      code: 'bisecting',
      message:
        'batch-1 failed; this pull request is tested again on main alone with #4 (batch-3) to clear it or find the failing one',
    });
  });

  it('a pull request leaving one group does not abort the groups listed after it', () => {
    // batch-1 [1, 2] fails and splits into [1] and [2]; then batch-2 [3, 4] fails into [3] and [4].
    const pairsFail = (numbers: number[]) => (numbers.length === 2 ? 'failure' : 'hang');
    const s = scenario(config(2, 2)).queue(1, 2);
    s.runUntilIdle({ ci: pairsFail, until: '15m' });
    s.queue(3, 4).runUntilIdle({ ci: pairsFail, until: '30m' });
    const groups = () => s.status().batches.map((b) => b.pull_requests.map((p) => p.number));
    expect(groups()).toEqual([[1], [2], [3], [4]]);
    // #1 leaves: its group ends, and no other (they are built on the base alone).
    s.command(1, 'dequeue').runUntilIdle({ ci: () => 'hang', until: '31m' });
    expect(groups()).toEqual([[2], [3], [4]]);
  });

  it('a failure in the line does not abort the groups: they are built on the base alone', () => {
    const s = scenario(config(2)).queue(1, 2, 3, 4);
    // batch-1 fails; its groups hang; the line goes on with 5–8, which fails too.
    s.runUntilIdle({
      ci: (numbers) => (numbers.length === 4 && numbers[0] === 1 ? 'failure' : 'hang'),
      until: '1h',
    });
    s.queue(5, 6, 7, 8);
    s.runUntilIdle({ ci: (numbers) => (numbers.includes(5) ? 'failure' : 'hang'), until: '2h' });
    // batch-1's groups are still under test, untouched by the failure of the line.
    const groupsOfBatch1 = s.status().batches.filter((b) => b.pull_requests.some((p) => p.number <= 4));
    expect(groupsOfBatch1.map((b) => b.pull_requests.map((p) => p.number))).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(s.events('action.queue.checks_end').filter((e) => (e.pull_request ?? 0) <= 4)).toHaveLength(4);
  });
});
