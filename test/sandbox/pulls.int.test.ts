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

/** Deliveries accepted since the last clear, once the sandbox has sent everything. */
async function delivered() {
  await h.server.webhooks.flush();
  return h.receiver.accepted();
}

describe('pull requests over HTTP', () => {
  it('opens a pull request from a branch and lists it with state, head and base filters', async () => {
    const { repo, octokit } = h.installedRepository('open', { 'a.txt': 'a\n' });
    const params = { owner: 'acme', repo: 'open' };
    h.github.git.commit(repo, {
      branch: 'feature',
      from: 'main',
      files: { 'a.txt': 'A\n' },
      message: 'A',
      author: h.github.account('alice'),
    });
    const created = await octokit.rest.pulls.create({
      ...params,
      head: 'feature',
      base: 'main',
      title: 'Batch',
      body: 'b',
      draft: true,
    });
    expect(created.status).toBe(201);
    expect(created.data).toMatchObject({
      number: 1,
      draft: true,
      state: 'open',
      head: { ref: 'feature' },
      base: { ref: 'main' },
    });
    expect(created.data.user.login).toBe('trainyard[bot]');
    expect(
      (await errorOf(octokit.rest.pulls.create({ ...params, head: 'feature', base: 'main', title: 'again' })))
        .status,
    ).toBe(422);
    expect(
      (await errorOf(octokit.rest.pulls.create({ ...params, head: 'main', base: 'main', title: 'empty' })))
        .status,
    ).toBe(422);

    const byHead = await octokit.rest.pulls.list({ ...params, state: 'open', head: 'acme:feature' });
    expect(byHead.data.map((p) => p.number)).toEqual([1]);
    expect((await octokit.rest.pulls.list({ ...params, head: 'acme:other' })).data).toEqual([]);
    expect((await octokit.rest.pulls.list({ ...params, state: 'closed' })).data).toEqual([]);
    await octokit.rest.pulls.update({ ...params, pull_number: 1, state: 'closed' });
    expect(
      (await octokit.rest.pulls.list({ ...params, state: 'closed', base: 'main' })).data.map((p) => p.number),
    ).toEqual([1]);
    expect((await delivered()).map((d) => `${d.event}.${d.action ?? ''}`)).toEqual([
      'installation.created',
      'push.',
      'create.',
      'pull_request.opened',
      'pull_request.closed',
    ]);
  });

  it('paginates with GitHub Link headers', async () => {
    const { repo, octokit } = h.installedRepository('many');
    for (let i = 1; i <= 23; i++) {
      h.github.openPullRequest(repo, { author: 'alice', title: `PR ${i}`, files: { [`f${i}.txt`]: `${i}` } });
    }
    const first = await octokit.rest.pulls.list({ owner: 'acme', repo: 'many', per_page: 10 });
    expect(first.data.map((p) => p.number)).toEqual([23, 22, 21, 20, 19, 18, 17, 16, 15, 14]);
    expect(first.headers.link).toBe(
      `<${h.server.url}/repos/acme/many/pulls?per_page=10&page=2>; rel="next", ` +
        `<${h.server.url}/repos/acme/many/pulls?per_page=10&page=3>; rel="last"`,
    );
    const all = await octokit.paginate(octokit.rest.pulls.list, {
      owner: 'acme',
      repo: 'many',
      per_page: 10,
    });
    expect(all.map((p) => p.number)).toEqual(Array.from({ length: 23 }, (_, i) => 23 - i));
  });

  it('merges with each method: the base moves, and push then pull_request.closed go out signed', async () => {
    const { repo, octokit } = h.installedRepository('methods', {
      'a.txt': 'a\n',
      'b.txt': 'b\n',
      'c.txt': 'c\n',
    });
    const params = { owner: 'acme', repo: 'methods' };
    const one = h.github.openPullRequest(repo, { author: 'alice', title: 'One', files: { 'a.txt': 'A\n' } });
    const two = h.github.openPullRequest(repo, { author: 'bob', title: 'Two', files: { 'b.txt': 'B\n' } });
    h.github.pushToPullRequest(repo, two.number, { files: { 'd.txt': 'd\n' } });
    const three = h.github.openPullRequest(repo, {
      author: 'carol',
      title: 'Three',
      files: { 'c.txt': 'C\n' },
    });
    await h.server.webhooks.flush();
    h.receiver.clear();

    const merged = await octokit.rest.pulls.merge({
      ...params,
      pull_number: one.number,
      merge_method: 'merge',
      sha: one.headSha,
    });
    expect(merged.data).toEqual({
      sha: repo.branches.get('main'),
      merged: true,
      message: 'Pull Request successfully merged',
    });
    await octokit.rest.pulls.merge({ ...params, pull_number: two.number, merge_method: 'rebase' });
    await octokit.rest.pulls.merge({ ...params, pull_number: three.number, merge_method: 'squash' });
    expect(h.github.shaHistory(repo, 'main')).toEqual([
      'squash-pr-3',
      'rebase-pr-2-2',
      'rebase-pr-2-1',
      'merge-pr-1',
      'main-1',
    ]);
    expect(['a.txt', 'b.txt', 'c.txt', 'd.txt'].map((f) => h.github.fileText(repo, 'main', f))).toEqual([
      'A\n',
      'B\n',
      'C\n',
      'd\n',
    ]);

    const pr = await octokit.rest.pulls.get({ ...params, pull_number: one.number });
    expect(pr.data).toMatchObject({ state: 'closed', merged: true, merge_commit_sha: merged.data.sha });
    expect(pr.data.merged_by?.login).toBe('trainyard[bot]');

    const deliveries = await delivered();
    expect(deliveries.every((d) => d.signatureValid)).toBe(true);
    expect(deliveries.map((d) => `${d.event}.${d.action ?? ''}`)).toEqual([
      'push.',
      'pull_request.closed',
      'push.',
      'pull_request.closed',
      'push.',
      'pull_request.closed',
    ]);
    const [push, closed] = deliveries;
    expect(push!.payload).toMatchObject({
      ref: 'refs/heads/main',
      before: repo.graph.resolve('main-1')!.sha,
      after: merged.data.sha,
      created: false,
      forced: false,
      head_commit: { id: merged.data.sha, modified: ['a.txt'], added: [], removed: [] },
      installation: { id: expect.any(Number) },
      repository: { full_name: 'acme/methods' },
      sender: { login: 'trainyard[bot]' },
    });
    expect(closed!.payload).toMatchObject({
      action: 'closed',
      number: one.number,
      pull_request: { merged: true, merge_commit_sha: merged.data.sha, state: 'closed' },
    });
    expect(closed!.headers['x-github-delivery']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('refuses merges GitHub refuses: 409 head moved, 405 conflict, 405 draft, 405 closed', async () => {
    const { repo, octokit } = h.installedRepository('refusals', { 'a.txt': 'a\n' });
    const params = { owner: 'acme', repo: 'refusals' };
    const moved = h.github.openPullRequest(repo, {
      author: 'alice',
      title: 'Moved',
      files: { 'x.txt': 'x\n' },
    });
    const staleSha = moved.headSha;
    h.github.pushToPullRequest(repo, moved.number, { files: { 'x.txt': 'xx\n' } });
    expect(
      await errorOf(octokit.rest.pulls.merge({ ...params, pull_number: moved.number, sha: staleSha })),
    ).toEqual({
      status: 409,
      message: 'Head branch was modified. Review and try the merge again.',
    });

    const left = h.github.openPullRequest(repo, {
      author: 'alice',
      title: 'Left',
      files: { 'a.txt': 'left\n' },
    });
    const right = h.github.openPullRequest(repo, {
      author: 'bob',
      title: 'Right',
      files: { 'a.txt': 'right\n' },
    });
    await octokit.rest.pulls.merge({ ...params, pull_number: left.number });
    const rightPr = await octokit.rest.pulls.get({ ...params, pull_number: right.number });
    expect(rightPr.data).toMatchObject({ mergeable: false, mergeable_state: 'dirty' });
    expect(await errorOf(octokit.rest.pulls.merge({ ...params, pull_number: right.number }))).toEqual({
      status: 405,
      message: 'Pull Request is not mergeable',
    });

    const draft = h.github.openPullRequest(repo, {
      author: 'alice',
      title: 'Draft',
      files: { 'y.txt': 'y' },
      draft: true,
    });
    expect(await errorOf(octokit.rest.pulls.merge({ ...params, pull_number: draft.number }))).toEqual({
      status: 405,
      message: 'Pull Request is still a draft',
    });
    expect((await errorOf(octokit.rest.pulls.merge({ ...params, pull_number: left.number }))).status).toBe(
      405,
    );
    expect((await errorOf(octokit.rest.pulls.merge({ ...params, pull_number: 999 }))).status).toBe(404);
  });

  it('updates a PR branch with its base: 202, then 422 for a stale expected head, nothing new, or a conflict', async () => {
    const { repo, octokit } = h.installedRepository('update', { 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const params = { owner: 'acme', repo: 'update' };
    const pr = h.github.openPullRequest(repo, {
      author: 'alice',
      title: 'Behind',
      files: { 'b.txt': 'B\n' },
    });
    h.github.git.commit(repo, {
      branch: 'main',
      files: { 'a.txt': 'A\n' },
      message: 'main moves',
      author: h.github.account('bob'),
    });
    await h.server.webhooks.flush();
    h.receiver.clear();

    const stale = await errorOf(
      octokit.rest.pulls.updateBranch({
        ...params,
        pull_number: pr.number,
        expected_head_sha: 'f'.repeat(40),
      }),
    );
    expect(stale.status).toBe(422);
    const before = pr.headSha;
    const updated = await octokit.rest.pulls.updateBranch({
      ...params,
      pull_number: pr.number,
      expected_head_sha: before,
    });
    expect(updated.status).toBe(202);
    expect(h.github.fileText(repo, pr.head, 'a.txt')).toBe('A\n');
    expect(repo.graph.get(pr.headSha)!.parents).toEqual([before, repo.branches.get('main')]);
    expect(await errorOf(octokit.rest.pulls.updateBranch({ ...params, pull_number: pr.number }))).toEqual({
      status: 422,
      message: 'There are no new commits on the base branch.',
    });
    const events = (await delivered()).map((d) => `${d.event}.${d.action ?? ''}`);
    expect(events).toEqual(['push.', 'pull_request.synchronize']);
    expect(h.receiver.accepted()[1]!.payload).toMatchObject({ before, after: pr.headSha });

    const clash = h.github.openPullRequest(repo, {
      author: 'carol',
      title: 'Clash',
      files: { 'a.txt': 'carol\n' },
    });
    h.github.git.commit(repo, {
      branch: 'main',
      files: { 'a.txt': 'bob again\n' },
      message: 'main again',
      author: h.github.account('bob'),
    });
    expect(await errorOf(octokit.rest.pulls.updateBranch({ ...params, pull_number: clash.number }))).toEqual({
      status: 422,
      message: 'merge conflict between base and head',
    });
  });

  it('lists files, commits and reviews, and the PRs of a commit', async () => {
    const { repo, octokit } = h.installedRepository('details', { 'a.txt': 'a\n', 'gone.txt': 'g\n' });
    const params = { owner: 'acme', repo: 'details' };
    const pr = h.github.openPullRequest(repo, {
      author: 'alice',
      title: 'Files',
      files: { 'a.txt': 'A\n', 'gone.txt': null, 'web/new.ts': 'n\n' },
    });
    h.github.grant(repo, 'bob', 'write');
    h.github.pulls.review(repo, pr.number, { user: h.github.account('bob'), state: 'CHANGES_REQUESTED' });
    await h
      .userOctokit('bob')
      .rest.pulls.createReview({ ...params, pull_number: pr.number, event: 'APPROVE' });

    const files = await octokit.rest.pulls.listFiles({ ...params, pull_number: pr.number });
    expect(files.data.map((f) => `${f.status} ${f.filename}`)).toEqual([
      'modified a.txt',
      'removed gone.txt',
      'added web/new.ts',
    ]);
    const commits = await octokit.rest.pulls.listCommits({ ...params, pull_number: pr.number });
    expect(commits.data.map((c) => c.sha)).toEqual([pr.headSha]);
    const reviews = await octokit.rest.pulls.listReviews({ ...params, pull_number: pr.number });
    expect(reviews.data.map((r) => `${r.user?.login} ${r.state}`)).toEqual([
      'bob CHANGES_REQUESTED',
      'bob APPROVED',
    ]);
    const ofCommit = await octokit.rest.repos.listPullRequestsAssociatedWithCommit({
      ...params,
      commit_sha: pr.headSha,
    });
    expect(ofCommit.data.map((p) => p.number)).toEqual([pr.number]);
    expect(
      (await delivered())
        .filter((d) => d.event === 'pull_request_review')
        .map((d) => (d.payload['review'] as { state: string }).state),
    ).toEqual(['changes_requested', 'approved']);
  });

  it('marks a PR merged when its head reaches the base by a push (fast-forward), and closes PRs whose branch is deleted', async () => {
    const { repo, octokit } = h.installedRepository('fast-forward', { 'a.txt': 'a\n' });
    const params = { owner: 'acme', repo: 'fast-forward' };
    const ff = h.github.openPullRequest(repo, { author: 'alice', title: 'FF', files: { 'a.txt': 'A\n' } });
    const gone = h.github.openPullRequest(repo, { author: 'bob', title: 'Gone', files: { 'b.txt': 'b\n' } });
    await h.server.webhooks.flush();
    h.receiver.clear();
    await octokit.rest.git.updateRef({ ...params, ref: 'heads/main', sha: ff.headSha });
    await octokit.rest.git.deleteRef({ ...params, ref: `heads/${gone.head}` });
    expect((await octokit.rest.pulls.get({ ...params, pull_number: ff.number })).data).toMatchObject({
      merged: true,
      state: 'closed',
      merge_commit_sha: ff.headSha,
    });
    expect((await octokit.rest.pulls.get({ ...params, pull_number: gone.number })).data).toMatchObject({
      merged: false,
      state: 'closed',
    });
    expect((await delivered()).map((d) => `${d.event}.${d.action ?? ''}`)).toEqual([
      'push.',
      'pull_request.closed',
      'push.',
      'delete.',
      'pull_request.closed',
    ]);
  });
});
