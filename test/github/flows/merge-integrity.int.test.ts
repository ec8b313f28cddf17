import { afterEach, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { PullRequest, Repository } from '../../../app/sandbox/entities.ts';
import { dropPreviousChange } from '../../../app/sandbox/merge-landing.ts';
import type { mergeIntegritySchema } from '../../../shared/schemas/merge-queue.schema.ts';
import { installRepository, startTrainyard, type Tester } from '../../support/trainyard-tester.ts';

const MINUTE = 60_000;
let t: Tester;
let repo: Repository;

afterEach(async () => {
  await t?.close();
});

async function start(method: string, parallel = 2): Promise<void> {
  t = await startTrainyard();
  repo = installRepository(t, 'widgets', {
    'README.md': 'hello\n',
    '.github/trainyard.yml': `queue_rules:\n  - name: default\n    batch_size: 2\n    merge_method: ${method}\nmerge_queue:\n  max_parallel_checks: ${parallel}\n`,
  });
  await t.settle();
}

function open(count: number): PullRequest[] {
  return Array.from({ length: count }, (_, i) =>
    t.github.openPullRequest(repo, {
      author: 'alice',
      title: `Change ${i + 1}`,
      files: { [`file-${i + 1}.txt`]: `${i + 1}\n` },
    }),
  );
}

type IntegrityView = z.infer<typeof mergeIntegritySchema>;

async function integrity(): Promise<IntegrityView | undefined> {
  const { body } = await t.api<{ merge_integrity?: IntegrityView }>(
    '/v1/repos/acme/widgets/merge-queue/status',
  );
  return body.merge_integrity;
}

/** Every REST request the app makes to the code host on this repository. */
function countRequests(): { count: number } {
  const counter = { count: 0 };
  repo.requestBehaviour = {
    attempt() {
      counter.count++;
    },
  };
  return counter;
}

describe('merge integrity against the sandbox code host', () => {
  it.each(['squash', 'merge', 'rebase'])(
    'with merge_method %s every merged batch is verified and found equal, one read each',
    async (method) => {
      await start(method);
      const prs = open(6);
      await t.settle();
      const requests = countRequests();
      for (const pr of prs) t.comment(repo, pr.number, '@trainyard queue');
      await t.settle();
      await t.advance(90 * MINUTE);

      expect(
        t.merges
          .map((m) => m.number)
          .filter((n) => n <= 6)
          .sort((a, b) => a - b),
      ).toEqual([1, 2, 3, 4, 5, 6]);
      for (let n = 1; n <= 6; n++) expect(t.github.fileText(repo, 'main', `file-${n}.txt`)).toBe(`${n}\n`);
      const view = await integrity();
      expect(view?.counts).toEqual({ equal: 3, different: 0, base_moved_outside: 0, tree_unknown: 0 });
      const verified = view!.recent.flatMap((r) => r.pull_requests).sort((a, b) => a - b);
      expect(verified).toEqual([1, 2, 3, 4, 5, 6]);
      for (const r of view!.recent) expect(r.landed_tree).toBe(r.tested_tree);
      const mainTree = t.github.git.resolve(repo, 'main')!.treeSha;
      expect(view!.recent[0]!.landed_tree).toBe(mainTree);
      // Per pull request: its batch's verification, and one event in its log.
      for (let n = 1; n <= 6; n++) {
        const one = await t.api<IntegrityView['recent'][number]>(
          `/v1/repos/acme/widgets/merge-queue/pull/${n}/merge-integrity`,
        );
        expect(one.status).toBe(200);
        expect(one.body).toMatchObject({ outcome: 'equal', pull_requests: expect.arrayContaining([n]) });
      }
      const verifiedEvents = (await t.events(repo)).filter((e) => e.type === 'action.queue.merge_verified');
      expect(verifiedEvents.map((e) => e.pull_request).sort((a, b) => a! - b!)).toEqual([1, 2, 3, 4, 5, 6]);
      expect(verifiedEvents[0]!.metadata).toMatchObject({ outcome: 'equal', branch: 'main' });
      const notMerged = await t.api('/v1/repos/acme/widgets/merge-queue/pull/7/merge-integrity');
      expect(notMerged.status).toBe(404);
      expect(await t.leftovers()).toEqual({ outbox: 0, deliveries: 0, dueTimers: 0 });
      console.log(
        `merge integrity flow (${method}): ${requests.count} requests to the code host for 3 merged batches`,
      );
    },
  );

  it('with merge_method fast-forward the tested commit itself becomes the base, verified equal', async () => {
    await start('fast-forward', 1);
    const prs = open(2);
    await t.settle();
    for (const pr of prs) t.comment(repo, pr.number, '@trainyard queue');
    await t.settle();
    await t.advance(30 * MINUTE);
    expect(t.merges.map((m) => m.number).filter((n) => n <= 2)).toEqual([1, 2]);
    const view = await integrity();
    expect(view?.counts).toEqual({ equal: 1, different: 0, base_moved_outside: 0, tree_unknown: 0 });
    const main = t.github.git.resolve(repo, 'main')!;
    expect(view!.recent[0]).toMatchObject({
      pull_requests: [1, 2],
      landed_tree: main.treeSha,
      tested_tree: main.treeSha,
    });
    expect(t.github.pulls.get(repo, 1).mergeCommitSha).toBe(main.sha);
  });

  it.each([1, 2])(
    'with merge_method fast-forward and max_parallel_checks %d, batches behind are built on the tested commit ahead and each lands by fast-forward',
    async (parallel) => {
      await start('fast-forward', parallel);
      const prs = open(6);
      await t.settle();
      for (const pr of prs) t.comment(repo, pr.number, '@trainyard queue');
      await t.settle();
      await t.advance(90 * MINUTE);

      const leaves = (await t.events(repo)).filter((e) => e.type === 'action.queue.leave');
      expect(leaves.map((e) => [e.pull_request, e.metadata.reason])).toEqual(
        [1, 2, 3, 4, 5, 6].map((n) => [n, 'PR_MERGED']),
      );
      for (let n = 1; n <= 6; n++) expect(t.github.fileText(repo, 'main', `file-${n}.txt`)).toBe(`${n}\n`);
      const view = await integrity();
      expect(view?.counts).toEqual({ equal: 3, different: 0, base_moved_outside: 0, tree_unknown: 0 });
      // The base went through each batch's tested commit in turn: no merge commit of the app on it.
      const main = t.github.git.resolve(repo, 'main')!;
      expect(view!.recent.map((r) => r.tested_sha)).toContain(main.sha);
      for (const r of view!.recent) expect(r.landed_sha).toBe(r.tested_sha);
      expect(await t.leftovers()).toEqual({ outbox: 0, deliveries: 0, dueTimers: 0 });
    },
    120_000,
  );

  it('a squash that lands a tree dropping part of another PR’s change pauses the queue at the first wrong merge; nothing merges after it', async () => {
    await start('squash');
    const prs = open(4);
    await t.settle();
    repo.mergeLanding = dropPreviousChange();
    for (const pr of prs) t.comment(repo, pr.number, '@trainyard queue');
    await t.settle();
    await t.advance(90 * MINUTE);

    // batch-1 (#1, #2): #2's squash dropped #1's file. Nothing of batch-2 merged after it.
    expect(t.merges.map((m) => m.number)).toEqual([1, 2]);
    expect(t.github.fileText(repo, 'main', 'file-1.txt')).toBeNull();
    for (const n of [3, 4]) expect(t.github.pulls.get(repo, n).merged).toBe(false);

    const view = await integrity();
    expect(view?.counts).toMatchObject({ different: 1, equal: 0 });
    const [wrong] = view!.recent;
    expect(wrong).toMatchObject({ batch: 'batch-1', pull_requests: [1, 2], outcome: 'different' });
    const landed = t.github.git.resolve(repo, 'main')!;
    expect(wrong!.landed_tree).toBe(landed.treeSha);
    expect(wrong!.tested_tree).not.toBe(landed.treeSha);

    const pause = await t.api<{ reason: string }>('/v1/repos/acme/widgets/merge-queue/pause');
    expect(pause.status).toBe(200);
    expect(pause.body.reason).toContain('batch-1 (#1, #2)');
    expect(pause.body.reason).toContain(landed.treeSha);
    expect(pause.body.reason).toContain(wrong!.tested_tree!);
    const paused = (await t.events(repo)).filter((e) => e.type === 'queue.pause.create');
    expect(paused).toHaveLength(1);
    expect(paused[0]!.metadata).toMatchObject({
      reason: pause.body.reason,
      created_by: { type: 'application', name: 'Trainyard (merge integrity)' },
    });

    const perPull = await t.api<IntegrityView['recent'][number]>(
      '/v1/repos/acme/widgets/merge-queue/pull/2/merge-integrity',
    );
    expect(perPull.body).toMatchObject({
      outcome: 'different',
      batch: 'batch-1',
      landed_tree: landed.treeSha,
    });
    const verifiedEvents = (await t.events(repo)).filter((e) => e.type === 'action.queue.merge_verified');
    expect(verifiedEvents.map((e) => [e.pull_request, e.metadata.outcome])).toEqual([
      [1, 'different'],
      [2, 'different'],
    ]);
    for (const n of [1, 2]) {
      const check = t.trainyardCheck(repo, n);
      expect(check?.conclusion).toBe('failure');
      expect(check?.title).toBe('Merged, but main is not what batch-1 tested: the merge queue is paused');
    }

    // Unpausing through the API works as for any pause: the rest of the queue merges (correctly now).
    repo.mergeLanding = { land: ({ tree }) => tree };
    const unpause = await t.api('/v1/repos/acme/widgets/merge-queue/pause', { method: 'DELETE' });
    expect(unpause.status).toBe(204);
    await t.advance(60 * MINUTE);
    expect(t.merges.map((m) => m.number)).toEqual([1, 2, 3, 4]);
    expect((await integrity())?.counts).toMatchObject({ different: 1, equal: 1 });
  });
});
