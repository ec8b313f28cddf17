import type { components } from '@octokit/openapi-types';
import type { Commit, FileChange } from '../commit-graph.ts';
import type { Account, Repository } from '../entities.ts';
import { renderSimpleUser } from './accounts.ts';
import { nodeId, repoApiUrl, repoWebUrl, type SandboxUrls } from './urls.ts';

type Schemas = components['schemas'];

export function renderRef(
  urls: SandboxUrls,
  repo: Repository,
  branch: string,
  sha: string,
): Schemas['git-ref'] {
  const api = repoApiUrl(urls, repo);
  return {
    ref: `refs/heads/${branch}`,
    node_id: nodeId('Ref', `${repo.id}:refs/heads/${branch}`),
    url: `${api}/git/refs/heads/${branch}`,
    object: { type: 'commit', sha, url: `${api}/git/commits/${sha}` },
  };
}

/** A file of a diff, as GET /pulls/{n}/files and GET /commits/{ref} list them. */
export function renderDiffEntry(
  urls: SandboxUrls,
  repo: Repository,
  change: FileChange,
  headSha: string,
): Schemas['diff-entry'] {
  const lines = (blob: string | null) => (blob ? (repo.graph.blob(blob) ?? '').split('\n').length : 0);
  const additions = change.status === 'removed' ? 0 : lines(change.sha);
  const deletions = change.status === 'added' ? 0 : lines(change.previousSha);
  const path = change.path.split('/').map(encodeURIComponent).join('/');
  return {
    sha: change.sha ?? change.previousSha,
    filename: change.path,
    status: change.status,
    additions,
    deletions,
    changes: additions + deletions,
    blob_url: `${repoWebUrl(urls, repo)}/blob/${headSha}/${path}`,
    raw_url: `${repoWebUrl(urls, repo)}/raw/${headSha}/${path}`,
    contents_url: `${repoApiUrl(urls, repo)}/contents/${path}?ref=${headSha}`,
  };
}

/** The `commit` schema: POST /merges and GET /commits/{ref}. */
export function renderCommit(
  urls: SandboxUrls,
  repo: Repository,
  commit: Commit,
  accounts: { author: Account | null; committer: Account | null },
): Schemas['commit'] {
  const api = repoApiUrl(urls, repo);
  const parent = repo.graph.get(commit.parents[0] ?? '');
  const files = repo.graph.diff(parent?.tree ?? new Map(), commit.tree);
  const entries = files.map((f) => renderDiffEntry(urls, repo, f, commit.sha));
  const additions = entries.reduce((n, e) => n + e.additions, 0);
  const deletions = entries.reduce((n, e) => n + e.deletions, 0);
  return {
    url: `${api}/commits/${commit.sha}`,
    sha: commit.sha,
    node_id: nodeId('Commit', commit.sha),
    html_url: `${repoWebUrl(urls, repo)}/commit/${commit.sha}`,
    comments_url: `${api}/commits/${commit.sha}/comments`,
    commit: {
      url: `${api}/git/commits/${commit.sha}`,
      author: commit.author,
      committer: commit.committer,
      message: commit.message,
      comment_count: 0,
      tree: { sha: commit.treeSha, url: `${api}/git/trees/${commit.treeSha}` },
      verification: {
        verified: false,
        reason: 'unsigned',
        signature: null,
        payload: null,
        verified_at: null,
      },
    },
    author: accounts.author ? renderSimpleUser(urls, accounts.author) : null,
    committer: accounts.committer ? renderSimpleUser(urls, accounts.committer) : null,
    parents: commit.parents.map((sha) => ({
      sha,
      url: `${api}/commits/${sha}`,
      html_url: `${repoWebUrl(urls, repo)}/commit/${sha}`,
    })),
    stats: { additions, deletions, total: additions + deletions },
    files: entries,
  };
}

/** The `git-commit` schema: GET /git/commits/{sha}. */
export function renderGitCommit(urls: SandboxUrls, repo: Repository, commit: Commit): Schemas['git-commit'] {
  const api = repoApiUrl(urls, repo);
  return {
    sha: commit.sha,
    node_id: nodeId('Commit', commit.sha),
    url: `${api}/git/commits/${commit.sha}`,
    html_url: `${repoWebUrl(urls, repo)}/commit/${commit.sha}`,
    author: commit.author,
    committer: commit.committer,
    message: commit.message,
    tree: { sha: commit.treeSha, url: `${api}/git/trees/${commit.treeSha}` },
    parents: commit.parents.map((sha) => ({
      sha,
      url: `${api}/git/commits/${sha}`,
      html_url: `${repoWebUrl(urls, repo)}/commit/${sha}`,
    })),
    verification: { verified: false, reason: 'unsigned', signature: null, payload: null, verified_at: null },
  };
}
