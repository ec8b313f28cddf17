import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { protectBranch } from '../../app/sandbox/branch-protection.ts';
import { type SandboxHarness, startSandboxHarness } from '../support/sandbox-harness.ts';

let h: SandboxHarness;
beforeAll(async () => {
  h = await startSandboxHarness();
});
afterAll(async () => {
  await h.close();
});

const status = async (promise: Promise<{ status: number }>) =>
  promise.then(
    (r) => r.status,
    (e: { status: number }) => e.status,
  );
const errorOf = async (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected GitHub to refuse');
    },
    (e: { status: number; response: { data: unknown } }) => ({ status: e.status, body: e.response.data }),
  );

describe('git refs over HTTP', () => {
  it('reads a branch through both ref routes, with the ref escaped or not', async () => {
    const { repo, octokit } = h.installedRepository('refs');
    const main = repo.branches.get('main');
    const viaRef = await octokit.rest.git.getRef({ owner: 'acme', repo: 'refs', ref: 'heads/main' });
    expect(viaRef.data).toMatchObject({ ref: 'refs/heads/main', object: { type: 'commit', sha: main } });
    const viaRefs = await octokit.request('GET /repos/{owner}/{repo}/git/refs/heads/main', {
      owner: 'acme',
      repo: 'refs',
    });
    expect(viaRefs.data).toMatchObject({ ref: 'refs/heads/main', object: { sha: main } });
    const missing = await errorOf(
      octokit.rest.git.getRef({ owner: 'acme', repo: 'refs', ref: 'heads/nope' }),
    );
    expect(missing).toEqual({
      status: 404,
      body: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest', status: '404' },
    });
  });

  it('creates, moves (fast-forward or forced) and deletes branches with GitHub status codes', async () => {
    const { repo, octokit } = h.installedRepository('branches');
    const params = { owner: 'acme', repo: 'branches' };
    const main = repo.branches.get('main')!;
    const created = await octokit.rest.git.createRef({ ...params, ref: 'refs/heads/topic', sha: main });
    expect(created.status).toBe(201);
    expect(await status(octokit.rest.git.createRef({ ...params, ref: 'refs/heads/topic', sha: main }))).toBe(
      422,
    );
    expect(
      await status(octokit.rest.git.createRef({ ...params, ref: 'refs/heads/x', sha: 'f'.repeat(40) })),
    ).toBe(422);

    const ahead = h.github.git.commit(repo, {
      branch: 'other',
      from: 'main',
      files: { 'x.txt': 'x' },
      message: 'x',
      author: h.github.account('alice'),
    });
    const ff = await octokit.rest.git.updateRef({ ...params, ref: 'heads/topic', sha: ahead.sha });
    expect(ff.data.object.sha).toBe(ahead.sha);
    const back = await errorOf(octokit.rest.git.updateRef({ ...params, ref: 'heads/topic', sha: main }));
    expect(back).toMatchObject({ status: 422, body: { message: 'Update is not a fast forward' } });
    await octokit.rest.git.updateRef({ ...params, ref: 'heads/topic', sha: main, force: true });
    expect(repo.branches.get('topic')).toBe(main);

    expect(await status(octokit.rest.git.deleteRef({ ...params, ref: 'heads/topic' }))).toBe(204);
    expect(await status(octokit.rest.git.deleteRef({ ...params, ref: 'heads/topic' }))).toBe(422);
  });

  it('refuses a forced move of a protected branch that is not a fast-forward, as GitHub does (422); fast-forwards and unprotected branches move', async () => {
    const { repo, octokit } = h.installedRepository('protected-refs');
    const params = { owner: 'acme', repo: 'protected-refs' };
    const main = repo.branches.get('main')!;
    const alice = h.github.account('alice');
    const aside = h.github.git.commit(repo, {
      branch: 'aside',
      from: 'main',
      files: { 'a.txt': 'a' },
      message: 'a',
      author: alice,
    });
    const ahead = h.github.git.commit(repo, {
      branch: 'ahead',
      from: 'main',
      files: { 'b.txt': 'b' },
      message: 'b',
      author: alice,
    });
    protectBranch(repo, 'main', { requiredStatusChecks: { contexts: [] } });
    // A fast-forward moves it, forced or not.
    await octokit.rest.git.updateRef({ ...params, ref: 'heads/main', sha: ahead.sha, force: true });
    expect(repo.branches.get('main')).toBe(ahead.sha);
    // Backwards or sideways, forced: refused with GitHub's words; the branch stays.
    for (const sha of [main, aside.sha]) {
      const refused = await errorOf(
        octokit.rest.git.updateRef({ ...params, ref: 'heads/main', sha, force: true }),
      );
      expect(refused).toEqual({
        status: 422,
        body: {
          message: 'Cannot force-push to this protected branch',
          documentation_url: 'https://docs.github.com/rest',
          status: '422',
        },
      });
    }
    expect(repo.branches.get('main')).toBe(ahead.sha);
    // Not forced: refused as any branch is, for not being a fast-forward.
    const plain = await errorOf(octokit.rest.git.updateRef({ ...params, ref: 'heads/main', sha: main }));
    expect(plain).toMatchObject({ status: 422, body: { message: 'Update is not a fast forward' } });
    // Unprotected again: the forced move goes through.
    protectBranch(repo, 'main', null);
    await octokit.rest.git.updateRef({ ...params, ref: 'heads/main', sha: aside.sha, force: true });
    expect(repo.branches.get('main')).toBe(aside.sha);
  });

  it('serves file contents in base64 and directory listings, at a branch or a sha', async () => {
    const { repo, octokit } = h.installedRepository('contents', {
      '.github/trainyard.yml': 'queue_rules:\n  - name: default\n',
      'src/app.ts': 'export {}\n',
    });
    const params = { owner: 'acme', repo: 'contents' };
    const file = await octokit.rest.repos.getContent({
      ...params,
      path: '.github/trainyard.yml',
      ref: 'main',
    });
    if (Array.isArray(file.data) || file.data.type !== 'file') throw new Error('expected a file');
    expect(Buffer.from(file.data.content, 'base64').toString('utf8')).toBe(
      'queue_rules:\n  - name: default\n',
    );
    const atSha = await octokit.rest.repos.getContent({
      ...params,
      path: 'src/app.ts',
      ref: repo.branches.get('main')!,
    });
    expect(atSha.data).toMatchObject({ type: 'file', path: 'src/app.ts', encoding: 'base64' });
    const dir = await octokit.rest.repos.getContent({ ...params, path: '.github' });
    expect(dir.data).toEqual([
      expect.objectContaining({ type: 'file', name: 'trainyard.yml', path: '.github/trainyard.yml' }),
    ]);
    expect(await status(octokit.rest.repos.getContent({ ...params, path: 'missing.txt' }))).toBe(404);
  });
});

