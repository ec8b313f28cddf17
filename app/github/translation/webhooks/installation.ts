import type { components } from '@octokit/openapi-webhooks-types';
import type { RepositoryClient } from '../../client/client.ts';
import { parseFullName, type RepositoryChange, type RepositoryName } from './repository-change.ts';

type Schemas = components['schemas'];

export type InstallationEvent = Schemas[`webhook-installation-${
  | 'created'
  | 'deleted'
  | 'new-permissions-accepted'
  | 'suspend'
  | 'unsuspend'}`];
export type InstallationRepositoriesEvent =
  Schemas[`webhook-installation-repositories-${'added' | 'removed'}`];

type Listed = { id: number; full_name: string };

export interface InstallationFacts {
  /** The default branch of each added repository, by GitHub id (payloads do not carry it). */
  defaultBranches: Record<number, string>;
}

function addedOf(payload: InstallationEvent | InstallationRepositoriesEvent): Listed[] {
  if (payload.action === 'created') return payload.repositories ?? [];
  if (payload.action === 'added') return payload.repositories_added;
  return [];
}

/**
 * Reads each added repository's default branch, one at a time: an installation on a whole
 * organization can add hundreds at once, and this is not worth a burst against the rate limit.
 */
export async function fetchFacts(
  payload: InstallationEvent | InstallationRepositoriesEvent,
  ctx: { clientFor: (repository: RepositoryName) => RepositoryClient },
): Promise<InstallationFacts> {
  const defaultBranches: Record<number, string> = {};
  for (const repository of addedOf(payload)) {
    const { defaultBranch } = await ctx.clientFor(parseFullName(repository.full_name)).getRepository();
    defaultBranches[repository.id] = defaultBranch;
  }
  return { defaultBranches };
}

/**
 * Installed (on some or all repositories), repositories added or removed, uninstalled. Being
 * suspended keeps the repositories: GitHub stops deliveries until the app is unsuspended.
 */
export function toRepositoryChanges(
  payload: InstallationEvent | InstallationRepositoriesEvent,
  facts: InstallationFacts,
): RepositoryChange[] {
  const installationId = payload.installation.id;
  const removed: Listed[] =
    payload.action === 'deleted'
      ? (payload.repositories ?? [])
      : payload.action === 'removed'
        ? payload.repositories_removed.flatMap((r) =>
            r.id === undefined || r.full_name === undefined ? [] : [{ id: r.id, full_name: r.full_name }],
          )
        : [];
  return [
    ...addedOf(payload).flatMap((repository): RepositoryChange[] => {
      const defaultBranch = facts.defaultBranches[repository.id];
      if (defaultBranch === undefined) return [];
      return [
        {
          kind: 'added',
          ...parseFullName(repository.full_name),
          githubId: repository.id,
          installationId,
          defaultBranch,
        },
      ];
    }),
    ...removed.map(
      (repository): RepositoryChange => ({
        kind: 'removed',
        ...parseFullName(repository.full_name),
        githubId: repository.id,
        reason: 'uninstalled',
      }),
    ),
  ];
}
