import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GithubPermissions } from '../../app/api/auth/github-permissions.ts';
import { startSandboxServer } from '../../app/sandbox/server.ts';
import { type SandboxHarness, startSandboxHarness } from '../support/sandbox-harness.ts';

let h: SandboxHarness;
beforeAll(async () => {
  h = await startSandboxHarness();
});
afterAll(async () => {
  await h.close();
});

const get = (path: string, authorization?: string) =>
  fetch(`${h.server.url}${path}`, { headers: authorization ? { authorization } : {} });

/** A JWT-shaped token: GitHub's checks on the claims apply; the signature is not verified. */
function jwt(claims: Record<string, unknown>, alg = 'RS256'): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg, typ: 'JWT' })}.${part(claims)}.c2lnbmF0dXJl`;
}

describe('authentication and permissions', () => {
  it('listens on loopback only', async () => {
    await expect(startSandboxServer({ github: h.github, host: '0.0.0.0' })).rejects.toThrow(/loopback only/);
    expect(new URL(h.server.url).hostname).toBe('127.0.0.1');
  });

  it('requires a token, refuses unknown ones, and answers unknown routes with GitHub’s 404 body', async () => {
    h.installedRepository('guarded');
    const anonymous = await get('/repos/acme/guarded');
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({
      message: 'Requires authentication',
      documentation_url: 'https://docs.github.com/rest',
      status: '401',
    });
    expect((await get('/repos/acme/guarded', 'token ghs_not-a-real-token')).status).toBe(401);
    const { octokit } = h.installedRepository('json');
    const token = ((await octokit.auth({ type: 'installation' })) as { token: string }).token;
    const garbled = await fetch(`${h.server.url}/repos/acme/json/git/refs`, {
      method: 'POST',
      headers: { authorization: `token ${token}`, 'content-type': 'application/json' },
      body: '{"ref": ',
    });
    expect([garbled.status, ((await garbled.json()) as { message: string }).message]).toEqual([
      400,
      'Problems parsing JSON',
    ]);
    const unknown = await get('/no/such/route', 'token x');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({
      message: 'Not Found',
      documentation_url: 'https://docs.github.com/rest',
      status: '404',
    });
  });

  it('trades an app JWT for an installation token scoped to the installation’s repositories', async () => {
    const { repo } = h.installedRepository('scoped');
    const other = h.github.createRepository({ owner: 'acme', name: 'not-installed', private: true });
    const installation = h.github.access.installationOf(repo, h.github.app.id)!;
    const now = Math.floor(Date.now() / 1000);
    const post = (token: string) =>
      fetch(`${h.server.url}/app/installations/${installation.id}/access_tokens`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
      });
    expect((await post(jwt({ iat: now, exp: now + 600, iss: 999 }))).status).toBe(401);
    expect((await post(jwt({ iat: now, exp: now + 3600, iss: 1 }))).status).toBe(401);
    expect((await post(jwt({ iat: now, exp: now + 600, iss: 1 }, 'HS256'))).status).toBe(401);
    expect((await post('ghs_installation-tokens-are-not-jwts')).status).toBe(401);
    const issued = await post(jwt({ iat: now - 60, exp: now + 540, iss: '1' }));
    expect(issued.status).toBe(201);
    const body = (await issued.json()) as { token: string; expires_at: string; repository_selection: string };
    expect(body).toMatchObject({ token: expect.stringMatching(/^ghs_/), repository_selection: 'selected' });

    expect((await get('/repos/acme/scoped', `token ${body.token}`)).status).toBe(200);
    expect((await get(`/repos/${other.owner.login}/${other.name}`, `Bearer ${body.token}`)).status).toBe(404);
    const listed = (await (await get('/installation/repositories', `token ${body.token}`)).json()) as {
      repositories: { full_name: string }[];
    };
    expect(listed.repositories.map((r) => r.full_name)).toEqual(['acme/scoped']);
    expect((await get('/user', `token ${body.token}`)).status).toBe(403);
  });

  it('reports people’s roles through collaborators/{user}/permission', async () => {
    const { repo, octokit } = h.installedRepository('roles');
    h.github.grant(repo, 'maria', 'maintain');
    h.github.grant(repo, 'tom', 'triage');
    h.github.account('stranger');
    const params = { owner: 'acme', repo: 'roles' };
    const level = async (username: string) => {
      const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({ ...params, username });
      return `${data.permission}/${data.role_name}`;
    };
    expect(await level('maria')).toBe('write/maintain');
    expect(await level('tom')).toBe('read/triage');
    expect(await level('acme')).toBe('admin/admin');
    expect(await level('stranger')).toBe('read/read');
    await expect(level('nobody-at-all')).rejects.toMatchObject({ status: 404 });
  });

  it('answers the API’s token checks (GithubPermissions) from user tokens with given roles', async () => {
    const { repo } = h.installedRepository('token-checks');
    h.github.createRepository({ owner: 'acme', name: 'secret', private: true });
    h.github.grant(repo, 'wendy', 'write');
    h.github.grant(repo, 'rita', 'read');
    const token = (login: string) => h.github.access.issueUserToken(h.github.account(login));
    const permissions = new GithubPermissions({ apiBaseUrl: h.server.url });
    expect(await permissions.accessTo(token('wendy'), 'acme', 'token-checks')).toBe('write');
    expect(await permissions.accessTo(token('rita'), 'acme', 'token-checks')).toBe('read');
    expect(await permissions.accessTo(token('rita'), 'acme', 'secret')).toBe('none');
    expect(await permissions.accessTo(token('acme'), 'acme', 'secret')).toBe('write');
    expect(await permissions.accessTo('ghu_revoked', 'acme', 'token-checks')).toBe('none');
    expect(await permissions.userOf(token('wendy'))).toEqual({
      id: h.github.account('wendy').id,
      login: 'wendy',
    });
    expect(await permissions.userOf('ghu_revoked')).toBeNull();
  });
});
