import { CONFIG_PATH, parseConfig } from '../../config/load-config.ts';
import type { QueueInput } from '../../queue/inputs.ts';
import type { Store } from '../../store/database.ts';
import { type Repository, saveInstalledRepository } from '../../store/repositories.ts';
import type { RepositoryClient } from '../client/client.ts';
import type { InstallationOctokits } from '../client/octokit.ts';
import { createInstallationRepositoryClient } from '../client/repository-client.ts';
import type { RepositoryLookup } from './repository-lookup.ts';
import { shareReads } from './shared-reads.ts';

/** The part of every repository webhook payload the shell needs to find its repository. */
export interface RepositoryPayload {
  installation?: { id: number } | null;
  repository?: { id: number; name: string; owner: { login: string }; default_branch?: string } | null;
}

export interface RepositoryContext {
  repository: Repository;
  client: RepositoryClient;
  /**
   * Inputs to apply before the delivery's own: a repository seen for the first time starts
   * with its `.github/trainyard.yml` from the default branch.
   */
  bootstrap: QueueInput[];
}

/**
 * Resolves, once per delivery, the repository row and the installation's client.
 * A repository Trainyard has not stored yet (its installation webhook was missed, or it came
 * before this database existed) is stored now, and its configuration is read.
 */
export async function resolveRepositoryContext(params: {
  store: Store;
  octokits: InstallationOctokits;
  repositories: RepositoryLookup;
  payload: RepositoryPayload;
  /** The client's reads are shared by the deliveries of a group (shared-reads.ts). */
  shareReads?: boolean;
}): Promise<RepositoryContext | null> {
  const { payload } = params;
  const installationId = payload.installation?.id;
  const repo = payload.repository;
  if (installationId === undefined || repo === undefined || repo === null) return null;
  const owner = repo.owner.login;
  const own = createInstallationRepositoryClient(params.octokits, {
    installationId,
    owner,
    repo: repo.name,
  });
  const client = params.shareReads === true ? shareReads(own) : own;
  const known = await params.repositories.find(params.store.db, owner, repo.name);
  if (known !== null && known.installationId === String(installationId)) {
    return { repository: known, client, bootstrap: [] };
  }
  const defaultBranch = repo.default_branch ?? (await client.getRepository()).defaultBranch;
  const repository = await saveInstalledRepository(params.store.db, {
    githubId: repo.id,
    owner,
    name: repo.name,
    installationId,
    defaultBranch,
  });
  // Kept only now: saveInstalledRepository committed in a transaction of its own (store.db), so
  // the lookup never holds a row that a rollback took back.
  params.repositories.keep(repository);
  const bootstrap = known === null ? [await fetchConfigInput(client, defaultBranch)] : [];
  return { repository, client, bootstrap };
}

/** The repository's configuration on `ref` as an engine input (no file: the defaults). */
export async function fetchConfigInput(client: RepositoryClient, ref: string): Promise<QueueInput> {
  const text = await client.getFileText({ path: CONFIG_PATH, ref });
  const result = parseConfig(text ?? '');
  return result.ok
    ? { type: 'config_changed', config: result.config }
    : { type: 'config_rejected', errors: result.errors };
}
