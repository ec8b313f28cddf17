import type { components } from '@octokit/openapi-types';
import type { Repository, Role } from '../entities.ts';
import { renderSimpleUser, rolePermissions } from './accounts.ts';
import { fullName, isoTime, nodeId, repoApiUrl, repoWebUrl, type SandboxUrls } from './urls.ts';

type Schemas = components['schemas'];

/** The `repository` schema (embedded in pull requests, installation listings and payloads). */
export function renderRepository(urls: SandboxUrls, repo: Repository): Schemas['repository'] {
  const api = repoApiUrl(urls, repo);
  const web = repoWebUrl(urls, repo);
  const openIssues = [...repo.pulls.values()].filter((p) => p.state === 'open').length;
  return {
    id: repo.id,
    node_id: nodeId('Repository', repo.id),
    name: repo.name,
    full_name: fullName(repo),
    license: null,
    forks: 0,
    owner: renderSimpleUser(urls, repo.owner),
    private: repo.private,
    html_url: web,
    description: null,
    fork: false,
    url: api,
    archive_url: `${api}/{archive_format}{/ref}`,
    assignees_url: `${api}/assignees{/user}`,
    blobs_url: `${api}/git/blobs{/sha}`,
    branches_url: `${api}/branches{/branch}`,
    collaborators_url: `${api}/collaborators{/collaborator}`,
    comments_url: `${api}/comments{/number}`,
    commits_url: `${api}/commits{/sha}`,
    compare_url: `${api}/compare/{base}...{head}`,
    contents_url: `${api}/contents/{+path}`,
    contributors_url: `${api}/contributors`,
    deployments_url: `${api}/deployments`,
    downloads_url: `${api}/downloads`,
    events_url: `${api}/events`,
    forks_url: `${api}/forks`,
    git_commits_url: `${api}/git/commits{/sha}`,
    git_refs_url: `${api}/git/refs{/sha}`,
    git_tags_url: `${api}/git/tags{/sha}`,
    git_url: `${web.replace(/^https?/, 'git')}.git`,
    issue_comment_url: `${api}/issues/comments{/number}`,
    issue_events_url: `${api}/issues/events{/number}`,
    issues_url: `${api}/issues{/number}`,
    keys_url: `${api}/keys{/key_id}`,
    labels_url: `${api}/labels{/name}`,
    languages_url: `${api}/languages`,
    merges_url: `${api}/merges`,
    milestones_url: `${api}/milestones{/number}`,
    notifications_url: `${api}/notifications{?since,all,participating}`,
    pulls_url: `${api}/pulls{/number}`,
    releases_url: `${api}/releases{/id}`,
    ssh_url: `git@sandbox:${fullName(repo)}.git`,
    stargazers_url: `${api}/stargazers`,
    statuses_url: `${api}/statuses/{sha}`,
    subscribers_url: `${api}/subscribers`,
    subscription_url: `${api}/subscription`,
    tags_url: `${api}/tags`,
    teams_url: `${api}/teams`,
    trees_url: `${api}/git/trees{/sha}`,
    clone_url: `${web}.git`,
    mirror_url: null,
    hooks_url: `${api}/hooks`,
    svn_url: web,
    homepage: null,
    language: null,
    forks_count: 0,
    stargazers_count: 0,
    watchers_count: 0,
    size: repo.graph.get(repo.branches.get(repo.defaultBranch) ?? '')?.tree.size ?? 0,
    default_branch: repo.defaultBranch,
    open_issues_count: openIssues,
    is_template: false,
    topics: [],
    has_issues: true,
    has_projects: true,
    has_wiki: false,
    has_pages: false,
    has_downloads: true,
    has_discussions: false,
    archived: false,
    disabled: false,
    visibility: repo.private ? 'private' : 'public',
    pushed_at: isoTime(repo.pushedAt),
    created_at: isoTime(repo.createdAt),
    updated_at: isoTime(repo.pushedAt),
    allow_rebase_merge: true,
    allow_squash_merge: true,
    allow_merge_commit: true,
    allow_auto_merge: false,
    delete_branch_on_merge: false,
    allow_update_branch: true,
    allow_forking: true,
    web_commit_signoff_required: false,
    open_issues: openIssues,
    watchers: 0,
  };
}

/**
 * GET /repos/{o}/{r}. A user token sees its `permissions`; an installation token does not
 * (the API's token check relies on that difference).
 */
export function renderFullRepository(
  urls: SandboxUrls,
  repo: Repository,
  viewer: { role: Role | null } | null,
): Schemas['full-repository'] {
  const { license: _license, forks: _forks, ...base } = renderRepository(urls, repo);
  return {
    ...base,
    has_discussions: false,
    pushed_at: isoTime(repo.pushedAt),
    created_at: isoTime(repo.createdAt),
    updated_at: isoTime(repo.pushedAt),
    ...(viewer ? { permissions: rolePermissions(viewer.role) } : {}),
    subscribers_count: 0,
    network_count: 0,
    license: null,
    forks: 0,
    ...(repo.owner.type === 'Organization' ? { organization: renderRepository(urls, repo).owner } : {}),
  };
}

/** The `minimal-repository` schema (check suites, workflow runs, combined statuses). */
export function renderMinimalRepository(urls: SandboxUrls, repo: Repository): Schemas['minimal-repository'] {
  return { ...renderRepository(urls, repo), license: null };
}
