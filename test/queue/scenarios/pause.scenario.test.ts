import { describe, expect, it } from 'vitest';
import { failIfContains, scenario } from '../support/scenario.ts';

const ops = { type: 'user' as const, id: 7, name: 'ops' };

describe('pause', () => {
  it('pausing cancels running draft-PR batches; their PRs wait again in order; nothing starts', () => {
    const s = scenario({ merge_queue: { max_parallel_checks: 2 } });
    s.queue(1, 2, 3);
    s.runUntilIdle({ ci: () => 'hang', until: '1m' });
    const mark = s.mark();
    s.at('2m').send({ type: 'pause_set', reason: 'incident', by: ops });
    expect(s.timeline({ from: mark })).toMatchInlineSnapshot(`
      "
      2m     pause_set "incident"
               action.queue.checks_end #1 batch-1 PR_CHECKS_STOPPED_BECAUSE_MERGE_QUEUE_PAUSE REEMBARKED
               action.queue.checks_end #2 batch-2 PR_CHECKS_STOPPED_BECAUSE_MERGE_QUEUE_PAUSE REEMBARKED
               → cancel_checks batch-1
               → close_draft_pr batch-1
               → cancel_checks batch-2
               → close_draft_pr batch-2
      "
    `);
    expect(s.status().waiting_pull_requests.map((p) => p.number)).toEqual([1, 2, 3]);
    s.at('3m').queue(4);
    expect(s.effects('prepare_test_branch')).toHaveLength(2);
  });

  it('PRs may still enter while paused, and unpausing resumes at once', () => {
    const s = scenario();
    s.send({ type: 'pause_set', reason: 'freeze week', by: ops });
    s.queue(1);
    expect(s.events('action.queue.enter')).toHaveLength(1);
    expect(s.effects('prepare_test_branch')).toEqual([]);
    s.at('1m').send({ type: 'pause_cleared', by: ops });
    expect(s.log.at(-1)!.effects.map((e) => e.type)).toContain('prepare_test_branch');
  });

  it('in-place checks are not cancelled: their result is kept, but nothing merges until unpaused', () => {
    const s = scenario({ merge_queue: { max_parallel_checks: 1 } });
    s.queue(1).runUntilIdle({ ci: () => 'hang', until: '1m' });
    s.at('2m').send({ type: 'pause_set', reason: 'incident', by: ops });
    expect(s.events('action.queue.checks_end')).toEqual([]);
    s.at('5m').ci('batch-1', 'success');
    expect(s.effects('merge_pr')).toEqual([]);
    expect(s.status().batches.map((b) => b.status.code)).toEqual(['paused']);
    s.at('6m').send({ type: 'pause_cleared', by: ops });
    expect(s.log.at(-1)!.effects.map((e) => e.type)).toContain('merge_pr');
  });

  it('pause in the middle of a bisection stops it; unpausing starts over from a fresh batch', () => {
    const s = scenario({
      queue_rules: [{ name: 'default', batch_size: 4 }],
      merge_queue: { max_parallel_checks: 2 },
    });
    s.queue(1, 2, 3, 4);
    s.runUntilIdle({ ci: failIfContains(3), until: '15m' });
    expect(s.status().batches.map((b) => b.status.code)).toEqual(['bisecting']);
    const mark = s.mark();
    s.at('16m').send({ type: 'pause_set', reason: 'deploy', by: ops });
    expect(s.timeline({ from: mark })).toMatchInlineSnapshot(`
      "
      16m    pause_set "deploy"
               action.queue.batch_bisection_end #1 culprits=[] remaining=[#1,#2,#3,#4]
               action.queue.checks_end #1,#2 batch-1.1.2 PR_CHECKS_STOPPED_BECAUSE_MERGE_QUEUE_PAUSE REEMBARKED
               action.queue.checks_end #1,#2,#3 batch-1.1.3 PR_CHECKS_STOPPED_BECAUSE_MERGE_QUEUE_PAUSE REEMBARKED
               → cancel_checks batch-1.1.2
               → close_draft_pr batch-1.1.2
               → cancel_checks batch-1.1.3
               → close_draft_pr batch-1.1.3
      "
    `);
    expect(s.status().batches).toEqual([]);
    s.at('20m').send({ type: 'pause_cleared', by: ops });
    s.runUntilIdle({ ci: failIfContains(3) });
    const merged = s.events('action.queue.merged').map((e) => e.pull_request);
    expect(merged).toEqual([1, 2, 4]);
  });
});
