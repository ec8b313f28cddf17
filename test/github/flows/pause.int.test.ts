import { afterEach, describe, expect, it } from 'vitest';
import type { PullRequest, Repository } from '../../../app/sandbox/entities.ts';
import { installRepository, startTrainyard, type Tester } from '../../support/trainyard-tester.ts';

const MINUTE = 60_000;
const PAUSE = '/v1/repos/acme/widgets/merge-queue/pause';
let t: Tester;

afterEach(async () => {
  await t?.close();
});

async function setUp(config: string): Promise<Repository> {
  t = await startTrainyard();
  const repo = installRepository(t, 'widgets', { 'README.md': 'hello\n', '.github/trainyard.yml': config });
  await t.settle();
  return repo;
}

function open(repo: Repository, n: number): PullRequest {
  return t.github.openPullRequest(repo, {
    author: 'alice',
    title: `Change ${n}`,
    files: { [`file-${n}.txt`]: `${n}\n` },
  });
}

const testBranches = (repo: Repository) =>
  [...repo.branches.keys()].filter((b) => b.startsWith('trainyard/merge-queue/'));

describe('pausing the merge queue while batches run (sandbox code host)', () => {
  it('pause closes the running draft PRs and nothing merges or starts, even after CI would have passed; unpause resumes and merges', async () => {
    const repo = await setUp('queue_rules:\n  - name: default\n');
    const prs = [open(repo, 1), open(repo, 2)];
    await t.settle();
    for (const pr of prs) t.comment(repo, pr.number, '@trainyard queue');
    await t.settle();
    await t.advance(MINUTE); // batch_max_wait_time passes; the batches are on their drafts
    const running = t.drafts(repo);
    expect(running).toHaveLength(2);

    const paused = await t.api(PAUSE, { method: 'PUT', body: { reason: 'deploy freeze' } });
    expect(paused.status).toBe(200);
    await t.settle();
    // The drafts of the running batches are closed and their branches deleted.
    for (const draft of running) expect(t.github.pulls.get(repo, draft.number).state).toBe('closed');
    expect(t.drafts(repo)).toEqual([]);
    expect(testBranches(repo)).toEqual([]);
    const stopped = (await t.events(repo)).filter(
      (e) => e.type === 'action.queue.checks_end' && e.metadata.abort_code !== null,
    );
    expect(stopped.map((e) => [e.pull_request, e.metadata.abort_code])).toEqual([
      [1, 'PR_CHECKS_STOPPED_BECAUSE_MERGE_QUEUE_PAUSE'],
      [2, 'PR_CHECKS_STOPPED_BECAUSE_MERGE_QUEUE_PAUSE'],
    ]);

    // Long after CI would have passed: nothing merged, no batch started, the PRs still queued.
    await t.advance(60 * MINUTE);
    expect(t.merges).toEqual([]);
    expect(t.drafts(repo)).toEqual([]);
    // A PR may still enter while paused; it waits too.
    const late = open(repo, 3);
    await t.settle();
    t.comment(repo, late.number, '@trainyard queue');
    await t.advance(30 * MINUTE);
    expect(t.merges).toEqual([]);
    const status = await t.api<{ waiting_pull_requests: { number: number }[] }>(
      '/v1/repos/acme/widgets/merge-queue/status',
    );
    expect(status.body.waiting_pull_requests.map((p) => p.number)).toEqual([1, 2, late.number]);
    expect(t.trainyardCheck(repo, 1)?.summary).toContain('The merge queue is paused');
    const lines = await t.eventLines(repo);
    expect(lines).toContain('queue.pause.create');
    expect(lines.filter((l) => l.startsWith('action.queue.leave'))).toEqual([]);

    const unpaused = await t.api(PAUSE, { method: 'DELETE' });
    expect(unpaused.status).toBe(204);
    await t.settle();
    expect(t.drafts(repo).length).toBeGreaterThan(0);
    await t.advance(30 * MINUTE);
    expect(t.merges.map((m) => m.number)).toEqual([1, 2, late.number]);
    for (const n of [1, 2, 3]) expect(t.github.fileText(repo, 'main', `file-${n}.txt`)).toBe(`${n}\n`);
    expect(t.drafts(repo)).toEqual([]);
    expect(testBranches(repo)).toEqual([]);
    const after = await t.eventLines(repo);
    expect(after.indexOf('queue.pause.delete')).toBeLessThan(after.indexOf('action.queue.merged #1'));
    expect(await t.leftovers()).toEqual({ outbox: 0, deliveries: 0, dueTimers: 0 });
  });

  it('an in-place check is not cancelled by a pause: it passes, nothing merges until unpaused, then it merges without a new run', async () => {
    const repo = await setUp('queue_rules:\n  - name: default\nmerge_queue:\n  max_parallel_checks: 1\n');
    const pr = open(repo, 1);
    await t.settle();
    t.comment(repo, pr.number, '@trainyard queue');
    await t.advance(MINUTE);
    expect(t.drafts(repo, true)).toEqual([]); // tested on the PR itself
    const runsBefore = t.ci.runs().length;

    expect((await t.api(PAUSE, { method: 'PUT', body: { reason: 'incident' } })).status).toBe(200);
    await t.advance(30 * MINUTE);
    // CI passed on the PR while paused, and nothing merged.
    expect(t.ci.runs().at(-1)).toMatchObject({ sha: pr.headSha, conclusion: 'success' });
    expect(t.merges).toEqual([]);
    expect(t.github.pulls.get(repo, 1).state).toBe('open');

    expect((await t.api(PAUSE, { method: 'DELETE' })).status).toBe(204);
    await t.settle();
    expect(t.merges).toEqual([{ repo: 'widgets', number: 1 }]);
    expect(t.ci.runs().filter((r) => r.branch !== 'main').length).toBe(
      t.ci
        .runs()
        .slice(0, runsBefore)
        .filter((r) => r.branch !== 'main').length,
    );
    expect(await t.leftovers()).toEqual({ outbox: 0, deliveries: 0, dueTimers: 0 });
  });
});
