import { describe, expect, it } from 'vitest';
import { FactsCache } from '../../../app/github/translation/facts-cache.ts';
import { REPO_PATH, useGithubNock } from '../../support/nock/github-nock.ts';
import { nockListPullFiles } from '../../support/nock/pulls.ts';

const github = useGithubNock();

const filesOf = (number: number, ...filenames: string[]) =>
  nockListPullFiles(github, { number, pages: [filenames.map((filename) => ({ filename }))] });

const fileRequests = () => github.requests.filter((r) => r.request.includes('/files')).length;

describe('FactsCache: the files of a pull request at a head', () => {
  it('are read from GitHub once per head', async () => {
    const cache = new FactsCache();
    const client = github.client();
    filesOf(3, 'src/a.ts');
    expect(await cache.fetchFiles(client, { number: 3, headSha: 'v1', base: 'main' })).toEqual(['src/a.ts']);
    expect(await cache.fetchFiles(client, { number: 3, headSha: 'v1', base: 'main' })).toEqual(['src/a.ts']);
    expect(fileRequests()).toBe(1);
    expect(github.isDone()).toBe(true);
  });

  it('a new head is read again', async () => {
    const cache = new FactsCache();
    const client = github.client();
    filesOf(3, 'src/a.ts');
    filesOf(3, 'src/a.ts', 'src/b.ts');
    await cache.fetchFiles(client, { number: 3, headSha: 'v1', base: 'main' });
    expect(await cache.fetchFiles(client, { number: 3, headSha: 'v2', base: 'main' })).toEqual([
      'src/a.ts',
      'src/b.ts',
    ]);
    expect(github.isDone()).toBe(true);
  });

  it('a new base is read again (retargeting changes the diff)', async () => {
    const cache = new FactsCache();
    const client = github.client();
    filesOf(3, 'src/a.ts');
    filesOf(3, 'src/a.ts', 'CHANGELOG.md');
    await cache.fetchFiles(client, { number: 3, headSha: 'v1', base: 'main' });
    expect(await cache.fetchFiles(client, { number: 3, headSha: 'v1', base: 'release' })).toEqual([
      'src/a.ts',
      'CHANGELOG.md',
    ]);
    expect(github.isDone()).toBe(true);
  });

  it('concurrent readers of one head share one request', async () => {
    const cache = new FactsCache();
    const client = github.client();
    filesOf(3, 'src/a.ts');
    const key = { number: 3, headSha: 'v1', base: 'main' };
    const [a, b] = await Promise.all([cache.fetchFiles(client, key), cache.fetchFiles(client, key)]);
    expect([a, b]).toEqual([['src/a.ts'], ['src/a.ts']]);
    expect(fileRequests()).toBe(1);
  });

  it('a failed read is not remembered', async () => {
    const cache = new FactsCache();
    const client = github.client();
    github.scope().get(`${REPO_PATH}/pulls/3/files`).query(true).reply(404, { message: 'Not Found' });
    filesOf(3, 'src/a.ts');
    const key = { number: 3, headSha: 'v1', base: 'main' };
    await expect(cache.fetchFiles(client, key)).rejects.toThrow();
    expect(cache.size).toBe(0);
    expect(await cache.fetchFiles(client, key)).toEqual(['src/a.ts']);
    expect(github.isDone()).toBe(true);
  });

  it('is bounded: the least recently used head is forgotten first', async () => {
    const cache = new FactsCache(2);
    const client = github.client();
    filesOf(1, 'one.ts');
    filesOf(2, 'two.ts');
    filesOf(3, 'three.ts');
    filesOf(2, 'two-again.ts');
    await cache.fetchFiles(client, { number: 1, headSha: 'a', base: 'main' });
    await cache.fetchFiles(client, { number: 2, headSha: 'a', base: 'main' });
    await cache.fetchFiles(client, { number: 1, headSha: 'a', base: 'main' }); // #1 is now the most recent
    await cache.fetchFiles(client, { number: 3, headSha: 'a', base: 'main' }); // #2 goes
    expect(cache.size).toBe(2);
    expect(await cache.fetchFiles(client, { number: 1, headSha: 'a', base: 'main' })).toEqual(['one.ts']);
    expect(await cache.fetchFiles(client, { number: 2, headSha: 'a', base: 'main' })).toEqual([
      'two-again.ts',
    ]);
    expect(fileRequests()).toBe(4);
    expect(github.isDone()).toBe(true);
  });
});
