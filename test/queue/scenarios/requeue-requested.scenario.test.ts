import { describe, expect, it } from 'vitest';
import { decideRequeue } from '../../../app/queue/enter.ts';
import { scenario } from '../support/scenario.ts';

const key = { type: 'application' as const, id: '6f1c2a4e-1111-4222-8333-944445555666', name: 'oncall' };

describe('requeue_requested (POST …/merge-queue/pull/{pr_number}/requeue)', () => {
  it('a pull request that left enters again as with @trainyard requeue: action.requeue naming the caller, then its enter, and it merges', () => {
    const s = scenario({ merge_queue: { max_parallel_checks: 2 } });
    s.queue(1, 2);
    s.runUntilIdle({ until: '2m' });
    s.send({ type: 'dequeue_requested', number: 2, by: key });
    const entersBefore = s.events('action.queue.enter').length;
    s.send({ type: 'requeue_requested', number: 2, queueName: null, by: key });
    const [requeue] = s.events('action.requeue');
    expect(requeue).toMatchObject({
      pull_request: 2,
      base_ref: 'main',
      trigger: 'API: requeue by key "oncall"',
      metadata: {},
    });
    const enters = s.events('action.queue.enter');
    expect(enters).toHaveLength(entersBefore + 1);
    expect(enters.at(-1)).toMatchObject({ pull_request: 2, metadata: { queue_name: 'default' } });
    expect(s.state.sessions['2']?.queueName).toBe('default');
    s.runUntilIdle();
    expect(s.events('action.queue.merged').map((e) => e.pull_request)).toEqual([1, 2]);
  });

  it('takes the rule asked for, names a user as @login, and does nothing when it cannot enter', () => {
    const s = scenario({ queue_rules: [{ name: 'default' }, { name: 'hotfix' }] });
    s.open(1).open(2);
    const octocat = { type: 'user' as const, id: 5, name: 'octocat' };
    s.send({ type: 'requeue_requested', number: 1, queueName: 'hotfix', by: octocat });
    expect(s.events('action.requeue').at(-1)?.trigger).toBe('API: requeue by @octocat');
    expect(s.state.sessions['1']?.queueName).toBe('hotfix');
    // Already queued, never seen, an unknown rule: the decision the API answers with, and no step effect.
    expect(decideRequeue({ state: s.state, now: new Date(s.now) }, 1, null)).toEqual({
      kind: 'already_queued',
      queueName: 'hotfix',
    });
    s.send({ type: 'requeue_requested', number: 1, queueName: null, by: key });
    s.expectNoEffects();
    expect(decideRequeue({ state: s.state, now: new Date(s.now) }, 9, null)).toEqual({
      kind: 'refused',
      refusal: { kind: 'pull_request_not_seen' },
    });
    s.send({ type: 'requeue_requested', number: 9, queueName: null, by: key });
    s.expectNoEffects();
    expect(decideRequeue({ state: s.state, now: new Date(s.now) }, 2, 'nope')).toEqual({
      kind: 'refused',
      refusal: { kind: 'unknown_rule', queueName: 'nope', rules: ['default', 'hotfix'] },
    });
    s.send({ type: 'requeue_requested', number: 2, queueName: 'nope', by: key });
    s.expectNoEffects();
    expect(s.state.sessions['2']).toBeUndefined();
  });
});
