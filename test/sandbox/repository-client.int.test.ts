import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepositoryClient } from '../../app/github/client/client.ts';
import { MergeConflictError, MergeRefusedError, NotFoundError } from '../../app/github/client/errors.ts';
import { InstallationOctokits, testRequestPolicy } from '../../app/github/client/octokit.ts';
import { createRepositoryClient } from '../../app/github/client/repository-client.ts';
import { executeEffect } from '../../app/github/outbox/effect-runner.ts';
import { appIdentityOf } from '../../app/github/outbox/effects/ownership.ts';
import { SandboxCi } from '../../app/sandbox/ci.ts';
import type { Repository } from '../../app/sandbox/entities.ts';
import { fastForwardBase, mergePr, prepareTestBranch, updatePrInPlace } from '../support/effect-builders.ts';
import { type SandboxHarness, startSandboxHarness } from '../support/sandbox-harness.ts';

/*
 * The app's own GitHub client (app/github/repository-client.ts) and effect executors, run
 * against the sandbox over HTTP: every call they make must be served the way GitHub serves it.
 */

let h: SandboxHarness;
let octokits: InstallationOctokits;
beforeAll(async () => {
  h = await startSandboxHarness();
  const { privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  octokits = new InstallationOctokits(
    { appId: h.github.app.id, privateKey, baseUrl: h.server.url },
    { policy: testRequestPolicy },
  );
});
afterAll(async () => {
  await h.close();
});

function clientFor(
  name: string,
  files?: Record<string, string>,
): { repo: Repository; client: RepositoryClient } {
  const { repo } = h.installedRepository(name, files);
  const installation = h.github.access.installationOf(repo, h.github.app.id)!;
  const client = createRepositoryClient(octokits.forInstallation(installation.id), {
    owner: 'acme',
    repo: name,
    appId: h.github.app.id,
  });
  return { repo, client };
}

describe('the app’s RepositoryClient against the sandbox', () => {
  it('branches: read, set (create or force), fast-forward, delete, merge into', async () => {
    const { repo, client } = clientFor('client-branches', { 'a.txt': 'a\n' });
    const main = repo.branches.get('main')!;
    expect(await client.getRepository()).toEqual({ id: repo.id, defaultBranch: 'main' });
    expect(await client.getBranchSha('main')).toBe(main);
    expect(await client.getBranchSha('nope/nothing')).toBeNull();

    const alice = h.github.account('alice');
    const one = h.github.git.commit(repo, {
      branch: 'one',
      from: 'main',
      files: { 'a.txt': 'A\n' },
      message: 'one',
      author: alice,
    });
    const clash = h.github.git.commit(repo, {
      branch: 'clash',
      from: 'main',
      files: { 'a.txt': 'X\n' },
      message: 'x',
      author: alice,
    });
    await client.setBranch('trainyard/merge-queue/x', main);
    await client.setBranch('trainyard/merge-queue/x', one.sha);
    expect(repo.branches.get('trainyard/merge-queue/x')).toBe(one.sha);
    await client.setBranch('trainyard/merge-queue/x', main);
    expect(repo.branches.get('trainyard/merge-queue/x')).toBe(main);

    const { sha: merged, tree } = await client.mergeIntoBranch({
      branch: 'trainyard/merge-queue/x',
      head: one.sha,
      message: 'Merge one',
    });
    expect(merged).toBe(repo.branches.get('trainyard/merge-queue/x'));
    expect(tree).toBe(repo.graph.get(merged)?.treeSha);
    expect(
      await client.mergeIntoBranch({ branch: 'trainyard/merge-queue/x', head: 'one', message: 'again' }),
    ).toEqual({ sha: merged, tree: null });
    await expect(
      client.mergeIntoBranch({ branch: 'trainyard/merge-queue/x', head: clash.sha, message: 'x' }),
    ).rejects.toBeInstanceOf(MergeConflictError);

    await expect(client.fastForwardBranch({ branch: 'one', sha: main })).rejects.toBeInstanceOf(
      MergeRefusedError,
    );
    await client.fastForwardBranch({ branch: 'main', sha: merged });
    expect(repo.branches.get('main')).toBe(merged);
    await client.deleteBranch('trainyard/merge-queue/x');
    await client.deleteBranch('trainyard/merge-queue/x');
    expect(repo.branches.has('trainyard/merge-queue/x')).toBe(false);
  });

  it('pull requests: read, find by head, open a draft, close, merge, update the branch, files, reviews', async () => {
    const { repo, client } = clientFor('client-pulls', { 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const pr = h.github.openPullRequest(repo, {
      author: 'alice',
      title: 'Feature',
      body: 'Does it',
      files: { 'b.txt': 'B\n' },
      labels: ['hotfix'],
    });
    h.github.pulls.review(repo, pr.number, { user: h.github.account('bob'), state: 'CHANGES_REQUESTED' });
    h.github.pulls.review(repo, pr.number, { user: h.github.account('bob'), state: 'APPROVED' });
    h.github.pulls.review(repo, pr.number, { user: h.github.account('carol'), state: 'CHANGES_REQUESTED' });

    const info = await client.getPullRequest(pr.number);
    expect(info).toMatchObject({
      number: pr.number,
      title: 'Feature',
      body: 'Does it',
      state: 'open',
      merged: false,
      mergeSha: null,
      draft: false,
      author: { login: 'alice', type: 'User' },
      base: 'main',
      head: pr.head,
      headSha: pr.headSha,
      labels: [{ name: 'hotfix', color: 'ededed', default: false }],
    });
    expect(info.url).toBe(`${h.server.url}/web/acme/client-pulls/pull/${pr.number}`);
    expect(await client.findOpenPullRequestByHead(pr.head)).toBe(pr.number);
    expect(await client.findOpenPullRequestByHead('nobody')).toBeNull();
    expect(await client.listPullRequestFiles(pr.number)).toEqual(['b.txt']);
    expect(await client.listReviews(pr.number)).toEqual({
      approvedBy: ['bob'],
      changesRequestedBy: ['carol'],
    });
    expect(await client.listPullRequestsForCommit(pr.headSha)).toEqual([pr.number]);

    h.github.git.commit(repo, {
      branch: 'main',
      files: { 'a.txt': 'A\n' },
      message: 'main moves',
      author: h.github.account('bob'),
    });
    expect(await client.updatePullRequestBranch({ number: pr.number, expectedHeadSha: pr.headSha })).toBe(
      'updating',
    );
    expect(await client.updatePullRequestBranch({ number: pr.number, expectedHeadSha: pr.headSha })).toBe(
      'up_to_date',
    );
    await expect(
      client.mergePullRequest({ number: pr.number, method: 'merge', sha: 'f'.repeat(40) }),
    ).rejects.toBeInstanceOf(MergeRefusedError);
    const sha = await client.mergePullRequest({ number: pr.number, method: 'squash', sha: pr.headSha });
    expect(await client.getPullRequest(pr.number)).toMatchObject({
      state: 'closed',
      merged: true,
      mergeSha: sha,
    });

    h.github.git.commit(repo, {
      branch: 'batch',
      from: 'main',
      files: { 'c.txt': 'c' },
      message: 'c',
      author: h.github.app.bot,
    });
    const draft = await client.createDraftPullRequest({
      head: 'batch',
      base: 'main',
      title: 'merge queue: batch',
      body: 'Testing',
    });
    expect(await client.getPullRequest(draft)).toMatchObject({
      draft: true,
      author: { login: 'trainyard[bot]', type: 'Bot' },
    });
    await client.closePullRequest(draft);
    await client.closePullRequest(draft);
    expect(repo.pulls.get(draft)!.state).toBe('closed');
    await expect(client.getPullRequest(999)).rejects.toBeInstanceOf(NotFoundError);

    const clash = h.github.openPullRequest(repo, {
      author: 'dave',
      title: 'Clash',
      files: { 'a.txt': 'dave\n' },
    });
    h.github.git.commit(repo, {
      branch: 'main',
      files: { 'a.txt': 'bob\n' },
      message: 'again',
      author: h.github.account('bob'),
    });
    await expect(
      client.updatePullRequestBranch({ number: clash.number, expectedHeadSha: clash.headSha }),
    ).rejects.toBeInstanceOf(MergeConflictError);
  });

  it('checks, comments, reactions, permissions, files, and cancelling CI', async () => {
    const { repo, client } = clientFor('client-misc', { '.github/trainyard.yml': 'queue_rules: []\n' });
    const ci = new SandboxCi({
      github: h.github,
      clock: h.clock,
      model: { seed: 1, medianMs: 600_000, spread: 0, flakeRate: 0 },
    });
    try {
      const pr = h.github.openPullRequest(repo, {
        author: 'alice',
        title: 'Checked',
        files: { 'a.txt': 'a' },
      });
      h.clock.advance(5_000);
      h.github.checks.createStatus(repo, {
        sha: pr.headSha,
        state: 'success',
        context: 'legacy/ci',
        creator: h.github.account('jenkins'),
      });
      await client.upsertCheckRun({
        name: 'Trainyard',
        headSha: pr.headSha,
        status: 'queued',
        conclusion: null,
        title: 'Queued',
        summary: 's',
      });
      await client.upsertCheckRun({
        name: 'Trainyard',
        headSha: pr.headSha,
        status: 'completed',
        conclusion: 'success',
        title: 'Merged',
        summary: 's',
      });
      const checks = await client.listChecks(pr.headSha);
      expect(checks.map((c) => `${c.name} ${c.state} ${c.description}`).sort()).toEqual([
        'Trainyard success Merged',
        'ci pending ',
        'legacy/ci success ',
      ]);
      expect(
        h.github.checks.runsFor(repo, pr.headSha, { checkName: 'Trainyard', latestOnly: false }),
      ).toHaveLength(1);

      await client.cancelWorkflowRuns(pr.headSha);
      await client.cancelWorkflowRuns(pr.headSha);
      expect((await client.listChecks(pr.headSha)).find((c) => c.name === 'ci')?.state).toBe('cancelled');

      const command = h.github.issues.comment(repo, {
        number: pr.number,
        body: '@trainyard queue',
        user: h.github.account('alice'),
      });
      await client.addReaction({ commentId: command.id, content: 'eyes' });
      await client.addReaction({ commentId: command.id, content: 'eyes' });
      expect(command.reactions).toHaveLength(1);
      await client.createComment({ number: pr.number, body: 'Queued at position 1' });
      expect(await client.listComments(pr.number)).toEqual([
        { id: command.id, body: '@trainyard queue' },
        { id: expect.any(Number), body: 'Queued at position 1' },
      ]);

      h.github.grant(repo, 'maria', 'maintain');
      expect(await client.getPermission('maria')).toBe('maintain');
      expect(await client.getPermission('acme')).toBe('admin');
      expect(await client.getPermission('ghost-who-never-existed')).toBe('none');
      expect(await client.getFileText({ path: '.github/trainyard.yml', ref: 'main' })).toBe(
        'queue_rules: []\n',
      );
      expect(await client.getFileText({ path: '.github/missing.yml', ref: 'main' })).toBeNull();
    } finally {
      ci.close();
    }
  });
});

describe('the app’s effect executors against the sandbox', () => {
  it('prepares a batch’s test branch with its draft PR, merges it by fast-forward, and GitHub marks the PRs merged', async () => {
    const { repo, client } = clientFor('effects', { 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const one = h.github.openPullRequest(repo, { author: 'alice', title: 'One', files: { 'a.txt': 'A\n' } });
    const two = h.github.openPullRequest(repo, { author: 'bob', title: 'Two', files: { 'b.txt': 'B\n' } });
    const effect = prepareTestBranch({
      pullRequests: [
        { number: one.number, headSha: one.headSha },
        { number: two.number, headSha: two.headSha },
      ],
    });
    const owner = { identity: appIdentityOf(h.github.app.slug) };
    const [prepared] = await executeEffect(effect, client, owner);
    expect(prepared).toMatchObject({
      type: 'test_branch_prepared',
      sha: repo.branches.get(effect.branch),
      draftPullRequest: 3,
    });
    expect(repo.branches.has(`${effect.branch}-work`)).toBe(false);
    expect(repo.pulls.get(3)).toMatchObject({
      draft: true,
      head: effect.branch,
      base: 'main',
      state: 'open',
    });
    const again = await executeEffect(effect, client, owner);
    expect(again).toEqual([{ ...prepared, sha: repo.branches.get(effect.branch) }]);

    const tested = repo.branches.get(effect.branch)!;
    expect(
      await executeEffect(fastForwardBase({ sha: tested, numbers: [one.number, two.number] }), client),
    ).toEqual([
      { type: 'merge_completed', number: one.number, sha: tested },
      { type: 'merge_completed', number: two.number, sha: tested },
    ]);
    expect([one, two].map((p) => `${p.state} ${p.merged} ${p.mergeCommitSha === tested}`)).toEqual([
      'closed true true',
      'closed true true',
    ]);
  });

  it('merges a PR by squash, and tests a PR in place by updating its branch', async () => {
    const { repo, client } = clientFor('effects-merge', { 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const pr = h.github.openPullRequest(repo, {
      author: 'alice',
      title: 'Squashed',
      files: { 'a.txt': 'A\n' },
    });
    const [merged] = await executeEffect(mergePr({ number: pr.number, expectedHeadSha: pr.headSha }), client);
    expect(merged).toMatchObject({ number: pr.number, sha: repo.branches.get('main') });

    const inPlace = h.github.openPullRequest(repo, {
      author: 'bob',
      title: 'In place',
      files: { 'b.txt': 'B\n' },
    });
    const [prepared] = await executeEffect(updatePrInPlace({ number: inPlace.number }), client, {
      headPolling: { delaysMs: [0], sleep: async () => {} },
    });
    expect(prepared).toMatchObject({
      type: 'test_branch_prepared',
      sha: inPlace.headSha,
      draftPullRequest: null,
    });
    expect(h.github.fileText(repo, inPlace.headSha, 'a.txt')).toBe('A\n');
  });
});
