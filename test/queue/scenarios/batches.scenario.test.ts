import { describe, expect, it } from 'vitest';
import { computeBatchSize } from '../../../app/queue/embark.ts';
import type { NewEventOf } from '../../../shared/schemas/event.schema.ts';
import { allPass, scenario } from '../support/scenario.ts';

describe('batches and speculative checks', () => {
  it('batch size grows from min towards max when the backlog exceeds what the parallel slots drain', () => {
    const rule = { batch_size: { min: 2, max: 5 } } as Parameters<typeof computeBatchSize>[0];
    expect([1, 4, 6, 7, 9, 12, 40].map((backlog) => computeBatchSize(rule, backlog, 3))).toEqual([
      2, 2, 2, 3, 3, 4, 5,
    ]);
  });

  it('a batch that is not full waits batch_max_wait_time, then starts', () => {
    const s = scenario({ queue_rules: [{ name: 'default', batch_size: 3, batch_max_wait_time: '2m' }] });
    s.at('0s').queue(1);
    expect(s.effects('prepare_test_branch')).toEqual([]);
    expect(s.effects('schedule_wake_up').at(-1)).toMatchObject({ at: '2026-11-02T09:02:00.000Z' });
    s.at('1m').queue(2);
    expect(s.effects('prepare_test_branch')).toEqual([]);
    const mark = s.mark();
    s.at('2m');
    expect(s.timeline({ from: mark })).toMatchInlineSnapshot(`
      "
      2m     tick
               → prepare_test_branch batch-1 [#1,#2]
      "
    `);
  });

  it('a full batch starts at once', () => {
    const s = scenario({ queue_rules: [{ name: 'default', batch_size: 2 }] });
    s.queue(1, 2);
    expect(s.log.at(-1)!.effects.map((e) => e.type)).toContain('prepare_test_branch');
  });

  it('speculative checks: each batch is tested on top of the batches ahead, up to max_parallel_checks', () => {
    const s = scenario({
      queue_rules: [{ name: 'default', batch_size: 2 }],
      merge_queue: { max_parallel_checks: 2 },
    });
    s.queue(1, 2, 3, 4, 5, 6);
    s.runUntilIdle({ until: '1m' });
    expect(s.timeline({ from: 10, gauges: true })).toMatchInlineSnapshot(`
      "
      0s     pull_request_updated #6 head=pr-6-head
      0s     command queue #6
               command.queue #6
               action.queue.enter #6
               action.queue.change __default__ size=6
               → react +1
      0s     test_branch_prepared batch-1 (attempt 1) sha=test-batch-1-1
               action.queue.checks_start #1,#2 batch-1 [#1,#2]
      0s     test_branch_prepared batch-2 (attempt 1) sha=test-batch-2-1
               action.queue.checks_start #3,#4 batch-2 [#1,#2,#3,#4]
      "
    `);
    const status = s.status();
    expect(
      status.batches.map((b) => [
        b.name,
        b.status.code,
        b.parent_ids.length,
        b.pull_requests.map((p) => p.number),
      ]),
    ).toEqual([
      ['batch-1', 'running', 0, [1, 2]],
      ['batch-2', 'running', 1, [3, 4]],
    ]);
    expect(status.waiting_pull_requests.map((p) => p.number)).toEqual([5, 6]);
    const start = s.events('action.queue.checks_start').at(-1) as NewEventOf<'action.queue.checks_start'>;
    expect(start.metadata).toMatchObject({
      pull_request_numbers: [1, 2, 3, 4],
      train_car_id: s.batchId('batch-2'),
      speculative_check_pull_request: { in_place: false },
    });
  });

  it('only the head batch merges: a batch behind that passes first waits, then merges at once', () => {
    const s = scenario({ merge_queue: { max_parallel_checks: 2 } });
    s.queue(1, 2);
    s.runUntilIdle({ ci: () => 'hang', until: '1m' });
    s.at('5m').ci('batch-2', 'success');
    expect(s.effects('merge_pr')).toEqual([]);
    expect(s.status().batches.map((b) => b.status.code)).toEqual(['running', 'waiting_for_previous_batches']);
    const mark = s.mark();
    s.at('8m').ci('batch-1', 'success');
    s.runUntilIdle({ ci: allPass });
    expect(s.timeline({ from: mark })).toMatchInlineSnapshot(`
      "
      8m     checks_reported test-batch-1-1 ci=success
               → merge_pr #1 (merge)
      8m     merge_completed #1 sha=main-1
               action.queue.checks_end #1 batch-1 success
               action.queue.merged #1
               action.queue.leave #1 PR_MERGED merged
               → close_draft_pr batch-1
               → verify_merge batch-1 main tested=test-batch-1-1
      8m     base_branch_moved main=main-1
      8m     base_tree_read batch-1 main=main-1 tree=tree-of-test-batch-1-1
               action.queue.merge_verified #1
               → merge_pr #2 (merge)
      8m     merge_completed #2 sha=main-2
               action.queue.checks_end #2 batch-2 success
               action.queue.merged #2
               action.queue.leave #2 PR_MERGED merged
               → close_draft_pr batch-2
               → verify_merge batch-2 main tested=test-batch-2-1
      8m     base_branch_moved main=main-2
      8m     base_tree_read batch-2 main=main-2 tree=tree-of-test-batch-2-1
               action.queue.merge_verified #2
      "
    `);
  });

  it('merge conditions stay pending until every required check has reported', () => {
    const s = scenario({
      queue_rules: [{ name: 'default', merge_conditions: ['check-success=ci', 'check-success=lint'] }],
    });
    s.queue(1).runUntilIdle({ ci: () => 'hang', until: '1m' });
    s.at('3m').ci('batch-1', 'success', 'ci');
    expect(s.effects('merge_pr')).toEqual([]);
    s.at('4m').ci('batch-1', 'success', 'lint');
    expect(s.effects('merge_pr')).toHaveLength(1);
  });

  it('checks that run past checks_timeout fail the batch as timed out', () => {
    const s = scenario({ queue_rules: [{ name: 'default', checks_timeout: '20m' }] });
    s.queue(1).runUntilIdle({ ci: () => 'hang' });
    expect(s.timeline({ from: 3 })).toMatchInlineSnapshot(`
      "
      15m    tick
               action.queue.checks_stalled #1
      20m    tick
               action.queue.checks_end #1 batch-1 CHECKS_TIMEOUT DEFINITIVE
               action.queue.leave #1 CHECKS_TIMEOUT
               → close_draft_pr batch-1
      "
    `);
  });

  it('fast-forward moves the base to the tested commit for the whole batch', () => {
    const s = scenario({ queue_rules: [{ name: 'default', batch_size: 2, merge_method: 'fast-forward' }] });
    s.queue(1, 2).runUntilIdle();
    expect(s.timeline({ from: 4 })).toMatchInlineSnapshot(`
      "
      0s     test_branch_prepared batch-1 (attempt 1) sha=test-batch-1-1
               action.queue.checks_start #1,#2 batch-1 [#1,#2]
      10m    checks_reported test-batch-1-1 ci=success
               → fast_forward_base main to test-batch-1-1 [#1,#2]
      10m    merge_completed #1 sha=test-batch-1-1
               action.queue.checks_end #1 batch-1 success
               action.queue.merged #1
               action.queue.leave #1 PR_MERGED merged
      10m    merge_completed #2 sha=test-batch-1-1
               action.queue.checks_end #2 batch-1 success
               action.queue.merged #2
               action.queue.leave #2 PR_MERGED merged
               → close_draft_pr batch-1
               → verify_merge batch-1 main tested=test-batch-1-1
      10m    base_branch_moved main=test-batch-1-1
      10m    base_tree_read batch-1 main=main-0 tree=tree-of-test-batch-1-1
               action.queue.merge_verified #1,#2
      "
    `);
  });

  it('the merged leave carries the checks and the merge conditions evaluation', () => {
    const s = scenario();
    s.queue(1).runUntilIdle();
    const leave = s.events('action.queue.leave')[0] as NewEventOf<'action.queue.leave'>;
    expect(leave.metadata).toMatchObject({
      merged: true,
      reason: 'PR_MERGED',
      pull_request_head_sha: 'pr-1-head',
    });
    expect(leave.metadata.checks.map((c) => [c.name, c.state])).toEqual([['ci', 'success']]);
    expect(leave.metadata.conditions_evaluation).toMatchObject({
      match: true,
      label: 'all of',
      subconditions: [
        { match: true, label: 'check-success=ci', attribute_name: 'check-success', operator: '=' },
      ],
    });
    const gauges = s
      .events('action.queue.checks.change')
      .map((e) => e.type === 'action.queue.checks.change' && e.metadata.running_checks);
    expect(gauges).toEqual([1, 0]);
  });
});
