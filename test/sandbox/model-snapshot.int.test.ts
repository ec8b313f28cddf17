import { afterEach, describe, expect, it } from 'vitest';
import { SandboxCi } from '../../app/sandbox/ci.ts';
import { VirtualClock } from '../../app/sandbox/clock.ts';
import type { Repository } from '../../app/sandbox/entities.ts';
import { SandboxGithub } from '../../app/sandbox/model.ts';
import type { SandboxSnapshot } from '../../app/sandbox/model-snapshot.ts';
import { type SandboxServer, startSandboxServer } from '../../app/sandbox/server.ts';
import type { CiModel } from '../../app/sim/ci-model.ts';
import { type SandboxHarness, startSandboxHarness } from '../support/sandbox-harness.ts';

const MINUTE = 60_000;
const steady: CiModel = { seed: 11, medianMs: 10 * MINUTE, spread: 0, flakeRate: 0 };

let h: SandboxHarness | undefined;
let restoredServer: SandboxServer | undefined;
afterEach(async () => {
  await restoredServer?.close();
  restoredServer = undefined;
  await h?.close();
  h = undefined;
});

/** Through JSON and back, as sandbox.json stores it: nothing may depend on object identity or Maps surviving. */
const viaJson = (snapshot: SandboxSnapshot): SandboxSnapshot => JSON.parse(JSON.stringify(snapshot));

/** A repository that has seen a bit of everything: merges of each method, a conflict, comments, reactions, labels, reviews, checks, statuses, CI runs. */
async function busyRepository(harness: SandboxHarness): Promise<Repository> {
  const { github, clock } = harness;
  const ci = new SandboxCi({ github, clock, model: steady });
  const { repo, octokit } = harness.installedRepository('busy', { 'a.txt': 'a\n', 'shared.txt': 'base\n' });
  github.grant(repo, 'alice', 'write');
  const one = github.openPullRequest(repo, { author: 'alice', title: 'One', files: { 'b.txt': 'b\n' } });
  const two = github.openPullRequest(repo, {
    author: 'bob',
    title: 'Two',
    files: { 'shared.txt': 'two\n', 'c.txt': 'c\n' },
    labels: ['hotfix'],
  });
  const three = github.openPullRequest(repo, {
    author: 'carol',
    title: 'Three',
    files: { 'shared.txt': 'three\n' },
  });
  const four = github.openPullRequest(repo, { author: 'dave', title: 'Four', files: { 'd.txt': 'd\n' } });
  ci.markBad(repo, four.number);
  clock.advance(20 * MINUTE); // CI concludes on every head

  const comment = github.issues.comment(repo, {
    number: one.number,
    body: '@trainyard queue',
    user: github.account('alice'),
  });
  await octokit.rest.reactions.createForIssueComment({
    owner: 'acme',
    repo: 'busy',
    comment_id: comment.id,
    content: '+1',
  });
  github.pulls.review(repo, one.number, { user: github.account('bob'), state: 'APPROVED' });
  await octokit.rest.checks.create({ owner: 'acme', repo: 'busy', name: 'trainyard', head_sha: one.headSha });
  github.checks.createStatus(repo, {
    sha: one.headSha,
    state: 'success',
    context: 'lint',
    creator: github.account('alice'),
  });

  const bot = github.app.bot;
  github.pulls.merge(repo, one.number, { method: 'merge', sender: bot });
  github.pulls.merge(repo, two.number, { method: 'squash', sender: bot });
  expect(github.pulls.mergeable(repo, github.pulls.get(repo, three.number))).toBe(false);
  github.pushToPullRequest(repo, four.number, { files: { 'd.txt': 'd2\n' } });
  github.pulls.merge(repo, four.number, { method: 'rebase', sender: bot });
  github.pulls.edit(repo, three.number, { state: 'closed', sender: github.account('carol') });
  clock.advance(20 * MINUTE);
  ci.close();
  await harness.server.webhooks.flush();
  return repo;
}

