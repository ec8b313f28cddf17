import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SandboxCi, type SandboxCiOptions } from '../../app/sandbox/ci.ts';
import { VirtualClock } from '../../app/sandbox/clock.ts';
import type { Repository } from '../../app/sandbox/entities.ts';
import { SandboxGithub } from '../../app/sandbox/model.ts';
import type { CiModel } from '../../app/sim/ci-model.ts';
import { type SandboxHarness, startSandboxHarness } from '../support/sandbox-harness.ts';

const MINUTE = 60_000;
/** Ten-minute runs, no flakes: outcomes depend only on what is tested. */
const steady: CiModel = { seed: 7, medianMs: 10 * MINUTE, spread: 0, flakeRate: 0 };

let h: SandboxHarness;
let ci: SandboxCi | undefined;
beforeEach(async () => {
  h = await startSandboxHarness();
});
afterEach(async () => {
  ci?.close();
  ci = undefined;
  await h.close();
});

function startCi(options: Partial<SandboxCiOptions> = {}): SandboxCi {
  ci = new SandboxCi({ github: h.github, clock: h.clock, model: steady, ...options });
  return ci;
}

/** The newest `ci` check run on a commit, as the app would read it. */
function checkOn(repo: Repository, sha: string) {
  const [run] = h.github.checks.runsFor(repo, sha, { checkName: 'ci', latestOnly: true });
  return run ? `${run.status}${run.conclusion ? `/${run.conclusion}` : ''}` : 'none';
}

/** A test branch: the base plus the PRs merged in order, as the app prepares a batch. */
function batch(repo: Repository, name: string, numbers: number[]): string {
  const bot = h.github.app.bot;
  h.github.git.createBranch(repo, { branch: name, sha: repo.branches.get('main')!, sender: bot });
  for (const n of numbers) {
    h.github.git.mergeIntoBranch(repo, {
      base: name,
      head: h.github.pulls.get(repo, n).headSha,
      message: `Merge #${n}`,
      sender: bot,
    });
  }
  return repo.branches.get(name)!;
}

