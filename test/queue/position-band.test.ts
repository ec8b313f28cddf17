import { describe, expect, it } from 'vitest';
import { renderCheckRunTitle } from '../../app/github/render/check-run.ts';
import { createSeededIdSource } from '../../app/queue/ids.ts';
import { orderLane } from '../../app/queue/ordering.ts';
import { queuePositionBand } from '../../app/queue/position-band.ts';
import { step } from '../../app/queue/step.ts';
import { buildLargeState, LARGE_STATE_TIME, largeStateAuthor } from '../support/large-state.ts';

describe('queue positions on check runs', () => {
  it('are exact among the first ten of a lane, then by bands', () => {
    const shown = [1, 10, 11, 25, 26, 50, 51, 100, 101, 4000].map(queuePositionBand);
    expect(shown).toEqual([
      { from: 1, to: 1 },
      { from: 10, to: 10 },
      { from: 11, to: 25 },
      { from: 11, to: 25 },
      { from: 26, to: 50 },
      { from: 26, to: 50 },
      { from: 51, to: 100 },
      { from: 51, to: 100 },
      { from: 101, to: null },
      { from: 101, to: null },
    ]);
  });

  it('a pull request leaving deep in a lane republishes a few check runs, not every one behind it', () => {
    // 60 queued in each of 10 partitions: 20 embarked and 40 waiting in each lane.
    const state = buildLargeState(600);
    const lane = state.lanes.find((l) => l.partition === 'part-0')!;
    const order = orderLane(state, lane);
    expect(order).toHaveLength(60);
    const leaving = order[20]!;
    const { effects, state: after } = step(
      state,
      {
        type: 'command_received',
        number: leaving,
        command: 'dequeue',
        queueName: null,
        author: largeStateAuthor,
        commentId: 9_999,
        authorized: true,
      },
      { now: LARGE_STATE_TIME, ids: createSeededIdSource(1) },
    );
    const republished = effects.flatMap((e) => (e.type === 'publish_check_run' ? [e] : []));
    // Everyone behind moved up by one (39 pull requests); only band boundaries change a title:
    // position 26 → 25 and 51 → 50, and the leaving one's own check run.
    const behind = order.slice(21).map(String);
    const titles = republished
      .filter((e) => behind.includes(String(e.number)))
      .map((e) => renderCheckRunTitle(e.details));
    expect(titles).toEqual([
      'Waiting in queue default at position 11–25',
      'Waiting in queue default at position 26–50',
    ]);
    expect(orderLane(after, after.lanes.find((l) => l.partition === 'part-0')!)).toHaveLength(59);
  });
});
