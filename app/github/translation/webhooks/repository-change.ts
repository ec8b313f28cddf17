/*
 * What installation and repository webhooks mean for the store's list of repositories. Not
 * engine inputs: they change which repositories Trainyard serves, not any queue.
 */

export interface RepositoryName {
  owner: string;
  name: string;
}

export type RepositoryChange =
  /** The app can now act on this repository. */
  | {
      kind: 'added';
      owner: string;
      name: string;
      githubId: number;
      installationId: number;
      defaultBranch: string;
    }
  /**
   * `uninstalled`: the app lost access (its history is kept, it may come back); `deleted`: the
   * repository is gone from GitHub.
   */
  | { kind: 'removed'; owner: string; name: string; githubId: number; reason: 'uninstalled' | 'deleted' }
  /** Renamed or transferred to another owner; GitHub's id stays. */
  | { kind: 'renamed'; githubId: number; from: RepositoryName; to: RepositoryName };

/** `octo-org/hello-world` → owner and name. */
export function parseFullName(fullName: string): RepositoryName {
  const slash = fullName.indexOf('/');
  return { owner: fullName.slice(0, slash), name: fullName.slice(slash + 1) };
}