describe('sandbox snapshot', () => {
  it('round-trips through JSON: the restored model snapshots to the same thing', async () => {
    h = await startSandboxHarness();
    await busyRepository(h);
    const snapshot = h.github.toSnapshot();
    const restored = SandboxGithub.fromSnapshot(viaJson(snapshot), {
      clock: new VirtualClock(h.clock.now()),
    });
    expect(restored.toSnapshot()).toEqual(snapshot);
    // Sanity: the round trip carried real content, not two empty snapshots.
    const [repo] = snapshot.repositories;
    expect(repo!.pulls).toHaveLength(4);
    expect(repo!.graph.commits.length).toBeGreaterThan(8);
    expect(repo!.checkRuns.length).toBeGreaterThan(4);
    expect(repo!.comments[0]!.reactions).toHaveLength(1);
  });

  it('keeps branches, SHAs, history, files and mergeability', async () => {
    h = await startSandboxHarness();
    const repo = await busyRepository(h);
    const restored = SandboxGithub.fromSnapshot(viaJson(h.github.toSnapshot()), {
      clock: new VirtualClock(h.clock.now()),
    });
    const again = restored.repository('acme', 'busy')!;
    expect([...again.branches]).toEqual([...repo.branches]);
    expect(restored.shaHistory(again, 'main')).toEqual(h.github.shaHistory(repo, 'main'));
    expect(restored.fileText(again, 'main', 'shared.txt')).toBe('two\n');
    expect(restored.fileText(again, 'main', 'd.txt')).toBe('d2\n');
    const three = restored.pulls.get(again, 3);
    expect(restored.pulls.mergeable(again, three)).toBeNull(); // closed
    expect(restored.pulls.files(again, 3).map((f) => f.path)).toEqual(['shared.txt']);
    expect(restored.checks.runsFor(again, repo.pulls.get(4)!.headSha, { latestOnly: true })).toHaveLength(1);
  });

  it('goes on from where it was: numbers and ids continue, people and apps are one object each', async () => {
    h = await startSandboxHarness();
    const repo = await busyRepository(h);
    const restored = SandboxGithub.fromSnapshot(viaJson(h.github.toSnapshot()), {
      clock: new VirtualClock(h.clock.now()),
    });
    const again = restored.repository('acme', 'busy')!;
    const next = restored.openPullRequest(again, {
      author: 'alice',
      title: 'Five',
      files: { 'e.txt': 'e\n' },
    });
    expect(next.number).toBe(5);
    expect(next.id).toBe(Math.max(...[...repo.pulls.values()].map((p) => p.id)) + 1);
    const comment = restored.issues.comment(again, {
      number: 5,
      body: 'hi',
      user: restored.account('alice'),
    });
    expect(comment.id).toBe(Math.max(...[...repo.comments.keys()]) + 1);
    expect(restored.account('zed').id).toBe(Math.max(...h.github.toSnapshot().accounts.map((a) => a.id)) + 1);

    expect(next.user).toBe(restored.findAccount('alice'));
    expect(restored.app.bot).toBe(restored.findAccount('trainyard[bot]'));
    const checkRuns = [...again.checkRuns.values()];
    expect(checkRuns.find((r) => r.name === 'trainyard')!.app).toBe(restored.app);
    expect(checkRuns.find((r) => r.name === 'ci')!.app).toBe(restored.actionsApp);
    expect(restored.access.installationOf(again, restored.app.id)?.id).toBe(
      h.github.access.installationOf(repo, h.github.app.id)?.id,
    );
  });

  it('serves the restored model over HTTP: the installation gets tokens, PRs read and merge', async () => {
    h = await startSandboxHarness();
    const repo = await busyRepository(h);
    const restored = SandboxGithub.fromSnapshot(viaJson(h.github.toSnapshot()), {
      clock: new VirtualClock(h.clock.now()),
    });
    const again = restored.repository('acme', 'busy')!;
    const five = restored.openPullRequest(again, {
      author: 'alice',
      title: 'Five',
      files: { 'e.txt': 'e\n' },
    });
    restoredServer = await startSandboxServer({ github: restored });
    const installationId = restored.access.installationOf(again, restored.app.id)!.id;
    // The harness's octokit factory, pointed at the restored server.
    const { ProbotOctokit } = await import('probot');
    const { generateKeyPairSync } = await import('node:crypto');
    const { privateKey } = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    const octokit = new ProbotOctokit({
      baseUrl: restoredServer.url,
      auth: { appId: restored.app.id, privateKey, installationId },
      retry: { enabled: false },
      throttle: { enabled: false },
    });
    const { data: pull } = await octokit.rest.pulls.get({ owner: 'acme', repo: 'busy', pull_number: 4 });
    expect(pull).toMatchObject({ merged: true, merge_commit_sha: repo.pulls.get(4)!.mergeCommitSha });
    const { data: merged } = await octokit.rest.pulls.merge({
      owner: 'acme',
      repo: 'busy',
      pull_number: five.number,
      merge_method: 'merge',
    });
    expect(merged.merged).toBe(true);
    expect(restored.shaHistory(again, 'main').slice(0, 2)).toEqual([
      'merge-pr-5',
      h.github.label(repo, repo.branches.get('main')!),
    ]);
  });

  it('refuses a damaged snapshot rather than serve a different history', async () => {
    h = await startSandboxHarness();
    await busyRepository(h);
    const snapshot = viaJson(h.github.toSnapshot());
    const commit = snapshot.repositories[0]!.graph.commits[2]!;
    commit.message = `${commit.message} (edited)`;
    expect(() => SandboxGithub.fromSnapshot(snapshot, { clock: new VirtualClock() })).toThrow(
      /snapshot is damaged: commit .* came out as/,
    );
  });
});