describe('simulated CI', () => {
  it('runs on every push: queued after pickup, in progress, concluded after the model’s duration', async () => {
    startCi();
    const { repo } = h.installedRepository('timeline');
    const pr = h.github.openPullRequest(repo, { author: 'alice', title: 'Timed', files: { 'a.txt': 'a' } });
    expect(checkOn(repo, pr.headSha)).toBe('none');
    h.clock.advance(2_000);
    expect(checkOn(repo, pr.headSha)).toBe('queued');
    h.clock.advance(3_000);
    expect(checkOn(repo, pr.headSha)).toBe('in_progress');
    h.clock.advance(10 * MINUTE - 1);
    expect(checkOn(repo, pr.headSha)).toBe('in_progress');
    h.clock.advance(1);
    expect(checkOn(repo, pr.headSha)).toBe('completed/success');

    const [run] = h.github.checks.runsFor(repo, pr.headSha, { latestOnly: true });
    expect(run).toMatchObject({
      startedAt: Date.UTC(2026, 10, 2, 9, 0, 5),
      completedAt: Date.UTC(2026, 10, 2, 9, 10, 5),
    });
    expect(run!.app.slug).toBe('github-actions');
    await h.server.webhooks.flush();
    expect(h.receiver.names().filter((n) => n.startsWith('check_'))).toEqual([
      'check_run.created',
      'check_run.completed',
      'check_suite.completed',
    ]);
  });

  it('a new push to a branch cancels the unfinished run of its previous head (concurrency group)', () => {
    startCi();
    const { repo } = h.installedRepository('superseded');
    const pr = h.github.openPullRequest(repo, { author: 'alice', title: 'Twice', files: { 'a.txt': 'a' } });
    const first = pr.headSha;
    h.clock.advance(5 * MINUTE);
    h.github.pushToPullRequest(repo, pr.number, { files: { 'a.txt': 'aa' } });
    h.clock.advance(2_000);
    expect([checkOn(repo, first), checkOn(repo, pr.headSha)]).toEqual(['completed/cancelled', 'queued']);
    h.clock.advance(15 * MINUTE);
    expect(checkOn(repo, pr.headSha)).toBe('completed/success');
  });

  it('a PR marked bad fails every batch that contains it, and only those', () => {
    const ciModel = startCi({ runsOn: (_repo, branch) => branch.startsWith('trainyard/') });
    const { repo } = h.installedRepository('bad-pr');
    const [, two] = ['a', 'b', 'c'].map((f) =>
      h.github.openPullRequest(repo, { author: 'alice', title: `Change ${f}`, files: { [`${f}.txt`]: f } }),
    );
    ciModel.markBad(repo, two!.number);
    const all = batch(repo, 'trainyard/merge-queue/a', [1, 2, 3]);
    const prefix = batch(repo, 'trainyard/merge-queue/b', [1]);
    const without = batch(repo, 'trainyard/merge-queue/c', [1, 3]);
    const alone = batch(repo, 'trainyard/merge-queue/d', [2]);
    // The app's draft PR around a batch is not itself a tested PR.
    h.github.pulls.open(repo, {
      head: 'trainyard/merge-queue/a',
      base: 'main',
      title: 'batch a',
      draft: true,
      user: h.github.app.bot,
    });
    h.clock.advance(15 * MINUTE);

    expect([all, prefix, without, alone].map((sha) => checkOn(repo, sha))).toEqual([
      'completed/failure',
      'completed/success',
      'completed/success',
      'completed/failure',
    ]);
    // One run per batch: the intermediate pushes of a batch being built were superseded.
    expect(
      ciModel
        .runs()
        .map(
          (r) =>
            `${r.branch.slice(-1)} ${r.tested.join(',')} ${r.outcome?.cause ?? 'passed'} ${r.outcome?.culprits.join(',')}`,
        ),
    ).toEqual(['a 1,2,3 bad 2', 'b 1 passed ', 'c 1,3 passed ', 'd 2 bad 2']);
    const [failed] = h.github.checks.runsFor(repo, all, { latestOnly: true });
    expect(failed).toMatchObject({ title: 'Build failed', summary: 'Tested #1, #2, #3: bad (#2).' });
  });

  it('semantic conflicts: two PRs pass alone and fail together, and the later one fails on a base that has the other', () => {
    const ciModel = startCi({ runsOn: (_repo, branch) => branch.startsWith('trainyard/') });
    const { repo, octokit } = h.installedRepository('conflicts');
    h.github.openPullRequest(repo, { author: 'alice', title: 'Left', files: { 'left.txt': 'l' } });
    h.github.openPullRequest(repo, { author: 'bob', title: 'Right', files: { 'right.txt': 'r' } });
    ciModel.setTruth(repo, 1, { conflictsWith: [2] });
    ciModel.setTruth(repo, 2, { conflictsWith: [1] });
    const together = batch(repo, 'trainyard/merge-queue/both', [1, 2]);
    const left = batch(repo, 'trainyard/merge-queue/left', [1]);
    h.clock.advance(15 * MINUTE);
    expect([checkOn(repo, together), checkOn(repo, left)]).toEqual([
      'completed/failure',
      'completed/success',
    ]);
    expect(ciModel.runs()[0]!.outcome).toMatchObject({ cause: 'conflict', culprits: [2] });

    return octokit.rest.pulls.merge({ owner: 'acme', repo: 'conflicts', pull_number: 1 }).then(() => {
      const right = batch(repo, 'trainyard/merge-queue/right', [2]);
      h.clock.advance(15 * MINUTE);
      expect(checkOn(repo, right)).toBe('completed/failure');
      expect(ciModel.runs().at(-1)).toMatchObject({
        tested: [2],
        outcome: { cause: 'conflict', culprits: [2] },
      });
    });
  });

  it('flaky failures follow the model’s rate and seed: the same seed gives the same outcomes', () => {
    // Two sandboxes built alike: same ids, same SHAs on the virtual clock, hence the same run keys.
    const outcomes = (seed: number) => {
      const clock = new VirtualClock();
      const github = new SandboxGithub({ clock });
      const ciModel = new SandboxCi({ github, clock, model: { ...steady, seed, flakeRate: 0.5 } });
      const repo = github.createRepository({ owner: 'acme', name: 'flaky' });
      for (let i = 0; i < 12; i++) {
        github.git.commit(repo, {
          branch: `b${i}`,
          from: 'main',
          files: { [`f${i}`]: `${i}` },
          message: `${i}`,
          author: github.account('alice'),
        });
      }
      clock.advance(15 * MINUTE);
      ciModel.close();
      return ciModel.runs().map((r) => (r.outcome?.passed ? 'pass' : r.outcome?.cause));
    };
    const first = outcomes(42);
    expect(first).toEqual(outcomes(42));
    expect(first).toHaveLength(12);
    expect(new Set(first)).toEqual(new Set(['pass', 'flaky']));
    expect(outcomes(43)).not.toEqual(first);
  });

  it('draws durations from the model’s lognormal, fixed by the seed', () => {
    const ciModel = startCi({ model: { ...steady, spread: 0.25 } });
    const { repo } = h.installedRepository('durations');
    for (let i = 0; i < 5; i++)
      h.github.openPullRequest(repo, { author: 'alice', title: `${i}`, files: { [`f${i}`]: `${i}` } });
    h.clock.advance(60 * MINUTE);
    const durations = ciModel.runs().map((r) => r.outcome!.durationMs);
    expect(new Set(durations).size).toBe(5);
    for (const d of durations) expect(d).toBeGreaterThan(3 * MINUTE);
    const runs = durations.map((d, i) => {
      const run = h.github.checks.runsFor(repo, ciModel.runs()[i]!.sha, { latestOnly: true })[0]!;
      return run.completedAt! - run.startedAt! === d;
    });
    expect(runs).toEqual([true, true, true, true, true]);
  });

  it('a workflow run cancelled through the Actions API ends cancelled and never concludes; 409 once finished', async () => {
    startCi();
    const { repo, octokit } = h.installedRepository('cancel');
    const pr = h.github.openPullRequest(repo, {
      author: 'alice',
      title: 'Cancelled',
      files: { 'a.txt': 'a' },
    });
    h.clock.advance(6_000);
    const params = { owner: 'acme', repo: 'cancel' };
    const runs = await octokit.rest.actions.listWorkflowRunsForRepo({ ...params, head_sha: pr.headSha });
    expect(runs.data.workflow_runs.map((r) => [r.status, r.name, r.event])).toEqual([
      ['in_progress', 'CI', 'push'],
    ]);
    const id = runs.data.workflow_runs[0]!.id;
    expect((await octokit.rest.actions.cancelWorkflowRun({ ...params, run_id: id })).status).toBe(202);
    h.clock.advance(20 * MINUTE);
    expect(checkOn(repo, pr.headSha)).toBe('completed/cancelled');
    const listed = await octokit.rest.actions.listWorkflowRunsForRepo({ ...params, head_sha: pr.headSha });
    expect(listed.data.workflow_runs[0]).toMatchObject({ status: 'completed', conclusion: 'cancelled' });
    await expect(octokit.rest.actions.cancelWorkflowRun({ ...params, run_id: id })).rejects.toMatchObject({
      status: 409,
    });
  });

  it('with auto off, runs wait in progress until the test concludes them', () => {
    const ciModel = startCi({ auto: false });
    const { repo } = h.installedRepository('manual');
    const pr = h.github.openPullRequest(repo, { author: 'alice', title: 'Manual', files: { 'a.txt': 'a' } });
    h.clock.advance(60 * MINUTE);
    expect(checkOn(repo, pr.headSha)).toBe('in_progress');
    ciModel.conclude(repo, pr.headSha, 'failure');
    expect(checkOn(repo, pr.headSha)).toBe('completed/failure');
  });
});
