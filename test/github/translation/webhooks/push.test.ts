import { describe, expect, it } from 'vitest';
import { fetchFacts, toInputs } from '../../../../app/github/translation/webhooks/push.ts';
import { useGithubNock } from '../../../support/nock/github-nock.ts';
import { nockGetContent } from '../../../support/nock/repos.ts';
import { pushEvent } from '../../../support/payloads.ts';

const github = useGithubNock();
const notRead = { configFile: null };
const CONFIG = '.github/trainyard.yml';

describe('push → base_branch_moved / base_branch_deleted', () => {
  it('a push to a branch moves it', () => {
    expect(toInputs(pushEvent({ ref: 'refs/heads/main', after: 'main-2' }), notRead)).toEqual([
      { type: 'base_branch_moved', branch: 'main', sha: 'main-2' },
    ]);
  });

  it('any branch is reported: the engine keeps the ones pull requests target', () => {
    expect(toInputs(pushEvent({ ref: 'refs/heads/release/1.x', after: 'r-7' }), notRead)).toEqual([
      { type: 'base_branch_moved', branch: 'release/1.x', sha: 'r-7' },
    ]);
  });

  it('a new branch is a move too', () => {
    expect(toInputs(pushEvent({ ref: 'refs/heads/next', created: true, after: 'n-1' }), notRead)).toEqual([
      { type: 'base_branch_moved', branch: 'next', sha: 'n-1' },
    ]);
  });

  it('a deleted branch', () => {
    expect(toInputs(pushEvent({ ref: 'refs/heads/release/1.x', deleted: true }), notRead)).toEqual([
      { type: 'base_branch_deleted', branch: 'release/1.x' },
    ]);
  });

  it('a tag: ignored', () => {
    expect(toInputs(pushEvent({ ref: 'refs/tags/v1.0.0' }), notRead)).toEqual([]);
  });

  it("a push to one of the engine's test branches: ignored (the engine made it)", () => {
    expect(toInputs(pushEvent({ ref: 'refs/heads/trainyard/merge-queue/1a2b3c4d' }), notRead)).toEqual([]);
  });

  it('a deleted test branch: ignored', () => {
    const payload = pushEvent({ ref: 'refs/heads/trainyard/merge-queue/1a2b3c4d', deleted: true });
    expect(toInputs(payload, notRead)).toEqual([]);
  });
});

describe('push to the default branch touching .github/trainyard.yml → config_changed / config_rejected', () => {
  const configPush = pushEvent({ after: 'main-2', commits: [{ modified: [CONFIG] }] });

  it('a valid file: config_changed first, then the move', () => {
    const inputs = toInputs(configPush, {
      configFile: { text: 'queue_rules:\n  - name: fast\nmerge_queue:\n  max_parallel_checks: 2\n' },
    });
    expect(inputs.map((i) => i.type)).toEqual(['config_changed', 'base_branch_moved']);
    const config = inputs[0]?.type === 'config_changed' ? inputs[0].config : null;
    expect(config?.queue_rules.map((r) => r.name)).toEqual(['fast']);
    expect(config?.merge_queue.max_parallel_checks).toBe(2);
  });

  it('an invalid file: config_rejected with where and what', () => {
    const inputs = toInputs(configPush, {
      configFile: { text: 'queue_rules:\n  - name: fast\n    batch_size: 0\n' },
    });
    expect(inputs[0]).toMatchInlineSnapshot(`
      {
        "errors": [
          {
            "column": 17,
            "line": 3,
            "message": "expected an integer from 1 to 128, or a mapping {min, max}, found 0",
            "path": "queue_rules[0].batch_size",
          },
        ],
        "type": "config_rejected",
      }
    `);
  });

  it('a removed file: the default configuration', () => {
    const payload = pushEvent({ after: 'main-2', commits: [{ removed: [CONFIG] }] });
    const [input] = toInputs(payload, { configFile: { text: null } });
    expect(input?.type === 'config_changed' && input.config.queue_rules.map((r) => r.name)).toEqual([
      'default',
    ]);
  });

  it('the file read is used even when it was only added in an earlier commit of the push', () => {
    const payload = pushEvent({ commits: [{ added: [CONFIG] }, { modified: ['README.md'] }] });
    expect(toInputs(payload, { configFile: { text: '' } }).map((i) => i.type)).toEqual([
      'config_changed',
      'base_branch_moved',
    ]);
  });

  it('on another branch the file is not the configuration', () => {
    const payload = pushEvent({ ref: 'refs/heads/feature-1', commits: [{ modified: [CONFIG] }] });
    expect(toInputs(payload, { configFile: { text: 'queue_rules: 7' } }).map((i) => i.type)).toEqual([
      'base_branch_moved',
    ]);
  });
});

describe('fetchFacts: the configuration at the pushed commit, only when the push may have changed it', () => {
  it.each([
    ['added', { added: [CONFIG] }],
    ['modified', { modified: [CONFIG] }],
    ['removed', { removed: [CONFIG] }],
  ] as const)('%s in a commit of the push: read at the pushed sha', async (_, commit) => {
    nockGetContent(github, { path: CONFIG, ref: 'main-2', text: 'merge_queue:\n  max_parallel_checks: 2\n' });
    const payload = pushEvent({ after: 'main-2', commits: [{ modified: ['README.md'] }, commit] });
    const facts = await fetchFacts(payload, { client: github.client() });
    expect(github.isDone()).toBe(true);
    expect(facts).toEqual({ configFile: { text: 'merge_queue:\n  max_parallel_checks: 2\n' } });
  });

  it('no such file at the pushed sha: text null', async () => {
    nockGetContent(github, { path: CONFIG, ref: 'main-2', text: null });
    const payload = pushEvent({ after: 'main-2', commits: [{ removed: [CONFIG] }] });
    expect(await fetchFacts(payload, { client: github.client() })).toEqual({ configFile: { text: null } });
    expect(github.isDone()).toBe(true);
  });

  it('a force-push may drop a change the commits do not show: read', async () => {
    nockGetContent(github, { path: CONFIG, ref: 'main-3', text: '' });
    const payload = pushEvent({ after: 'main-3', forced: true, commits: [] });
    expect(await fetchFacts(payload, { client: github.client() })).toEqual({ configFile: { text: '' } });
    expect(github.isDone()).toBe(true);
  });

  it('a push that does not touch the file: nothing is read', async () => {
    github.mustNot('GET', /.*/, 'the configuration did not change');
    const payload = pushEvent({ commits: [{ modified: ['src/app.ts'] }] });
    expect(await fetchFacts(payload, { client: github.client() })).toEqual(notRead);
    expect(github.isDone()).toBe(true);
  });

  it('a push to another branch: nothing is read', async () => {
    github.mustNot('GET', /.*/, 'the configuration is read from the default branch');
    const payload = pushEvent({ ref: 'refs/heads/feature-1', commits: [{ modified: [CONFIG] }] });
    expect(await fetchFacts(payload, { client: github.client() })).toEqual(notRead);
    expect(github.isDone()).toBe(true);
  });

  it('a deleted default branch: nothing is read', async () => {
    github.mustNot('GET', /.*/, 'there is no commit to read');
    const payload = pushEvent({ deleted: true, commits: [] });
    expect(await fetchFacts(payload, { client: github.client() })).toEqual(notRead);
    expect(github.isDone()).toBe(true);
  });
});
