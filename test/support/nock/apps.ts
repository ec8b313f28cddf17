import type nock from 'nock';
import type { GithubNock } from './github-nock.ts';

/** POST /app/installations/{id}/access_tokens, signed with the app's JWT (`bearer` authorization). */
export function nockInstallationToken(
  github: GithubNock,
  params: { installationId: number; token: string; onJwt?: (jwt: string) => void },
): nock.Scope {
  const scope = github.scope();
  scope.post(`/api/v3/app/installations/${params.installationId}/access_tokens`).reply(function reply() {
    const authorization = String(this.req.headers['authorization'] ?? '');
    params.onJwt?.(authorization.replace(/^bearer /i, ''));
    return [
      201,
      {
        token: params.token,
        expires_at: new Date(Date.now() + 3600_000).toISOString(),
        permissions: { contents: 'write', pull_requests: 'write', checks: 'write' },
        repository_selection: 'all',
      },
    ];
  });
  return scope;
}
