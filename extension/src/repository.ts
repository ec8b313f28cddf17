import * as vscode from 'vscode';
import { settings } from './ids.ts';

export interface RepositoryRef {
  owner: string;
  name: string;
}

const REPOSITORY_PATTERN = /^([a-zA-Z0-9-]{1,40})\/([\w.-]{1,100})$/;

export function parseRepository(text: string): RepositoryRef | null {
  const match = REPOSITORY_PATTERN.exec(text.trim());
  return match ? { owner: match[1]!, name: match[2]! } : null;
}

export function formatRepository(ref: RepositoryRef): string {
  return `${ref.owner}/${ref.name}`;
}

/** owner/name from a GitHub remote URL (https, ssh or scp-like), else null. */
export function repositoryFromRemoteUrl(url: string): RepositoryRef | null {
  const match = /github\.com[:/]([^/\s]+)\/([^/\s]+?)(?:\.git)?\/?$/.exec(url.trim());
  return match ? parseRepository(`${match[1]}/${match[2]}`) : null;
}

// The part of the built-in git extension's API (extensions/git/src/api/git.d.ts) used here.
interface GitRemote {
  name: string;
  fetchUrl?: string;
  pushUrl?: string;
}
interface GitRepository {
  state: { remotes: GitRemote[]; HEAD?: { name?: string } | undefined };
}
interface GitApi {
  repositories: GitRepository[];
  onDidOpenRepository: vscode.Event<GitRepository>;
}
interface GitExtension {
  getAPI(version: 1): GitApi;
}

async function gitApi(): Promise<GitApi | null> {
  try {
    const extension = vscode.extensions.getExtension<GitExtension>('vscode.git');
    if (!extension) return null;
    const exports = extension.isActive ? extension.exports : await extension.activate();
    return exports.getAPI(1);
  } catch {
    return null; // git disabled or unavailable
  }
}

/** GitHub repositories named by the workspace's git remotes, `origin` and `upstream` first. */
export async function detectRepositories(): Promise<RepositoryRef[]> {
  const api = await gitApi();
  if (!api) return [];
  const rank = (name: string) => (name === 'upstream' ? 0 : name === 'origin' ? 1 : 2);
  const found = new Map<string, RepositoryRef>();
  for (const repo of api.repositories) {
    for (const remote of [...repo.state.remotes].sort((a, b) => rank(a.name) - rank(b.name))) {
      const ref = repositoryFromRemoteUrl(remote.fetchUrl ?? remote.pushUrl ?? '');
      if (ref) found.set(formatRepository(ref), ref);
    }
  }
  return [...found.values()];
}

/** The setting wins; otherwise the first GitHub remote of the workspace. */
export async function resolveRepository(): Promise<RepositoryRef | null> {
  const configured = vscode.workspace.getConfiguration(settings.section).get<string>(settings.repository, '');
  if (configured.trim()) return parseRepository(configured);
  return (await detectRepositories())[0] ?? null;
}

/** Fires when the git extension opens a repository (its remotes may name the queue's repository). */
export async function onDidOpenGitRepository(listener: () => void): Promise<vscode.Disposable> {
  const api = await gitApi();
  return api ? api.onDidOpenRepository(() => listener()) : new vscode.Disposable(() => {});
}

/** The branch checked out in the workspace's first git repository, or null (detached, no git). */
export async function currentBranch(): Promise<string | null> {
  const api = await gitApi();
  return api?.repositories[0]?.state.HEAD?.name ?? null;
}