describe('simulated CI across a restart', () => {
  it('finishes the runs that were under way, with the truths it knew', async () => {
    h = await startSandboxHarness();
    const { github, clock } = h;
    const ci = new SandboxCi({ github, clock, model: steady });
    const { repo } = h.installedRepository('ci-restart');
    const good = github.openPullRequest(repo, { author: 'alice', title: 'Good', files: { 'g.txt': 'g' } });
    clock.advance(3 * MINUTE); // good's run is in progress
    const bad = github.openPullRequest(repo, { author: 'bob', title: 'Bad', files: { 'b.txt': 'b' } });
    ci.markBad(repo, bad.number);
    clock.advance(1_000);
    const later = github.openPullRequest(repo, { author: 'carol', title: 'Later', files: { 'l.txt': 'l' } });
    clock.advance(1_500); // bad's run is queued, not started; later's push is not yet picked up
    const ciSnapshot = JSON.parse(JSON.stringify(ci.toSnapshot()));
    const modelSnapshot = viaJson(github.toSnapshot());
    ci.close();
    expect(ciSnapshot.pickups).toHaveLength(1);
    expect(ciSnapshot.unfinished).toHaveLength(2);

    const clock2 = new VirtualClock(clock.now());
    const restored = SandboxGithub.fromSnapshot(modelSnapshot, { clock: clock2 });
    const ci2 = new SandboxCi({ github: restored, clock: clock2, model: steady, restore: ciSnapshot });
    const again = restored.repository('acme', 'ci-restart')!;
    const state = (sha: string) => {
      const [run] = restored.checks.runsFor(again, sha, { checkName: 'ci', latestOnly: true });
      return run ? `${run.status}/${run.conclusion}` : 'none';
    };
    expect(state(good.headSha)).toBe('in_progress/null');
    expect(state(bad.headSha)).toBe('queued/null');
    expect(state(later.headSha)).toBe('none');
    // good started 5 s after its push (pickup + start delays), and runs ten minutes from there.
    clock2.advanceTo(good.createdAt + 5_000 + 10 * MINUTE - 1);
    expect(state(good.headSha)).toBe('in_progress/null');
    clock2.advance(1);
    expect(state(good.headSha)).toBe('completed/success');
    clock2.advance(30 * MINUTE);
    expect([state(bad.headSha), state(later.headSha)]).toEqual(['completed/failure', 'completed/success']);
    expect(ci2.truthOf(again, bad.number).bad).toBe(true);
    ci2.close();
  });
});
