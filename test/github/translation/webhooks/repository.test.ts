import { describe, expect, it } from 'vitest';
import { toRepositoryChanges } from '../../../../app/github/translation/webhooks/repository.ts';
import { repositoryEvent } from '../../../support/payloads.ts';

describe('repository → repository changes', () => {
  it('renamed: same id, new name', () => {
    const payload = repositoryEvent('renamed', {
      id: 4242,
      owner: 'acme',
      name: 'gizmos',
      fromName: 'widgets',
    });
    expect(toRepositoryChanges(payload)).toEqual([
      {
        kind: 'renamed',
        githubId: 4242,
        from: { owner: 'acme', name: 'widgets' },
        to: { owner: 'acme', name: 'gizmos' },
      },
    ]);
  });

  it('transferred: same id and name, new owner', () => {
    const payload = repositoryEvent('transferred', {
      id: 4242,
      owner: 'acme-labs',
      name: 'widgets',
      fromOwner: 'acme',
    });
    expect(toRepositoryChanges(payload)).toEqual([
      {
        kind: 'renamed',
        githubId: 4242,
        from: { owner: 'acme', name: 'widgets' },
        to: { owner: 'acme-labs', name: 'widgets' },
      },
    ]);
  });

  it('deleted: removed for good', () => {
    const payload = repositoryEvent('deleted', { id: 4242, owner: 'acme', name: 'widgets' });
    expect(toRepositoryChanges(payload)).toEqual([
      { kind: 'removed', owner: 'acme', name: 'widgets', githubId: 4242, reason: 'deleted' },
    ]);
  });

  it.each(['edited', 'privatized', 'publicized', 'created'] as const)('%s: nothing changes', (action) => {
    expect(toRepositoryChanges(repositoryEvent(action))).toEqual([]);
  });
});
