import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failTimes, failWith, succeed } from '../../app/sandbox/faults.ts';
import { type SandboxHarness, startSandboxHarness } from '../support/sandbox-harness.ts';

let h: SandboxHarness;
beforeAll(async () => {
  h = await startSandboxHarness();
});
afterAll(async () => {
  await h.close();
});

describe('fault knobs', () => {
  it('mergeBehaviour = failWith(405, …) refuses every merge until reset, and nothing moves', async () => {
    const { repo, octokit } = h.installedRepository('merge-fault');
    const pr = h.github.openPullRequest(repo, { author: 'alice', title: 'Blocked', files: { 'a.txt': 'a' } });
    const main = repo.branches.get('main');
    repo.mergeBehaviour = failWith(405, 'Required status check "ci" is expected.');
    const params = { owner: 'acme', repo: 'merge-fault', pull_number: pr.number };
    for (let i = 0; i < 2; i++) {
      await expect(octokit.rest.pulls.merge(params)).rejects.toMatchObject({
        status: 405,
        response: { data: { message: 'Required status check "ci" is expected.' } },
      });
    }
    expect(repo.branches.get('main')).toBe(main);
    repo.mergeBehaviour = succeed();
    expect((await octokit.rest.pulls.merge(params)).data.merged).toBe(true);
  });

  it('pushBehaviour = failTimes(2, 502): a client that retries gets through on the third attempt', async () => {
    const { repo } = h.installedRepository('push-fault');
    const installation = h.github.access.installationOf(repo, h.github.app.id)!;
    const retrying = h.installationOctokit(installation.id, { retry: true });
    const knob = failTimes(2, 502);
    let attempts = 0;
    repo.pushBehaviour = {
      attempt() {
        attempts++;
        knob.attempt();
      },
    };
    const created = await retrying.rest.git.createRef({
      owner: 'acme',
      repo: 'push-fault',
      ref: 'refs/heads/batch',
      sha: repo.branches.get('main')!,
    });
    expect(created.status).toBe(201);
    expect(attempts).toBe(3);
    expect(repo.branches.has('batch')).toBe(true);

    repo.pushBehaviour = failTimes(1, 502);
    const plain = h.installationOctokit(installation.id);
    await expect(
      plain.rest.git.deleteRef({ owner: 'acme', repo: 'push-fault', ref: 'heads/batch' }),
    ).rejects.toMatchObject({
      status: 502,
    });
    expect(repo.branches.has('batch')).toBe(true);
  });

  it('requestBehaviour fails every request on a repository (an outage), other repositories unaffected', async () => {
    const { repo, octokit } = h.installedRepository('outage');
    const { octokit: fine } = h.installedRepository('fine');
    repo.requestBehaviour = failWith(503, 'Service Unavailable');
    await expect(octokit.rest.repos.get({ owner: 'acme', repo: 'outage' })).rejects.toMatchObject({
      status: 503,
    });
    expect((await fine.rest.repos.get({ owner: 'acme', repo: 'fine' })).status).toBe(200);
    repo.updateBranchBehaviour = failWith(422, 'merge conflict between base and head');
    repo.requestBehaviour = succeed();
    const pr = h.github.openPullRequest(repo, { author: 'alice', title: 'x', files: { 'x.txt': 'x' } });
    await expect(
      octokit.rest.pulls.updateBranch({ owner: 'acme', repo: 'outage', pull_number: pr.number }),
    ).rejects.toMatchObject({
      status: 422,
    });
  });
});
