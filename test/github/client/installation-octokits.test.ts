import { createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { InstallationOctokits, testRequestPolicy } from '../../../app/github/client/octokit.ts';
import {
  createInstallationRepositoryClient,
  createRepositoryClient,
} from '../../../app/github/client/repository-client.ts';
import { nockInstallationToken } from '../../support/nock/apps.ts';
import { nockCreateCheckRun, nockListCheckRuns } from '../../support/nock/checks.ts';
import { GITHUB_API, OWNER, REPO, useGithubNock } from '../../support/nock/github-nock.ts';
import { nockGetRepository } from '../../support/nock/repos.ts';

const github = useGithubNock();
const APP_ID = 777;
// A real key, in PKCS#1 as GitHub issues it: auth-app signs the app's JWT with it.
const { privateKey, publicKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});

function decodeJwt(jwt: string): {
  header: unknown;
  payload: Record<string, number | string>;
  valid: boolean;
} {
  const [header, payload, signature] = jwt.split('.') as [string, string, string];
  const valid = verify(
    'RSA-SHA256',
    Buffer.from(`${header}.${payload}`),
    createPublicKey(publicKey),
    Buffer.from(signature, 'base64url'),
  );
  const json = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  return { header: json(header), payload: json(payload), valid };
}

describe('installation-authenticated octokits', () => {
  it("creates an installation token with the app's signed JWT and sends it on the repository's requests", async () => {
    const jwts: string[] = [];
    nockInstallationToken(github, {
      installationId: 42,
      token: 'ghs_installation42',
      onJwt: (jwt) => jwts.push(jwt),
    });
    nockGetRepository(github, { authorization: 'token ghs_installation42' });
    const octokits = new InstallationOctokits(
      { appId: APP_ID, privateKey, baseUrl: GITHUB_API },
      { policy: testRequestPolicy },
    );

    const client = createRepositoryClient(octokits.forInstallation(42), { owner: OWNER, repo: REPO });

    expect(await client.getRepository()).toEqual({ id: 4242, defaultBranch: 'main' });
    const jwt = decodeJwt(jwts[0]!);
    expect(jwt.valid).toBe(true);
    expect(jwt.header).toEqual({ alg: 'RS256', typ: 'JWT' });
    expect(jwt.payload['iss']).toBe(APP_ID);
    expect(github.requests.map((r) => r.request)).toMatchInlineSnapshot(`
      [
        "POST /app/installations/42/access_tokens",
        "GET /repos/acme/widgets",
      ]
    `);
    expect(github.isDone()).toBe(true);
  });

  it('reuses the token for later requests and later effects of the same installation', async () => {
    nockInstallationToken(github, { installationId: 42, token: 'ghs_installation42' });
    nockGetRepository(github, { authorization: 'token ghs_installation42', times: 2 });
    github.mustNot('POST', '/api/v3/app/installations/42/access_tokens', 'must not create a second token');
    const octokits = new InstallationOctokits(
      { appId: APP_ID, privateKey, baseUrl: GITHUB_API },
      { policy: testRequestPolicy },
    );

    await createRepositoryClient(octokits.forInstallation(42), { owner: OWNER, repo: REPO }).getRepository();
    await createRepositoryClient(octokits.forInstallation(42), { owner: OWNER, repo: REPO }).getRepository();

    expect(octokits.forInstallation(42)).toBe(octokits.forInstallation(42));
    expect(github.isDone()).toBe(true);
  });

  it('each installation has its own token', async () => {
    nockInstallationToken(github, { installationId: 42, token: 'ghs_installation42' });
    nockInstallationToken(github, { installationId: 43, token: 'ghs_installation43' });
    nockGetRepository(github, { authorization: 'token ghs_installation42' });
    nockGetRepository(github, { authorization: 'token ghs_installation43' });
    const octokits = new InstallationOctokits(
      { appId: APP_ID, privateKey, baseUrl: GITHUB_API },
      { policy: testRequestPolicy },
    );

    await createRepositoryClient(octokits.forInstallation(42), { owner: OWNER, repo: REPO }).getRepository();
    await createRepositoryClient(octokits.forInstallation(43), { owner: OWNER, repo: REPO }).getRepository();

    expect(github.isDone()).toBe(true);
  });

  it("the outbox's client looks up check runs of this app only", async () => {
    nockInstallationToken(github, { installationId: 42, token: 'ghs_installation42' });
    nockListCheckRuns(github, {
      sha: 'pr-3-head',
      query: { check_name: 'Trainyard', app_id: String(APP_ID) },
      pages: [[]],
    });
    nockCreateCheckRun(github, { id: 31 });
    const octokits = new InstallationOctokits(
      { appId: APP_ID, privateKey, baseUrl: GITHUB_API },
      { policy: testRequestPolicy },
    );

    await createInstallationRepositoryClient(octokits, {
      installationId: 42,
      owner: OWNER,
      repo: REPO,
    }).upsertCheckRun({
      name: 'Trainyard',
      headSha: 'pr-3-head',
      status: 'queued',
      conclusion: null,
      title: 'Waiting in queue',
      summary: 'Waiting in queue.',
    });

    expect(github.isDone()).toBe(true);
  });
});
