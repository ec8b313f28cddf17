import { describe, expect, it } from 'vitest';
import { randomOracle, run } from '../support/random-run.ts';

describe('pull requests in several partitions', () => {
  // #3 waits for #1 (conflict) in one lane: if #6 overtook it there but not in the other lane, the
  // two lanes would wait for each other forever.
  it('keep one order in every partition they share, so a held PR is not overtaken and nothing deadlocks', () => {
    const s = run(
      {
        queue_rules: [
          {
            name: 'default',
            batch_size: { min: 1, max: 1 },
            batch_max_wait_time: '0s',
            checks_timeout: '30m',
          },
        ],
        partition_rules: [
          { name: 'web', conditions: ['files~=^web/'] },
          { name: 'api', conditions: ['files~=^api/'] },
        ],
        merge_queue: { max_parallel_checks: 3 },
      },
      [
        { kind: 'queue', pr: 1 },
        { kind: 'queue', pr: 3 },
        { kind: 'queue', pr: 4 },
        { kind: 'queue', pr: 5 },
        { kind: 'queue', pr: 8 },
        { kind: 'wait', minutes: 1 },
        { kind: 'pause' },
        { kind: 'queue', pr: 6 },
        { kind: 'label', pr: 1 },
      ],
      randomOracle(-25, []),
      -25,
    );
    expect(Object.keys(s.state.sessions)).toEqual([]);
    const merged = s.events('action.queue.merged').map((e) => e.pull_request);
    expect(merged.indexOf(3)).toBeLessThan(merged.indexOf(6));
  });

  // #9 is held for a conflict with #3; #3 times out and is queued again behind #9. A hold still
  // pointing at a PR behind it would leave both waiting.
  it('a PR held for a conflict stops waiting when that PR leaves and is queued again behind it', () => {
    const s = run(
      {
        queue_rules: [
          {
            name: 'default',
            batch_size: { min: 1, max: 1 },
            batch_max_wait_time: '0s',
            checks_timeout: '30m',
          },
        ],
        partition_rules: [
          { name: 'web', conditions: ['files~=^web/'] },
          { name: 'api', conditions: ['files~=^api/'] },
        ],
        merge_queue: { max_parallel_checks: 2 },
      },
      [
        { kind: 'queue', pr: 3 },
        { kind: 'wait', minutes: 28 },
        { kind: 'queue', pr: 9 },
        { kind: 'queue', pr: 3 },
        { kind: 'unpause' },
        { kind: 'queue', pr: 1 },
        { kind: 'push', pr: 1 },
        { kind: 'pause' },
      ],
      randomOracle(-434973446, []),
      -434973446,
    );
    expect(Object.keys(s.state.sessions)).toEqual([]);
  });
});
