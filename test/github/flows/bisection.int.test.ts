import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PullRequest, Repository } from '../../../app/sandbox/entities.ts';
import { installRepository, startTrainyard, type Tester } from '../../support/trainyard-tester.ts';

const MINUTE = 60_000;
let t: Tester;
let repo: Repository;

beforeEach(async () => {
  t = await startTrainyard();
  repo = installRepository(t, 'widgets', {
    'README.md': 'hello\n',
    '.github/trainyard.yml': 'queue_rules:\n  - name: default\n    batch_size: 4\n',
  });
  await t.settle();
});
afterEach(async () => {
  await t?.close();
});

function open(count: number): PullRequest[] {
  return Array.from({ length: count }, (_, i) =>
    t.github.openPullRequest(repo, {
      author: 'alice',
      title: `Change ${i + 1}`,
      files: { [`file-${i + 1}.txt`]: `${i + 1}\n` },
    }),
  );
}

describe('a failing batch is bisected to its culprit (sandbox code host, batch_size 4)', () => {
  it('four PRs queued, #3 breaks CI ⇒ #1, #2 and #4 merge once each, #3 leaves with CHECKS_FAILED and is never merged', async () => {
    const prs = open(4);
    t.ci.markBad(repo, 3);
    await t.settle();
    for (const pr of prs) t.comment(repo, pr.number, '@trainyard queue');
    await t.settle();
    await t.advance(120 * MINUTE);

    expect(t.merges.map((m) => m.number)).toEqual([1, 2, 4]);
    const culprit = t.github.pulls.get(repo, 3);
    expect(culprit.state).toBe('open');
    expect(culprit.merged).toBe(false);
    for (const n of [1, 2, 4]) expect(t.github.fileText(repo, 'main', `file-${n}.txt`)).toBe(`${n}\n`);
    expect(t.github.fileText(repo, 'main', 'file-3.txt')).toBeNull();

    // The first batch held all four and failed; the bisection found #3.
    const events = await t.events(repo);
    const starts = events.filter((e) => e.type === 'action.queue.batch_bisection_start');
    const ends = events.filter((e) => e.type === 'action.queue.batch_bisection_end');
    expect(starts.length).toBeGreaterThanOrEqual(1);
    expect(starts[0]!.metadata).toMatchObject({
      original_batch_pr_numbers: [1, 2, 3, 4],
      batch_size_before_split: 4,
      is_top_level: true,
    });
    expect(ends).toHaveLength(1);
    expect(ends[0]!.metadata).toMatchObject({ culprit_found: true, culprit_pr_numbers: [3] });
    expect(Number(starts[0]!.id)).toBeLessThan(Number(ends[0]!.id));

    // #3 left for the right reason, after the bisection ended; the others left merged.
    const leaves = events.filter((e) => e.type === 'action.queue.leave');
    expect(leaves.map((e) => [e.pull_request, e.metadata.merged])).toEqual(
      expect.arrayContaining([
        [1, true],
        [2, true],
        [3, false],
        [4, true],
      ]),
    );
    expect(leaves).toHaveLength(4);
    const left = leaves.find((e) => e.pull_request === 3)!;
    expect(String(left.metadata.reason)).toMatch(/^CHECKS_FAILED: /);
    expect(Number(left.id)).toBeGreaterThan(Number(ends[0]!.id));
    expect(events.filter((e) => e.type === 'action.queue.merged').map((e) => e.pull_request)).toEqual([
      1, 2, 4,
    ]);

    // GitHub shows it: #3's Trainyard check failed, and nothing was left running.
    const check = t.trainyardCheck(repo, 3);
    expect(check).toMatchObject({ status: 'completed', conclusion: 'failure' });
    expect(check!.summary).toContain('CHECKS_FAILED');
    // Every draft PR closed and every test branch deleted, merged batches' too.
    expect(t.drafts(repo)).toEqual([]);
    expect(t.drafts(repo, true).length).toBeGreaterThanOrEqual(2);
    expect([...repo.branches.keys()].filter((b) => b.startsWith('trainyard/'))).toEqual([]);
    expect(await t.leftovers()).toEqual({ outbox: 0, deliveries: 0, dueTimers: 0 });
    const status = await t.api<{ batches: unknown[]; waiting_pull_requests: unknown[] }>(
      '/v1/repos/acme/widgets/merge-queue/status',
    );
    expect(status.body.batches).toEqual([]);
    expect(status.body.waiting_pull_requests).toEqual([]);
  });
});
