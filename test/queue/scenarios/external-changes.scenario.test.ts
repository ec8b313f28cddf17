import { describe, expect, it } from 'vitest';
import { trainyardConfigSchema } from '../../../app/config/config.schema.ts';
import { renderCheckRunTitle } from '../../../app/github/render/check-run.ts';
import type { NewEventOf } from '../../../shared/schemas/event.schema.ts';
import { scenario } from '../support/scenario.ts';

const leaves = (s: ReturnType<typeof scenario>) =>
  s.events('action.queue.leave').map((e) => {
    const leave = e as NewEventOf<'action.queue.leave'>;
    return `#${leave.pull_request} ${leave.metadata.reason.split(':')[0]}`;
  });

const aborts = (s: ReturnType<typeof scenario>) =>
  s.events('action.queue.checks_end').flatMap((e) => {
    const end = e as NewEventOf<'action.queue.checks_end'>;
    return end.metadata.aborted ? [`#${end.pull_request} ${end.metadata.abort_code}`] : [];
  });

describe('external changes', () => {
  it('base pushed externally during speculative checks: every batch is rebuilt on the new base', () => {
    const s = scenario({ merge_queue: { max_parallel_checks: 2 } });
    s.send({ type: 'base_branch_moved', branch: 'main', sha: 'main-0' });
    s.queue(1, 2);
    s.runUntilIdle({ ci: () => 'hang', until: '1m' });
    const mark = s.mark();
    s.at('3m').send({ type: 'base_branch_moved', branch: 'main', sha: 'hotfix-by-hand' });
    expect(s.timeline({ from: mark })).toMatchInlineSnapshot(`
      "
      3m     base_branch_moved main=hotfix-by-hand
               action.queue.checks_end #1 batch-1 MERGE_QUEUE_RESET REEMBARKED
               action.queue.checks_end #2 batch-2 MERGE_QUEUE_RESET REEMBARKED
               → cancel_checks batch-1
               → close_draft_pr batch-1
               → cancel_checks batch-2
               → close_draft_pr batch-2
               → prepare_test_branch batch-3 [#1]
               → prepare_test_branch batch-4 [#1,#2]
      "
    `);
    const prepare = s.effects('prepare_test_branch').at(-1);
    expect(prepare?.type === 'prepare_test_branch' && prepare.baseSha).toBe('hotfix-by-hand');
  });

  it('with reset_on_external_merge: never, batches keep running after an external push', () => {
    const s = scenario({ merge_queue: { reset_on_external_merge: 'never' } });
    s.send({ type: 'base_branch_moved', branch: 'main', sha: 'main-0' });
    s.queue(1).runUntilIdle({ ci: () => 'hang', until: '1m' });
    s.at('3m').send({ type: 'base_branch_moved', branch: 'main', sha: 'hotfix-by-hand' });
    s.expectNoEffects();
  });

  it("the queue's own merges do not reset it", () => {
    const s = scenario({ merge_queue: { max_parallel_checks: 3 } });
    s.send({ type: 'base_branch_moved', branch: 'main', sha: 'main-0' });
    s.queue(1, 2, 3).runUntilIdle();
    expect(aborts(s)).toEqual([]);
    expect(leaves(s)).toEqual(['#1 PR_MERGED', '#2 PR_MERGED', '#3 PR_MERGED']);
  });

  it('our merge commit pushed before the merge is answered is still ours: nothing is reset', () => {
    const s = scenario({ merge_queue: { max_parallel_checks: 2 } });
    s.send({ type: 'base_branch_moved', branch: 'main', sha: 'main-0' });
    s.queue(1, 2);
    // GitHub's push webhook for #1's merge commit arrives before the merge's own answer.
    s.runUntilIdle({
      merge: () => ({ type: 'base_branch_moved', branch: 'main', sha: 'merge-of-1' }),
      until: '12m',
    });
    expect(s.effects('merge_pr').map((e) => e.number)).toEqual([1]);
    s.send({ type: 'merge_completed', number: 1, sha: 'merge-of-1' });
    s.runUntilIdle();
    expect(aborts(s)).toEqual([]);
    expect(leaves(s)).toEqual(['#1 PR_MERGED', '#2 PR_MERGED']);
  });

  it('a late push of an older merge of ours does not move the base back: the next batch starts on our newest merge', () => {
    const s = scenario({ merge_queue: { max_parallel_checks: 2 } });
    s.send({ type: 'base_branch_moved', branch: 'main', sha: 'main-0' });
    s.queue(1, 2).runUntilIdle();
    expect(leaves(s)).toEqual(['#1 PR_MERGED', '#2 PR_MERGED']);
    // GitHub delivers the push of #1's merge commit (main-1) after #2's (main-2).
    s.send({ type: 'base_branch_moved', branch: 'main', sha: 'main-1' });
    s.queue(3).runUntilIdle({ ci: () => 'hang', until: '1m' });
    const prepare = s.effects('prepare_test_branch').at(-1);
    expect(prepare?.type === 'prepare_test_branch' && prepare.pullRequests.map((p) => p.number)).toEqual([3]);
    expect(prepare?.type === 'prepare_test_branch' && prepare.baseSha).toBe('main-2');
    expect(aborts(s)).toEqual([]);
  });

  it('a late push of an older merge of ours after an external push keeps the external head', () => {
    const s = scenario({ merge_queue: { max_parallel_checks: 2 } });
    s.send({ type: 'base_branch_moved', branch: 'main', sha: 'main-0' });
    s.queue(1).runUntilIdle();
    s.send({ type: 'base_branch_moved', branch: 'main', sha: 'hotfix-by-hand' });
    s.send({ type: 'base_branch_moved', branch: 'main', sha: 'main-1' });
    s.queue(2).runUntilIdle({ ci: () => 'hang', until: '1m' });
    const prepare = s.effects('prepare_test_branch').at(-1);
    expect(prepare?.type === 'prepare_test_branch' && prepare.baseSha).toBe('hotfix-by-hand');
  });

  it('an external push while our merge is in flight resets the batches once the merge is answered', () => {
    const s = scenario({ merge_queue: { max_parallel_checks: 2 } });
    s.send({ type: 'base_branch_moved', branch: 'main', sha: 'main-0' });
    s.queue(1, 2);
    // Someone pushes to main while #1's merge is in flight; GitHub answers the merge after.
    s.runUntilIdle({
      merge: () => ({ type: 'base_branch_moved', branch: 'main', sha: 'hotfix-by-hand' }),
      until: '12m',
    });
    expect(aborts(s)).toEqual([]);
    s.send({ type: 'merge_completed', number: 1, sha: 'merge-of-1' });
    expect(aborts(s)).toEqual(['#2 MERGE_QUEUE_RESET']);
    // Which commit is main's head is unknown now: #2's new test branch starts from main as GitHub has it.
    const prepare = s.effects('prepare_test_branch').at(-1)!;
    expect(prepare.pullRequests.map((p) => p.number)).toEqual([2]);
    expect(prepare.baseSha).toBeNull();
    s.runUntilIdle();
    expect(leaves(s)).toEqual(['#1 PR_MERGED', '#2 PR_MERGED']);
  });

  it('a deleted base branch makes its PRs leave with BASE_BRANCH_MISSING', () => {
    const s = scenario();
    s.queue(1, 2).runUntilIdle({ ci: () => 'hang', until: '1m' });
    s.send({ type: 'base_branch_deleted', branch: 'main' });
    expect(leaves(s)).toEqual(['#1 BASE_BRANCH_MISSING', '#2 BASE_BRANCH_MISSING']);
  });

  it('PR updated while embarked: its batch is aborted and it stays queued while it meets the queue conditions', () => {
    const s = scenario({ merge_queue: { max_parallel_checks: 2 } });
    s.queue(1, 2).runUntilIdle({ ci: () => 'hang', until: '1m' });
    const mark = s.mark();
    s.at('2m').update(1, { headSha: 'pr-1-v2' });
    expect(s.timeline({ from: mark })).toMatchInlineSnapshot(`
      "
      2m     pull_request_updated #1 head=pr-1-v2
               action.queue.checks_end #1 batch-1 PULL_REQUEST_UPDATED REEMBARKED
               action.queue.checks_end #2 batch-2 PR_AHEAD_DEQUEUED REEMBARKED
               → cancel_checks batch-1
               → close_draft_pr batch-1
               → cancel_checks batch-2
               → close_draft_pr batch-2
               → prepare_test_branch batch-3 [#1]
               → prepare_test_branch batch-4 [#1,#2]
      "
    `);
    expect(Object.keys(s.state.sessions)).toEqual(['1', '2']);
    const rebuilt = s.effects('prepare_test_branch').at(-1);
    expect(rebuilt?.type === 'prepare_test_branch' && rebuilt.pullRequests[0]).toEqual({
      number: 1,
      headSha: 'pr-1-v2',
    });
  });

  it('PR updated so that it no longer meets the queue conditions leaves with PULL_REQUEST_UPDATED', () => {
    const s = scenario({ queue_rules: [{ name: 'default', queue_conditions: ['-draft'] }] });
    s.queue(1).runUntilIdle({ ci: () => 'hang', until: '1m' });
    s.update(1, { headSha: 'pr-1-v2', draft: true });
    expect(leaves(s)).toEqual(['#1 PULL_REQUEST_UPDATED']);
  });

  it('a conflict with the base branch makes the PR leave with CONFLICT_WITH_BASE_BRANCH', () => {
    const s = scenario();
    s.queue(1).runUntilIdle({
      prepare: (effect) => ({
        type: 'test_branch_failed',
        batchId: effect.batchId,
        attempt: effect.attempt,
        reason: 'conflict_with_base',
        pullRequest: 1,
        message: 'src/app.ts conflicts',
      }),
    });
    expect(leaves(s)).toEqual(['#1 CONFLICT_WITH_BASE_BRANCH']);
  });

  it('a conflict with a PR ahead waits until that PR merges, then is retried (CONFLICT_WITH_PULL_AHEAD)', () => {
    const s = scenario({ merge_queue: { max_parallel_checks: 2 } });
    s.queue(1, 2);
    let conflicted = false;
    s.runUntilIdle({
      prepare: (effect) => {
        const numbers = effect.pullRequests.map((p) => p.number);
        if (conflicted || numbers.join() !== '1,2') return null;
        conflicted = true;
        const failure = {
          type: 'test_branch_failed' as const,
          reason: 'conflict_with_pull_request' as const,
        };
        return {
          ...failure,
          batchId: effect.batchId,
          attempt: effect.attempt,
          pullRequest: 2,
          message: 'conflict',
        };
      },
    });
    expect(aborts(s)).toEqual([]);
    expect(
      s
        .effects('prepare_test_branch')
        .map((e) => e.type === 'prepare_test_branch' && e.pullRequests.map((p) => p.number)),
    ).toEqual([[1], [1, 2], [2]]);
    expect(leaves(s)).toEqual(['#1 PR_MERGED', '#2 PR_MERGED']);
  });

  it('a PR ahead leaving makes the batches built on it rebuild (PR_AHEAD_DEQUEUED)', () => {
    const s = scenario({ merge_queue: { max_parallel_checks: 3 } });
    s.queue(1, 2, 3).runUntilIdle({ ci: () => 'hang', until: '1m' });
    s.command(1, 'dequeue');
    expect(aborts(s)).toEqual(['#1 PR_MANUALLY_DEQUEUED', '#2 PR_AHEAD_DEQUEUED', '#3 PR_AHEAD_DEQUEUED']);
    const rebuilt = s.effects('prepare_test_branch').slice(3);
    expect(
      rebuilt.map((e) => e.type === 'prepare_test_branch' && e.pullRequests.map((p) => p.number)),
    ).toEqual([[2], [2, 3]]);
  });

  it('GitHub refusing a merge makes the PR leave with PR_UNEXPECTEDLY_FAILED_TO_MERGE; the rest is rebuilt', () => {
    const s = scenario({ queue_rules: [{ name: 'default', batch_size: 2 }] });
    s.queue(1, 2).runUntilIdle({
      merge: (effect) =>
        effect.number === 1 ? { type: 'merge_failed', number: 1, reason: 'branch protection' } : null,
    });
    expect(leaves(s)).toEqual(['#1 PR_UNEXPECTEDLY_FAILED_TO_MERGE', '#2 PR_MERGED']);
  });

  it('a configuration change to a rule aborts its batches (CONFIGURATION_CHANGED); a removed rule dequeues (QUEUE_RULE_MISSING)', () => {
    const s = scenario({ queue_rules: [{ name: 'default' }, { name: 'slow' }] });
    s.queue(1).open(2).command(2, 'queue', 'slow');
    s.runUntilIdle({ ci: () => 'hang', until: '1m' });
    const config = trainyardConfigSchema.parse({ queue_rules: [{ name: 'default', batch_size: 3 }] });
    s.send({ type: 'config_changed', config });
    expect(leaves(s)).toEqual(['#2 QUEUE_RULE_MISSING']);
    expect(aborts(s)).toEqual(['#2 QUEUE_RULE_MISSING', '#1 CONFIGURATION_CHANGED']);
  });

  it('an invalid configuration keeps the last valid one and tells the queued PRs until a valid one comes', () => {
    const s = scenario();
    s.queue(1);
    const errors = [
      { path: 'queue_rules[0].batch_size', message: 'expected an integer from 1 to 128, found 0' },
    ];
    s.send({ type: 'config_rejected', errors });
    const published = () => s.log.at(-1)!.effects.filter((e) => e.type === 'publish_check_run');
    // One publication, with the errors: nothing in the same step publishes over it.
    expect(published()).toMatchObject([{ number: 1, details: { kind: 'config_rejected', errors } }]);
    const [first] = published();
    expect(first?.type === 'publish_check_run' && renderCheckRunTitle(first.details)).toMatch(
      /^Invalid \.github\/trainyard\.yml: the last valid configuration is used — /,
    );
    expect(s.state.config.queue_rules[0]?.name).toBe('default');
    // Later steps keep the errors on the check runs, also of pull requests queued since.
    s.queue(2);
    expect(
      s.effects('publish_check_run').filter((e) => e.type === 'publish_check_run' && e.number === 2),
    ).toMatchObject([{ details: { kind: 'config_rejected', errors } }]);
    s.runUntilIdle({ until: '20m' });
    expect(s.effects('merge_pr').length).toBeGreaterThan(0);
    // A valid configuration: the check runs are published without the errors.
    s.queue(3);
    s.send({ type: 'config_changed', config: trainyardConfigSchema.parse({}) });
    expect(published().map((e) => e.type === 'publish_check_run' && e.details.kind)).toEqual(['queued']);
    expect(s.state.configErrors).toBeUndefined();
  });

  it('pushes to branches no pull request targets are not remembered; bases of pull requests are', () => {
    const s = scenario();
    s.open(1);
    s.send({ type: 'base_branch_moved', branch: 'main', sha: 'main-1' });
    s.send({ type: 'base_branch_moved', branch: 'feature-9', sha: 'feature-9-a' });
    s.expectNoEffects();
    s.send({ type: 'base_branch_moved', branch: 'docs', sha: 'docs-a' });
    expect(s.state.bases).toEqual({
      main: { sha: 'main-1', ownShas: [] },
      docs: { sha: 'docs-a', ownShas: [] },
    });
  });
});
