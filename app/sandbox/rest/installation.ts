import type { components } from '@octokit/openapi-types';
import type { Installation } from '../entities.ts';
import { renderSimpleUser } from './accounts.ts';
import { isoTime, type SandboxUrls } from './urls.ts';

type Schemas = components['schemas'];

/** What the app under test may do, as its manifest (app.yml) asks. */
export const installationPermissions: Schemas['app-permissions'] = {
  actions: 'write',
  administration: 'read',
  checks: 'write',
  contents: 'write',
  issues: 'write',
  metadata: 'read',
  pull_requests: 'write',
  statuses: 'read',
};

export const installationEvents = [
  'check_run',
  'check_suite',
  'issue_comment',
  'pull_request',
  'pull_request_review',
  'push',
  'repository',
  'status',
];

export function renderInstallation(urls: SandboxUrls, installation: Installation): Schemas['installation'] {
  return {
    id: installation.id,
    account: renderSimpleUser(urls, installation.account),
    repository_selection: 'selected',
    access_tokens_url: `${urls.api}/app/installations/${installation.id}/access_tokens`,
    repositories_url: `${urls.api}/installation/repositories`,
    html_url: `${urls.web}/organizations/${installation.account.login}/settings/installations/${installation.id}`,
    app_id: installation.app.id,
    client_id: `Iv1.${installation.app.slug}`,
    target_id: installation.account.id,
    target_type: installation.account.type === 'Organization' ? 'Organization' : 'User',
    permissions: installationPermissions,
    events: installationEvents,
    created_at: isoTime(installation.createdAt),
    updated_at: isoTime(installation.createdAt),
    single_file_name: null,
    has_multiple_single_files: false,
    single_file_paths: [],
    app_slug: installation.app.slug,
    suspended_by: null,
    suspended_at: null,
  };
}
