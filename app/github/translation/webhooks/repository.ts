import type { components } from '@octokit/openapi-webhooks-types';
import type { RepositoryChange } from './repository-change.ts';

type Schemas = components['schemas'];

export type RepositoryEvent = Schemas[`webhook-repository-${
  | 'archived'
  | 'created'
  | 'deleted'
  | 'edited'
  | 'privatized'
  | 'publicized'
  | 'renamed'
  | 'transferred'
  | 'unarchived'}`];

/** Renamed, transferred (a new owner) or deleted; the rest does not change which repository this is. */
export function toRepositoryChanges(payload: RepositoryEvent): RepositoryChange[] {
  const repository = payload.repository;
  const to = { owner: repository.owner.login, name: repository.name };
  switch (payload.action) {
    case 'renamed':
      return [
        {
          kind: 'renamed',
          githubId: repository.id,
          from: { owner: to.owner, name: payload.changes.repository.name.from },
          to,
        },
      ];
    case 'transferred': {
      const from = payload.changes.owner.from;
      const owner = from.user?.login ?? from.organization?.login;
      if (owner === undefined) return [];
      return [{ kind: 'renamed', githubId: repository.id, from: { owner, name: to.name }, to }];
    }
    case 'deleted':
      return [{ kind: 'removed', ...to, githubId: repository.id, reason: 'deleted' }];
    default:
      return [];
  }
}
