import { describe, expect, it } from 'vitest';
import type { NewEventOf } from '../../../shared/schemas/event.schema.ts';
import { scenario } from '../support/scenario.ts';

const key = { type: 'application' as const, id: '6f1c2a4e-1111-4222-8333-944445555666', name: 'oncall' };

describe('dequeue_requested (POST …/merge-queue/pull/{pr_number}/dequeue)', () => {
  it('the pull request leaves as with @trainyard dequeue; the batches behind are rebuilt and merge', () => {
    const s = scenario({ merge_queue: { max_parallel_checks: 3 } });
    s.queue(1, 2, 3);
    s.runUntilIdle({ until: '2m' });
    s.send({ type: 'dequeue_requested', number: 2, by: key });
    const leave = s.events('action.queue.leave')[0] as NewEventOf<'action.queue.leave'>;
    expect(leave).toMatchObject({
      pull_request: 2,
      metadata: { reason: 'PR_MANUALLY_DEQUEUED: dequeued by key "oncall" through the API', merged: false },
    });
    const aborted = (s.events('action.queue.checks_end') as NewEventOf<'action.queue.checks_end'>[]).map(
      (e) => [e.pull_request, e.metadata.abort_code, e.metadata.abort_status],
    );
    expect(aborted).toEqual([
      [2, 'PR_MANUALLY_DEQUEUED', 'DEFINITIVE'],
      [3, 'PR_AHEAD_DEQUEUED', 'REEMBARKED'],
    ]);
    s.runUntilIdle();
    expect(s.events('action.queue.merged').map((e) => e.pull_request)).toEqual([1, 3]);
    // Its check run is completed as cancelled, as for a dequeue by command.
    expect(
      s
        .effects('publish_check_run')
        .filter((e) => e.number === 2)
        .at(-1),
    ).toMatchObject({
      status: 'completed',
      conclusion: 'cancelled',
    });
  });

  it('names a user as @login, and does nothing for a pull request that is not queued', () => {
    const s = scenario();
    s.queue(1);
    s.send({ type: 'dequeue_requested', number: 7, by: { type: 'user', id: 5, name: 'octocat' } });
    s.expectNoEffects();
    s.send({ type: 'dequeue_requested', number: 1, by: { type: 'user', id: 5, name: 'octocat' } });
    expect(s.events('action.queue.leave')[0]?.metadata).toMatchObject({
      reason: 'PR_MANUALLY_DEQUEUED: dequeued by @octocat through the API',
    });
  });
});
