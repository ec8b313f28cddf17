import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type SandboxHarness, startSandboxHarness } from '../support/sandbox-harness.ts';

let h: SandboxHarness;
beforeAll(async () => {
  h = await startSandboxHarness();
});
afterAll(async () => {
  await h.close();
});
beforeEach(() => h.receiver.clear());

const errorOf = async (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected GitHub to refuse');
    },
    (e: { status: number; response: { data: { message: string } } }) => ({
      status: e.status,
      message: e.response.data.message,
    }),
  );

describe('check runs, suites and statuses over HTTP', () => {
  it('creates a check run, updates it to completion, and sends check_run and check_suite webhooks', async () => {
    const { repo, octokit } = h.installedRepository('checks');
    const pr = h.github.openPullRequest(repo, { author: 'alice', title: 'Checked', files: { 'a.txt': 'a' } });
    const params = { owner: 'acme', repo: 'checks' };
    await h.server.webhooks.flush();
    h.receiver.clear();

    const created = await octokit.rest.checks.create({
      ...params,
      name: 'Trainyard',
      head_sha: pr.headSha,
      status: 'in_progress',
      output: { title: 'Queued', summary: 'Position 1' },
    });
    expect(created.status).toBe(201);
    expect(created.data).toMatchObject({
      name: 'Trainyard',
      status: 'in_progress',
      conclusion: null,
      output: { title: 'Queued', summary: 'Position 1' },
      app: { id: h.github.app.id, slug: 'trainyard' },
      pull_requests: [{ number: pr.number }],
    });
    h.clock.advance(60_000);
    const done = await octokit.rest.checks.update({
      ...params,
      check_run_id: created.data.id,
      status: 'completed',
      conclusion: 'success',
      output: { title: 'Merged', summary: 'ok' },
    });
    expect(done.data).toMatchObject({
      status: 'completed',
      conclusion: 'success',
      completed_at: '2026-11-02T09:01:00Z',
    });

    await h.server.webhooks.flush();
    expect(h.receiver.names()).toEqual(['check_run.created', 'check_run.completed', 'check_suite.completed']);
    expect(h.receiver.accepted()[2]!.payload).toMatchObject({
      check_suite: {
        head_sha: pr.headSha,
        status: 'completed',
        conclusion: 'success',
        app: { slug: 'trainyard' },
      },
    });
  });

  it('lists the latest run of each name by default, all runs with filter=all, and filters by name and app', async () => {
    const { repo, octokit } = h.installedRepository('latest');
    const sha = repo.branches.get('main')!;
    const params = { owner: 'acme', repo: 'latest' };
    for (const conclusion of ['failure', 'success'] as const) {
      await octokit.rest.checks.create({
        ...params,
        name: 'ci',
        head_sha: sha,
        status: 'completed',
        conclusion,
      });
    }
    await octokit.rest.checks.create({ ...params, name: 'lint', head_sha: sha, status: 'queued' });
    h.github.checks.createRun(repo, {
      app: h.github.actionsApp,
      name: 'ci',
      headSha: sha,
      sender: h.github.actionsApp.bot,
    });

    const latest = await octokit.rest.checks.listForRef({ ...params, ref: sha });
    expect(latest.data.check_runs.map((r) => `${r.app?.slug} ${r.name} ${r.conclusion}`)).toEqual([
      'github-actions ci null',
      'trainyard lint null',
      'trainyard ci success',
    ]);
    expect(
      (await octokit.rest.checks.listForRef({ ...params, ref: 'main', filter: 'all' })).data.total_count,
    ).toBe(4);
    const ours = await octokit.rest.checks.listForRef({
      ...params,
      ref: sha,
      check_name: 'ci',
      app_id: h.github.app.id,
    });
    expect(ours.data.check_runs.map((r) => r.conclusion)).toEqual(['success']);
    expect(
      (await octokit.rest.checks.listForRef({ ...params, ref: sha, status: 'queued' })).data.total_count,
    ).toBe(2);
  });

  it('refuses check runs from a person, and changes to another app’s run', async () => {
    const { repo, octokit } = h.installedRepository('foreign');
    h.github.grant(repo, 'alice', 'admin');
    const sha = repo.branches.get('main')!;
    const params = { owner: 'acme', repo: 'foreign' };
    expect(
      await errorOf(h.userOctokit('alice').rest.checks.create({ ...params, name: 'x', head_sha: sha })),
    ).toEqual({
      status: 403,
      message: 'You must authenticate via a GitHub App.',
    });
    const ci = h.github.checks.createRun(repo, {
      app: h.github.actionsApp,
      name: 'ci',
      headSha: sha,
      sender: h.github.actionsApp.bot,
    });
    expect(
      (await errorOf(octokit.rest.checks.update({ ...params, check_run_id: ci.id, conclusion: 'success' })))
        .status,
    ).toBe(403);
    expect(
      (
        await errorOf(
          octokit.rest.checks.create({ ...params, name: 'x', head_sha: sha, status: 'completed' }),
        )
      ).status,
    ).toBe(422);
  });

  it('combines commit statuses: the newest per context, failure over pending over success', async () => {
    const { repo, octokit } = h.installedRepository('statuses');
    const sha = repo.branches.get('main')!;
    const params = { owner: 'acme', repo: 'statuses' };
    const empty = await octokit.rest.repos.getCombinedStatusForRef({ ...params, ref: 'main' });
    expect(empty.data).toMatchObject({ state: 'pending', total_count: 0, statuses: [] });

    const jenkins = h.github.account('jenkins');
    h.github.checks.createStatus(repo, { sha, state: 'pending', context: 'ci/jenkins', creator: jenkins });
    h.github.checks.createStatus(repo, { sha, state: 'success', context: 'ci/jenkins', creator: jenkins });
    h.github.checks.createStatus(repo, { sha, state: 'success', context: 'ci/lint', creator: jenkins });
    const green = await octokit.rest.repos.getCombinedStatusForRef({ ...params, ref: sha });
    expect(green.data.state).toBe('success');
    expect(green.data.statuses.map((s) => `${s.context} ${s.state}`)).toEqual([
      'ci/lint success',
      'ci/jenkins success',
    ]);

    h.github.checks.createStatus(repo, { sha, state: 'error', context: 'ci/lint', creator: jenkins });
    expect((await octokit.rest.repos.getCombinedStatusForRef({ ...params, ref: sha })).data.state).toBe(
      'failure',
    );
    await h.server.webhooks.flush();
    expect(h.receiver.names().filter((n) => n === 'status')).toHaveLength(4);
    expect(h.receiver.accepted().at(-1)!.payload).toMatchObject({
      sha,
      state: 'error',
      context: 'ci/lint',
      branches: [{ name: 'main' }],
    });
  });
});
