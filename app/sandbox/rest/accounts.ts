import type { components } from '@octokit/openapi-types';
import { roleAtLeast } from '../access.ts';
import type { Account, GithubAppInfo, Role } from '../entities.ts';
import { isoTime, nodeId, type SandboxUrls } from './urls.ts';

type Schemas = components['schemas'];

export function renderSimpleUser(urls: SandboxUrls, account: Account): Schemas['simple-user'] {
  const api = `${urls.api}/users/${encodeURIComponent(account.login)}`;
  return {
    login: account.login,
    id: account.id,
    node_id: nodeId(account.type === 'Bot' ? 'Bot' : 'User', account.id),
    avatar_url: `${urls.web}/avatars/u/${account.id}?v=4`,
    gravatar_id: '',
    url: api,
    html_url: `${urls.web}/${account.type === 'Bot' ? 'apps/' : ''}${account.login.replace(/\[bot\]$/, '')}`,
    followers_url: `${api}/followers`,
    following_url: `${api}/following{/other_user}`,
    gists_url: `${api}/gists{/gist_id}`,
    starred_url: `${api}/starred{/owner}{/repo}`,
    subscriptions_url: `${api}/subscriptions`,
    organizations_url: `${api}/orgs`,
    repos_url: `${api}/repos`,
    events_url: `${api}/events{/privacy}`,
    received_events_url: `${api}/received_events`,
    type: account.type,
    user_view_type: 'public',
    site_admin: false,
  };
}

/** GET /user: the account behind a user token. */
export function renderPrivateUser(
  urls: SandboxUrls,
  account: Account,
  createdAt: number,
): Schemas['private-user'] {
  return {
    ...renderSimpleUser(urls, account),
    name: account.name,
    company: null,
    blog: '',
    location: null,
    email: null,
    hireable: null,
    bio: null,
    twitter_username: null,
    public_repos: 0,
    public_gists: 0,
    followers: 0,
    following: 0,
    created_at: isoTime(createdAt),
    updated_at: isoTime(createdAt),
    private_gists: 0,
    total_private_repos: 0,
    owned_private_repos: 0,
    disk_usage: 0,
    collaborators: 0,
    two_factor_authentication: true,
  };
}

/** The permission booleans GitHub derives from a role. */
export function rolePermissions(role: Role | null) {
  const at = (required: Role) => roleAtLeast(role, required);
  return {
    admin: at('admin'),
    maintain: at('maintain'),
    push: at('write'),
    triage: at('triage'),
    pull: at('read'),
  };
}

export function renderCollaborator(urls: SandboxUrls, account: Account, role: Role): Schemas['collaborator'] {
  return { ...renderSimpleUser(urls, account), permissions: rolePermissions(role), role_name: role };
}

/** A GitHub App, as check runs and comments name their author. */
export function renderIntegration(
  urls: SandboxUrls,
  app: GithubAppInfo,
  createdAt: number,
): NonNullable<Schemas['integration']> {
  return {
    id: app.id,
    slug: app.slug,
    node_id: nodeId('Integration', app.id),
    client_id: `Iv1.${app.slug}`,
    owner: renderSimpleUser(urls, app.owner),
    name: app.name,
    description: null,
    external_url: `${urls.web}/apps/${app.slug}`,
    html_url: `${urls.web}/apps/${app.slug}`,
    created_at: isoTime(createdAt),
    updated_at: isoTime(createdAt),
    permissions: {
      checks: 'write',
      contents: 'write',
      issues: 'write',
      metadata: 'read',
      pull_requests: 'write',
      statuses: 'read',
      actions: 'write',
    },
    events: [
      'check_run',
      'check_suite',
      'issue_comment',
      'pull_request',
      'pull_request_review',
      'push',
      'status',
    ],
  };
}
