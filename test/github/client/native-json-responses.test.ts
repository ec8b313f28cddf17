import { describe, expect, it } from 'vitest';
import { createTokenOctokit, testRequestPolicy } from '../../../app/github/client/octokit.ts';
import { GITHUB_API, REPO_PATH, useGithubNock } from '../../support/nock/github-nock.ts';

const github = useGithubNock();
const octokit = () => createTokenOctokit({ token: 't', baseUrl: GITHUB_API, policy: testRequestPolicy });

/** Bodies as octokit would give them, read by JSON.parse (native-json-responses.ts). */
describe('success bodies parsed natively', () => {
  it('a JSON answer becomes its value, nested numbers and all', async () => {
    const pull = { number: 7, head: { sha: 'abc' }, labels: [{ id: 9_007_199_254_740_991, name: 'ready' }] };
    github.scope().get(`${REPO_PATH}/pulls/7`).reply(200, pull);

    const { data, status } = await octokit().rest.pulls.get({
      owner: 'acme',
      repo: 'widgets',
      pull_number: 7,
    });

    expect(status).toBe(200);
    expect(data).toEqual(pull);
    expect(github.isDone()).toBe(true);
  });

  it('a number beyond 2^53 stays a number (octokit would make it a BigInt, which JSON.stringify refuses)', async () => {
    github
      .scope()
      .get(REPO_PATH)
      .reply(200, '{"id": 123456789012345678901}', { 'content-type': 'application/json' });

    const { data } = await octokit().request('GET /repos/{owner}/{repo}', { owner: 'acme', repo: 'widgets' });

    expect(typeof (data as { id: unknown }).id).toBe('number');
    expect(JSON.stringify(data)).toBe('{"id":123456789012345680000}');
  });

  it('JSON that does not parse is returned as its text, as octokit does', async () => {
    github
      .scope()
      .get(REPO_PATH)
      .reply(200, '{"id": 1,', { 'content-type': 'application/json; charset=utf-8' });

    const { data } = await octokit().request('GET /repos/{owner}/{repo}', { owner: 'acme', repo: 'widgets' });

    expect(data).toBe('{"id": 1,');
  });

  it('text stays text, bytes stay bytes, and an empty 204 is ""', async () => {
    github.scope().get(`${REPO_PATH}/readme`).reply(200, 'hello', { 'content-type': 'text/plain' });
    github
      .scope()
      .get(`${REPO_PATH}/tarball/main`)
      .reply(200, Buffer.from([1, 2, 3]), { 'content-type': 'application/octet-stream' });
    github.scope().delete(`${REPO_PATH}/git/refs/heads%2Fx`).reply(204);
    const client = octokit();
    const r = { owner: 'acme', repo: 'widgets' };

    const text = await client.request('GET /repos/{owner}/{repo}/readme', r);
    const bytes = await client.request('GET /repos/{owner}/{repo}/tarball/{ref}', { ...r, ref: 'main' });
    const deleted = await client.request('DELETE /repos/{owner}/{repo}/git/refs/{ref}', {
      ...r,
      ref: 'heads/x',
    });

    expect(text.data).toBe('hello');
    expect(new Uint8Array(bytes.data as ArrayBuffer)).toEqual(new Uint8Array([1, 2, 3]));
    expect(deleted.status).toBe(204);
    expect(deleted.data).toBe('');
    expect(github.isDone()).toBe(true);
  });

  it('errors keep octokit’s message, and pagination follows the link header', async () => {
    github.scope().get(`${REPO_PATH}/pulls/8`).reply(404, { message: 'Not Found' });
    github
      .scope()
      .get(`${REPO_PATH}/pulls/7/files`)
      .query({ per_page: 100 })
      .reply(200, [{ filename: 'a.ts' }], {
        link: `<${GITHUB_API}${REPO_PATH.replace('/api/v3', '')}/pulls/7/files?per_page=100&page=2>; rel="next"`,
      });
    github
      .scope()
      .get(`${REPO_PATH}/pulls/7/files`)
      .query({ per_page: 100, page: 2 })
      .reply(200, [{ filename: 'b.ts' }]);
    const client = octokit();

    await expect(
      client.rest.pulls.get({ owner: 'acme', repo: 'widgets', pull_number: 8 }),
    ).rejects.toMatchObject({ status: 404, message: expect.stringContaining('Not Found') });
    const files = await client.paginate(client.rest.pulls.listFiles, {
      owner: 'acme',
      repo: 'widgets',
      pull_number: 7,
      per_page: 100,
    });

    expect(files.map((f) => f.filename)).toEqual(['a.ts', 'b.ts']);
    expect(github.isDone()).toBe(true);
  });
});
