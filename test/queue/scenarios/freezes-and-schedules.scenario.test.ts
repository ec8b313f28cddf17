import { describe, expect, it } from 'vitest';
import type { Freeze } from '../../../app/queue/inputs.ts';
import type { NewEventOf } from '../../../shared/schemas/event.schema.ts';
import { scenario } from '../support/scenario.ts';

const ops = { type: 'user' as const, id: 7, name: 'ops' };
const freeze = (overrides: Partial<Freeze> = {}): Freeze => ({
  id: 'release',
  reason: 'Release week',
  start: '2026-11-02T09:05:00Z',
  end: '2026-11-02T10:00:00Z',
  timezone: 'Europe/Paris',
  matchingConditions: [],
  excludeConditions: ['label=hotfix'],
  ...overrides,
});

const checksEnds = (s: ReturnType<typeof scenario>) =>
  s.events('action.queue.checks_end') as NewEventOf<'action.queue.checks_end'>[];

const leaveOf = (s: ReturnType<typeof scenario>, number: number) =>
  s.events('action.queue.leave').find((e) => e.pull_request === number) as
    | NewEventOf<'action.queue.leave'>
    | undefined;

describe('scheduled freezes and schedules', () => {
  it('creating, updating and deleting a freeze emit the scheduled_freeze events', () => {
    const s = scenario();
    s.send({ type: 'freeze_saved', freeze: freeze(), by: ops });
    s.send({ type: 'freeze_saved', freeze: freeze({ reason: 'Release week (extended)' }), by: ops });
    s.send({ type: 'freeze_deleted', id: 'release', reason: 'shipped', by: ops });
    expect(s.events().map((e) => e.type)).toEqual([
      'scheduled_freeze.create',
      'scheduled_freeze.update',
      'scheduled_freeze.delete',
    ]);
  });

  it('a freeze input forgets the freezes that have ended (they hold nothing any more)', () => {
    const s = scenario();
    s.send({ type: 'freeze_saved', freeze: freeze({ id: 'short', end: '2026-11-02T09:30:00Z' }), by: ops });
    s.at('1h');
    s.send({
      type: 'freeze_saved',
      freeze: freeze({ id: 'later', start: '2026-11-02T12:00:00Z', end: null }),
      by: ops,
    });
    expect(s.state.freezes.map((f) => f.freeze.id)).toEqual(['later']);
    s.send({ type: 'freeze_deleted', id: 'later', reason: 'cancelled', by: ops });
    expect(s.state.freezes).toEqual([]);
    expect(s.events().map((e) => e.type)).toEqual([
      'scheduled_freeze.create',
      'scheduled_freeze.create',
      'scheduled_freeze.delete',
    ]);
  });

  it('freeze holding merges while checks run: the batch passes, waits for the end of the freeze, then merges', () => {
    const s = scenario();
    s.send({ type: 'freeze_saved', freeze: freeze(), by: ops });
    s.queue(1);
    s.runUntilIdle({ until: '30m' });
    expect(s.effects('merge_pr')).toEqual([]);
    expect(s.status().batches.map((b) => [b.status.code, b.estimated_merge_at])).toEqual([['frozen', null]]);
    const mark = s.mark();
    s.runUntilIdle();
    expect(s.timeline({ from: mark })).toMatchInlineSnapshot(`
      "
      1h     tick
               → merge_pr #1 (merge)
      1h     merge_completed #1 sha=main-1
               action.queue.checks_end #1 batch-1 success
               action.queue.merged #1
               action.queue.leave #1 PR_MERGED merged
               → close_draft_pr batch-1
               → verify_merge batch-1 main tested=test-batch-1-1
      1h     base_branch_moved main=main-1
      1h     base_tree_read batch-1 main=main-1 tree=tree-of-test-batch-1-1
               action.queue.merge_verified #1
      "
    `);
    expect(leaveOf(s, 1)?.metadata.seconds_waiting_for_freeze).toBe(55 * 60);
  });

  it('pull requests excluded from a freeze merge through it', () => {
    const s = scenario();
    s.send({ type: 'freeze_saved', freeze: freeze({ start: '2026-11-02T09:00:00Z' }), by: ops });
    s.open(1, { labels: [{ id: 1, name: 'hotfix', color: 'ff0000', default: false }] }).command(1, 'queue');
    s.runUntilIdle({ until: '30m' });
    expect(leaveOf(s, 1)?.metadata).toMatchObject({ merged: true, seconds_waiting_for_freeze: 0 });
  });

  it('a freeze that starts holding only some pull requests rebuilds the batches: the others merge through it, the frozen one after it', () => {
    const s = scenario();
    const frozenLabel = [{ id: 3, name: 'frozen', color: '0000ff', default: false }];
    s.open(1, { labels: frozenLabel }).command(1, 'queue');
    s.queue(2, 3);
    s.runUntilIdle({ until: '4m' });
    expect(s.events('action.queue.checks_start').map((e) => e.pull_request)).toEqual([1, 2, 3]);
    // 09:05: the freeze starts, for #1 only.
    s.send({
      type: 'freeze_saved',
      freeze: freeze({ matchingConditions: ['label=frozen'], excludeConditions: [] }),
      by: ops,
    });
    s.runUntilIdle();
    const aborted = checksEnds(s)
      .filter((e) => e.metadata.abort_code === 'SCHEDULED_FREEZE_STATUS_CHANGED')
      .map((e) => e.pull_request);
    expect(aborted.sort()).toEqual([1, 2, 3]);
    expect(s.events('action.queue.merged').map((e) => e.pull_request)).toEqual([2, 3, 1]);
    expect(leaveOf(s, 1)?.received_at).toBe('2026-11-02T10:00:00.000Z');
    expect(leaveOf(s, 1)?.metadata.seconds_waiting_for_freeze).toBeGreaterThan(0);
    expect(leaveOf(s, 2)?.metadata).toMatchObject({ merged: true, seconds_waiting_for_freeze: 0 });
    // Rebuilt once: #2 and #3 started twice, #1 twice, nothing churned.
    expect(s.events('action.queue.checks_start').map((e) => e.pull_request)).toEqual([1, 2, 3, 2, 3, 1]);
  });

  it('during a freeze, a pull request that may merge goes ahead of the frozen ones already testing', () => {
    const s = scenario();
    const frozenLabel = [{ id: 3, name: 'frozen', color: '0000ff', default: false }];
    s.send({
      type: 'freeze_saved',
      freeze: freeze({
        start: '2026-11-02T09:00:00Z',
        matchingConditions: ['label=frozen'],
        excludeConditions: [],
      }),
      by: ops,
    });
    s.open(1, { labels: frozenLabel }).command(1, 'queue');
    s.runUntilIdle({ until: '20m' });
    expect(s.status().batches.map((b) => [b.status.code, b.pull_requests.map((p) => p.number)])).toEqual([
      ['frozen', [1]],
    ]);
    s.queue(2);
    s.runUntilIdle();
    expect(s.events('action.queue.merged').map((e) => e.pull_request)).toEqual([2, 1]);
    // #2 merges during the freeze, #1 when it ends.
    expect(Date.parse(leaveOf(s, 2)?.received_at ?? '')).toBeLessThan(Date.parse('2026-11-02T10:00:00Z'));
    expect(leaveOf(s, 1)?.received_at).toBe('2026-11-02T10:00:00.000Z');
  });

  it('a freeze holding every pull request rebuilds nothing: the batches keep testing and wait', () => {
    const s = scenario();
    s.queue(1, 2);
    s.runUntilIdle({ until: '4m' });
    s.send({ type: 'freeze_saved', freeze: freeze({ excludeConditions: [] }), by: ops });
    s.runUntilIdle();
    expect(checksEnds(s).filter((e) => e.metadata.aborted)).toEqual([]);
    expect(s.events('action.queue.merged').map((e) => e.pull_request)).toEqual([1, 2]);
  });

  it('a schedule in the merge conditions holds a passed batch until the window opens', () => {
    const s = scenario({
      queue_rules: [
        { name: 'default', merge_conditions: ['check-success=ci', 'schedule=Mon-Fri 10:00-17:00'] },
      ],
    });
    s.queue(1);
    s.runUntilIdle({ until: '50m' });
    expect(s.effects('merge_pr')).toEqual([]);
    expect(s.status().batches.map((b) => b.status.code)).toEqual(['merging']);
    s.runUntilIdle();
    const leave = leaveOf(s, 1);
    expect(leave?.received_at).toBe('2026-11-02T10:00:00.000Z');
    expect(leave?.metadata).toMatchObject({ merged: true, seconds_waiting_for_schedule: 3600 });
  });
});
