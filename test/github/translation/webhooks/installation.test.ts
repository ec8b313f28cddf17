import { describe, expect, it } from 'vitest';
import { createTokenOctokit, testRequestPolicy } from '../../../../app/github/client/octokit.ts';
import { createRepositoryClient } from '../../../../app/github/client/repository-client.ts';
import { fetchFacts, toRepositoryChanges } from '../../../../app/github/translation/webhooks/installation.ts';
import { GITHUB_API, useGithubNock } from '../../../support/nock/github-nock.ts';
import { installationEvent, installationRepositoriesEvent } from '../../../support/payloads.ts';

const github = useGithubNock();

const widgets = { id: 4242, fullName: 'acme/widgets' };
const gadgets = { id: 4343, fullName: 'acme/gadgets' };

describe('installation → repository changes', () => {
  it('installed on some repositories: each is added with its default branch', () => {
    const payload = installationEvent('created', { installationId: 77, repositories: [widgets, gadgets] });
    expect(toRepositoryChanges(payload, { defaultBranches: { 4242: 'main', 4343: 'trunk' } })).toEqual([
      {
        kind: 'added',
        owner: 'acme',
        name: 'widgets',
        githubId: 4242,
        installationId: 77,
        defaultBranch: 'main',
      },
      {
        kind: 'added',
        owner: 'acme',
        name: 'gadgets',
        githubId: 4343,
        installationId: 77,
        defaultBranch: 'trunk',
      },
    ]);
  });

  it('uninstalled: each repository is removed, its history kept', () => {
    const payload = installationEvent('deleted', { installationId: 77, repositories: [widgets] });
    expect(toRepositoryChanges(payload, { defaultBranches: {} })).toEqual([
      { kind: 'removed', owner: 'acme', name: 'widgets', githubId: 4242, reason: 'uninstalled' },
    ]);
  });

  it.each(['suspend', 'unsuspend', 'new_permissions_accepted'] as const)('%s: nothing changes', (action) => {
    expect(toRepositoryChanges(installationEvent(action), { defaultBranches: {} })).toEqual([]);
  });

  it('a repository whose default branch could not be read is not added half-known', () => {
    const payload = installationEvent('created', { repositories: [widgets] });
    expect(toRepositoryChanges(payload, { defaultBranches: {} })).toEqual([]);
  });
});

describe('installation_repositories → repository changes', () => {
  it('added', () => {
    const payload = installationRepositoriesEvent('added', { installationId: 77, added: [gadgets] });
    expect(toRepositoryChanges(payload, { defaultBranches: { 4343: 'main' } })).toEqual([
      {
        kind: 'added',
        owner: 'acme',
        name: 'gadgets',
        githubId: 4343,
        installationId: 77,
        defaultBranch: 'main',
      },
    ]);
  });

  it('removed', () => {
    const payload = installationRepositoriesEvent('removed', { removed: [widgets] });
    expect(toRepositoryChanges(payload, { defaultBranches: {} })).toEqual([
      { kind: 'removed', owner: 'acme', name: 'widgets', githubId: 4242, reason: 'uninstalled' },
    ]);
  });
});

describe('fetchFacts: the default branch of each added repository', () => {
  const clientFor = ({ owner, name }: { owner: string; name: string }) =>
    createRepositoryClient(
      createTokenOctokit({ token: 'ghs_test', baseUrl: GITHUB_API, policy: testRequestPolicy }),
      {
        owner,
        repo: name,
      },
    );

  it('asks GitHub for each added repository', async () => {
    github.scope().get('/api/v3/repos/acme/widgets').reply(200, { id: 4242, default_branch: 'main' });
    github.scope().get('/api/v3/repos/acme/gadgets').reply(200, { id: 4343, default_branch: 'trunk' });
    const payload = installationEvent('created', { repositories: [widgets, gadgets] });
    expect(await fetchFacts(payload, { clientFor })).toEqual({
      defaultBranches: { 4242: 'main', 4343: 'trunk' },
    });
    expect(github.isDone()).toBe(true);
  });

  it('removals need nothing from GitHub', async () => {
    github.mustNot('GET', /.*/, 'a removed repository is known by its payload');
    const payload = installationRepositoriesEvent('removed', { removed: [widgets] });
    expect(await fetchFacts(payload, { clientFor })).toEqual({ defaultBranches: {} });
    expect(github.isDone()).toBe(true);
  });
});