describe('merging into a branch (POST /merges)', () => {
  it('combines changes to different files, answers 204 when there is nothing to merge and 409 on a conflict', async () => {
    const { repo, octokit } = h.installedRepository('merges', { 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const params = { owner: 'acme', repo: 'merges' };
    const alice = h.github.account('alice');
    h.github.git.commit(repo, {
      branch: 'one',
      from: 'main',
      files: { 'a.txt': 'A\n' },
      message: 'one',
      author: alice,
    });
    h.github.git.commit(repo, {
      branch: 'two',
      from: 'main',
      files: { 'b.txt': 'B\n' },
      message: 'two',
      author: alice,
    });
    h.github.git.commit(repo, {
      branch: 'three',
      from: 'main',
      files: { 'a.txt': 'AAA\n' },
      message: 'three',
      author: alice,
    });
    await octokit.rest.git.createRef({ ...params, ref: 'refs/heads/batch', sha: repo.branches.get('main')! });

    const first = await octokit.rest.repos.merge({
      ...params,
      base: 'batch',
      head: 'one',
      commit_message: 'Merge one',
    });
    expect(first.status).toBe(201);
    expect(first.data.parents.map((p) => p.sha)).toEqual([
      repo.graph.resolve('main-1')!.sha,
      repo.branches.get('one'),
    ]);
    const second = await octokit.rest.repos.merge({
      ...params,
      base: 'batch',
      head: repo.branches.get('two')!,
    });
    expect(second.status).toBe(201);
    expect(h.github.fileText(repo, 'batch', 'a.txt')).toBe('A\n');
    expect(h.github.fileText(repo, 'batch', 'b.txt')).toBe('B\n');

    const again = await octokit.rest.repos.merge({ ...params, base: 'batch', head: 'one' });
    expect(again.status).toBe(204);
    const conflict = await errorOf(octokit.rest.repos.merge({ ...params, base: 'batch', head: 'three' }));
    expect(conflict).toMatchObject({ status: 409, body: { message: 'Merge Conflict' } });
    expect(await status(octokit.rest.repos.merge({ ...params, base: 'nope', head: 'one' }))).toBe(404);
  });
});
