import type { components } from '@octokit/openapi-types';
import type { Commit } from '../commit-graph.ts';
import type { Repository } from '../entities.ts';
import { repoApiUrl, repoWebUrl, type SandboxUrls } from './urls.ts';

type Schemas = components['schemas'];

/** GitHub wraps base64 content at 60 characters a line. */
function wrappedBase64(text: string): string {
  return `${(
    Buffer.from(text)
      .toString('base64')
      .match(/.{1,60}/g) ?? []
  ).join('\n')}\n`;
}

function entryUrls(urls: SandboxUrls, repo: Repository, commit: Commit, path: string, kind: 'blob' | 'tree') {
  const encoded = path.split('/').map(encodeURIComponent).join('/');
  const self = `${repoApiUrl(urls, repo)}/contents/${encoded}?ref=${commit.sha}`;
  const html = `${repoWebUrl(urls, repo)}/${kind}/${commit.sha}/${encoded}`;
  return { self, html, encoded };
}

/**
 * GET /contents/{path}: a file (base64), a directory listing, or null when the path names
 * nothing at that commit.
 */
export function renderContents(
  urls: SandboxUrls,
  repo: Repository,
  commit: Commit,
  path: string,
): Schemas['content-file'] | Schemas['content-directory'] | null {
  const clean = path.replace(/^\/+|\/+$/g, '');
  const blob = commit.tree.get(clean);
  if (blob !== undefined) {
    const text = repo.graph.blob(blob) ?? '';
    const { self, html, encoded } = entryUrls(urls, repo, commit, clean, 'blob');
    const git = `${repoApiUrl(urls, repo)}/git/blobs/${blob}`;
    return {
      type: 'file',
      encoding: 'base64',
      size: Buffer.byteLength(text),
      name: clean.split('/').pop()!,
      path: clean,
      content: wrappedBase64(text),
      sha: blob,
      url: self,
      git_url: git,
      html_url: html,
      download_url: `${repoWebUrl(urls, repo)}/raw/${commit.sha}/${encoded}`,
      _links: { self, git, html },
    };
  }
  const prefix = clean === '' ? '' : `${clean}/`;
  const children = new Map<string, 'file' | 'dir'>();
  for (const file of commit.tree.keys()) {
    if (!file.startsWith(prefix)) continue;
    const [name, ...rest] = file.slice(prefix.length).split('/');
    children.set(name!, rest.length > 0 ? 'dir' : 'file');
  }
  if (children.size === 0) return null;
  return [...children].map(([name, type]) => {
    const childPath = `${prefix}${name}`;
    const { self, html, encoded } = entryUrls(
      urls,
      repo,
      commit,
      childPath,
      type === 'file' ? 'blob' : 'tree',
    );
    const sha = type === 'file' ? commit.tree.get(childPath)! : commit.treeSha;
    const git = `${repoApiUrl(urls, repo)}/git/${type === 'file' ? 'blobs' : 'trees'}/${sha}`;
    const size = type === 'file' ? Buffer.byteLength(repo.graph.blob(sha) ?? '') : 0;
    return {
      type,
      size,
      name,
      path: childPath,
      sha,
      url: self,
      git_url: git,
      html_url: html,
      download_url: type === 'file' ? `${repoWebUrl(urls, repo)}/raw/${commit.sha}/${encoded}` : null,
      _links: { self, git, html },
    };
  });
}
