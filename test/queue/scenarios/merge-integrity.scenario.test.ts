import { describe, expect, it } from 'vitest';
import type { Effect } from '../../../app/queue/effects.ts';
import type { QueueInput } from '../../../app/queue/inputs.ts';
import { APP_ACTOR } from '../../../app/queue/integrity.ts';
import { scenario } from '../support/scenario.ts';

type VerifyMerge = Extract<Effect, { type: 'verify_merge' }>;

/** The base as GitHub would show it: `tree` landed on head `head`. */
const landed =
  (tree: (effect: VerifyMerge) => string, head = (_: VerifyMerge) => 'main-1', parents: string[] = []) =>
  (effect: VerifyMerge): QueueInput => ({
    type: 'base_tree_read',
    batchId: effect.batchId,
    base: effect.base,
    headSha: head(effect),
    treeSha: tree(effect),
    parentShas: parents,
    testedTree: `tree-of-${effect.testedSha}`,
  });

describe('merge integrity', () => {
  it('every batch merged is verified once, and equal trees are counted', () => {
    const s = scenario({
      queue_rules: [{ name: 'default', batch_size: 2 }],
      merge_queue: { max_parallel_checks: 2 },
    });
    s.queue(1, 2, 3, 4, 5);
    s.runUntilIdle();
    expect(s.events('action.queue.merged').map((e) => e.pull_request)).toEqual([1, 2, 3, 4, 5]);
    const verified = s.effects('verify_merge').map((e) => e.batchId);
    expect(new Set(verified).size).toBe(verified.length);
    expect(verified).toHaveLength(3);
    expect(s.state.mergeIntegrity?.counts).toEqual({
      equal: 3,
      different: 0,
      base_moved_outside: 0,
      tree_unknown: 0,
    });
    expect(s.state.pause.paused).toBe(false);
  });

  it('a landed tree that is not the tested one pauses the queue at once: nothing merges after it', () => {
    const s = scenario({
      queue_rules: [{ name: 'default', batch_size: 2 }],
      merge_queue: { max_parallel_checks: 2 },
    });
    s.queue(1, 2, 3, 4);
    s.runUntilIdle({
      verify: landed(
        () => 'tree-without-part-of-2',
        () => 'main-2',
        ['main-1'],
      ),
    });
    expect(s.events('action.queue.merged').map((e) => e.pull_request)).toEqual([1, 2]);
    expect(s.state.pause).toMatchObject({ paused: true });
    const pause = s.events('queue.pause.create');
    expect(pause).toHaveLength(1);
    expect(pause[0]!.metadata).toEqual({
      reason:
        'Merge integrity: after batch-1 (#1, #2) merged into main, its tree tree-without-part-of-2 (commit main-2) is not the tested tree tree-of-test-batch-1-1 (commit test-batch-1-1)',
      created_by: APP_ACTOR,
    });
    const explained = s
      .effects('publish_check_run')
      .filter((e) => e.details.kind === 'integrity_failed')
      .map((e) => [e.number, e.conclusion]);
    expect(explained).toEqual([
      [1, 'failure'],
      [2, 'failure'],
    ]);
    expect(s.effects('merge_pr').map((e) => e.number)).toEqual([1, 2]);
    expect(s.state.mergeIntegrity?.counts.different).toBe(1);
  });

  it('the next batch does not merge while the batch ahead is being verified', () => {
    const s = scenario({
      queue_rules: [{ name: 'default', batch_size: 1 }],
      merge_queue: { max_parallel_checks: 2 },
    });
    s.queue(1, 2);
    // The read never comes back: batch-2 has passed but must not merge on an unverified base.
    s.runUntilIdle({ verify: () => ({ type: 'tick' }) });
    expect(s.events('action.queue.merged').map((e) => e.pull_request)).toEqual([1]);
    expect(s.effects('merge_pr').map((e) => e.number)).toEqual([1]);
  });

  it('a push by someone else after the merge is told apart from an integrity failure', () => {
    const s = scenario({ queue_rules: [{ name: 'default', batch_size: 2 }] });
    s.queue(1, 2);
    s.runUntilIdle({
      verify: landed(
        () => 'tree-with-their-commit',
        () => 'their-commit',
      ),
    });
    expect(s.state.pause.paused).toBe(false);
    expect(s.state.mergeIntegrity?.counts).toMatchObject({ base_moved_outside: 1, different: 0 });
  });

  it('a batch tested before the base first moved (its head unknown then) merges on another base: told apart, no pause', () => {
    const s = scenario({ queue_rules: [{ name: 'default', batch_size: 2 }] });
    s.queue(1, 2);
    // The first push the engine hears of, while batch-1 is tested on the head it did not know.
    s.later('1m', { type: 'base_branch_moved', branch: 'main', sha: 'their-commit' });
    s.runUntilIdle({
      verify: landed(
        () => 'tree-with-their-commit',
        () => 'main-2',
        ['main-1'],
      ),
    });
    expect(s.events('action.queue.merged').map((e) => e.pull_request)).toEqual([1, 2]);
    expect(s.state.pause.paused).toBe(false);
    expect(s.state.mergeIntegrity?.counts).toMatchObject({ base_moved_outside: 1, different: 0 });
  });

  it('a batch merged partially is held to the tree of the prefix that merged', () => {
    const s = scenario({ queue_rules: [{ name: 'default', batch_size: 3 }] });
    s.queue(1, 2, 3);
    s.runUntilIdle({
      trees: true,
      merge: (effect) =>
        effect.number === 2 ? { type: 'merge_failed', number: 2, reason: 'refused' } : null,
      verify: (effect) => ({
        type: 'base_tree_read',
        batchId: effect.batchId,
        base: effect.base,
        headSha: 'main-1',
        treeSha: effect.expectedTree ?? 'none',
        parentShas: [],
        testedTree: null,
      }),
    });
    const first = s.effects('verify_merge')[0]!;
    expect(first.expectedTree).toBe('test-batch-1-1-up-to-1');
    expect(s.state.mergeIntegrity?.recent[0]).toMatchObject({
      pullRequests: [1],
      partial: true,
      outcome: 'equal',
    });
  });
});
