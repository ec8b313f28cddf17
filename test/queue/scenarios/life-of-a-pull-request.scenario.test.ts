import { describe, expect, it } from 'vitest';
import { renderReply } from '../../../app/github/render/comment.ts';
import type { NewEventOf } from '../../../shared/schemas/event.schema.ts';
import { scenario } from '../support/scenario.ts';

const enterOf = (s: ReturnType<typeof scenario>, number: number) =>
  s.events('action.queue.enter').find((e) => e.pull_request === number) as NewEventOf<'action.queue.enter'>;
const leaveOf = (s: ReturnType<typeof scenario>, number: number) =>
  s
    .events('action.queue.leave')
    .filter((e) => e.pull_request === number) as NewEventOf<'action.queue.leave'>[];

describe('the life of a pull request', () => {
  it('a queued pull request is tested on a draft PR and merged when its checks pass', () => {
    const s = scenario();
    s.at('0s').queue(1);
    s.runUntilIdle();
    expect(s.timeline()).toMatchInlineSnapshot(`
      "
      0s     pull_request_updated #1 head=pr-1-head
      0s     command queue #1
               command.queue #1
               action.queue.enter #1
               → react +1
               → prepare_test_branch batch-1 [#1]
      0s     test_branch_prepared batch-1 (attempt 1) sha=test-batch-1-1
               action.queue.checks_start #1 batch-1 [#1]
      10m    checks_reported test-batch-1-1 ci=success
               → merge_pr #1 (merge)
      10m    merge_completed #1 sha=main-1
               action.queue.checks_end #1 batch-1 success
               action.queue.merged #1
               action.queue.leave #1 PR_MERGED merged
               → close_draft_pr batch-1
               → verify_merge batch-1 main tested=test-batch-1-1
      10m    base_branch_moved main=main-1
      10m    base_tree_read batch-1 main=main-1 tree=tree-of-test-batch-1-1
               action.queue.merge_verified #1
      "
    `);
  });

  it('entering by command emits command.queue, then action.queue.enter, then the new queue size', () => {
    const s = scenario();
    s.open(1).command(1, 'queue');
    const types = s.log.at(-1)!.events.map((e) => e.type);
    expect(types.slice(0, 3)).toEqual(['command.queue', 'action.queue.enter', 'action.queue.change']);
    const command = s.events('command.queue')[0] as NewEventOf<'command.queue'>;
    expect(command.metadata.session_id).toBe(enterOf(s, 1).metadata.session_id);
    expect(s.events('action.queue.change').at(0)?.metadata).toEqual({
      queue_name: 'default',
      partition_name: '__default__',
      priority_rule_name: null,
      size: 1,
    });
  });

  it('a pull request matching an autoqueue rule enters by itself', () => {
    const s = scenario({
      queue_rules: [{ name: 'auto', autoqueue: true, queue_conditions: ['label=ready'] }],
    });
    s.open(1);
    expect(s.events('action.queue.enter')).toEqual([]);
    s.update(1, { labels: [{ id: 1, name: 'ready', color: '00ff00', default: false }] });
    expect(enterOf(s, 1).metadata.queue_name).toBe('auto');
    expect(s.events('command.queue')).toEqual([]);
  });

  it('a pull request that fails the queue conditions is refused with a reason a person can read', () => {
    const s = scenario({
      queue_rules: [{ name: 'default', queue_conditions: ['label=ready', '#approved-reviews-by>=2'] }],
    });
    s.open(1).command(1, 'queue');
    expect(s.timeline({ from: 1 })).toMatchInlineSnapshot(`
      "
      0s     command queue #1
               command.queue #1
               → react -1
               → comment #1: Not queued. The queue conditions of rule \`default\` are not met:
      "
    `);
    const comment = s.effects('post_comment')[0];
    expect(comment).toMatchObject({ number: 1 });
    expect(comment?.type === 'post_comment' && renderReply(comment.reply)).toMatchInlineSnapshot(`
      "Not queued. The queue conditions of rule \`default\` are not met:
      - \`label=ready\`
      - \`#approved-reviews-by>=2\`"
    `);
    expect(s.events('action.queue.enter')).toEqual([]);
  });

  it('asking for a queue rule that does not exist is refused and names the rules', () => {
    const s = scenario();
    s.open(1).command(1, 'queue', 'fast');
    const comment = s.effects('post_comment')[0];
    expect(comment?.type === 'post_comment' && renderReply(comment.reply)).toBe(
      'Not queued. There is no queue rule named `fast` (rules: `default`).',
    );
  });

  it('the priority comes from the first matching priority rule and orders the waiting pull requests', () => {
    const s = scenario({
      priority_rules: [
        { name: 'hotfix', conditions: ['label=hotfix'], priority: 'high', allow_checks_interruption: false },
        { name: 'chore', conditions: ['label=chore'], priority: 'low' },
      ],
    });
    const label = (name: string) => [{ id: 1, name, color: 'ff0000', default: false }];
    s.send({ type: 'pause_set', reason: 'hold everything', by: { type: 'user', id: 1, name: 'ops' } });
    s.at('0s')
      .open(1, { labels: label('chore') })
      .command(1, 'queue');
    s.at('1s').queue(2);
    s.at('2s')
      .open(3, { labels: label('hotfix') })
      .command(3, 'queue');
    s.at('3s')
      .open(4, { labels: label('hotfix') })
      .command(4, 'queue');
    expect(enterOf(s, 3).metadata.priority_rule_name).toBe('hotfix');
    expect(enterOf(s, 2).metadata.priority_rule_name).toBeNull();
    const waiting = s.status().waiting_pull_requests;
    expect(waiting.map((pr) => [pr.number, pr.priority_alias, pr.priority_rule_name])).toEqual([
      [3, 'high', 'hotfix'],
      [4, 'high', 'hotfix'],
      [2, 'medium', null],
      [1, 'low', 'chore'],
    ]);
  });

  it('partitions come from the partition rules; without rules the partition is __default__', () => {
    const s = scenario({
      partition_rules: [
        { name: 'web', conditions: ['files~=^web/'] },
        { name: 'api', conditions: ['files~=^api/'] },
      ],
    });
    s.open(1, { files: ['web/index.ts'] }).command(1, 'queue');
    s.open(2, { files: ['api/server.ts', 'web/client.ts'] }).command(2, 'queue');
    expect(enterOf(s, 1).metadata.partition_name).toBe('web');
    expect(s.state.sessions['2']?.partitions).toEqual(['web', 'api']);
    expect(scenario().queue(1).state.sessions['1']?.partitions).toEqual(['__default__']);
  });

  it('dequeue aborts the checks and the pull request leaves with PR_MANUALLY_DEQUEUED', () => {
    const s = scenario();
    s.queue(1).runUntilIdle({ ci: () => 'hang', until: '1m' });
    const mark = s.mark();
    s.command(1, 'dequeue');
    expect(s.timeline({ from: mark })).toMatchInlineSnapshot(`
      "
      0s     command dequeue #1
               command.dequeue #1
               action.queue.checks_end #1 batch-1 PR_MANUALLY_DEQUEUED DEFINITIVE
               action.queue.leave #1 PR_MANUALLY_DEQUEUED
               → react +1
               → cancel_checks batch-1
               → close_draft_pr batch-1
      "
    `);
    expect(leaveOf(s, 1)[0]?.metadata.reason).toBe('PR_MANUALLY_DEQUEUED: dequeued by @alice');
  });

  it('a requeued pull request gets a new session', () => {
    const s = scenario();
    s.queue(1).command(1, 'dequeue').command(1, 'requeue');
    const sessions = s
      .events('action.queue.enter')
      .map((e) => (e as NewEventOf<'action.queue.enter'>).metadata.session_id);
    expect(sessions).toHaveLength(2);
    expect(new Set(sessions).size).toBe(2);
    expect(s.events('command.requeue')).toHaveLength(1);
  });

  it('queueing a pull request twice is answered, not repeated', () => {
    const s = scenario();
    s.queue(1).command(1, 'queue');
    expect(s.events('action.queue.enter')).toHaveLength(1);
    expect(s.log.at(-1)!.effects.map((e) => e.type)).toEqual(['react_to_comment', 'post_comment']);
  });

  it('a closed pull request leaves with PR_DEQUEUED; one merged by hand with PR_MANUALLY_MERGED', () => {
    const s = scenario();
    s.queue(1, 2).runUntilIdle({ ci: () => 'hang', until: '1m' });
    s.send({ type: 'pull_request_closed', number: 1, merged: false, mergeSha: null });
    s.send({ type: 'pull_request_closed', number: 2, merged: true, mergeSha: 'abc' });
    expect(leaveOf(s, 1)[0]?.metadata.reason).toBe('PR_DEQUEUED: the pull request was closed');
    expect(leaveOf(s, 2)[0]?.metadata.reason).toBe('PR_MANUALLY_MERGED: merged outside the merge queue');
    expect(s.state.sessions).toEqual({});
  });

  it('each queued pull request carries a "Trainyard" check run saying where it is', () => {
    const s = scenario({ merge_queue: { max_parallel_checks: 1 } });
    s.queue(1, 2, 3);
    expect(s.timeline({ checkRuns: true, from: 5 })).toMatchInlineSnapshot(`
      "
      0s     command queue #3
               command.queue #3
               action.queue.enter #3
               → react +1
               → check_run #3 queued: Waiting in queue default at position 3
      "
    `);
  });

  it("a check run's details say where the pull request is, what it is tested with and when it should merge", () => {
    const s = scenario({
      queue_rules: [{ name: 'default', batch_size: 2 }],
      merge_queue: { max_parallel_checks: 1 },
    });
    s.queue(1, 2, 3).runUntilIdle({ ci: () => 'hang', until: '1m' });
    const latest = new Map<number, unknown>();
    for (const effect of s.effects('publish_check_run')) {
      if (effect.type === 'publish_check_run') latest.set(effect.number, effect.details);
    }
    expect(latest.get(2)).toEqual({
      kind: 'queued',
      queueName: 'default',
      priorityAlias: 'medium',
      partitions: ['__default__'],
      position: { from: 2, to: 2 },
      batch: { name: 'batch-1', phase: 'testing', pullRequests: [1, 2], merged: false },
      paused: false,
      waitingFor: null,
      // Started at 0s, and no CI duration seen yet: the default 10 minutes.
      estimatedMergeAt: '2026-11-02T09:10:00.000Z',
      estimatedMergeAtP90: '2026-11-02T09:10:00.000Z',
      reasons: [
        {
          code: 'waiting_for_checks',
          message: 'Waiting for check ci on batch-1',
          since: '2026-11-02T09:00:00.000Z',
          until: '2026-11-02T09:10:00.000Z',
          next_action: null,
          checks: ['ci'],
        },
      ],
    });
    expect(latest.get(3)).toMatchObject({
      position: { from: 3, to: 3 },
      batch: null,
      estimatedMergeAt: null,
    });
  });

  it('a lone pull request with one parallel check and no retries is tested in place', () => {
    const s = scenario({ merge_queue: { max_parallel_checks: 1 } });
    s.queue(1).runUntilIdle();
    expect(s.timeline()).toMatchInlineSnapshot(`
      "
      0s     pull_request_updated #1 head=pr-1-head
      0s     command queue #1
               command.queue #1
               action.queue.enter #1
               → react +1
               → update_pr_in_place batch-1 #1
      0s     pull_request_updated #1 head=pr-1-updated-1
      0s     test_branch_prepared batch-1 (attempt 1) sha=pr-1-updated-1
               action.queue.checks_start #1 batch-1 [#1]
      10m    checks_reported pr-1-updated-1 ci=success
               → merge_pr #1 (merge)
      10m    merge_completed #1 sha=main-1
               action.queue.checks_end #1 batch-1 success
               action.queue.merged #1
               action.queue.leave #1 PR_MERGED merged
               → verify_merge batch-1 main tested=pr-1-updated-1
      10m    base_branch_moved main=main-1
      10m    base_tree_read batch-1 main=main-1 tree=tree-of-pr-1-updated-1
               action.queue.merge_verified #1
      "
    `);
  });

  it('an input about an unknown pull request changes nothing', () => {
    const s = scenario();
    s.send({ type: 'pull_request_closed', number: 42, merged: false, mergeSha: null });
    s.expectNoEffects();
    s.send({ type: 'merge_completed', number: 42, sha: 'x' });
    s.expectNoEffects();
  });
});
