import { randomBytes } from 'node:crypto';
import type { Account, GithubAppInfo, Installation, Repository, Role, Token } from './entities.ts';
import { GithubError } from './github-error.ts';
import type { SandboxCore } from './sandbox-core.ts';

/** GitHub's installation tokens live an hour. */
const installationTokenLifetimeMs = 60 * 60 * 1000;

const roleOrder: Role[] = ['read', 'triage', 'write', 'maintain', 'admin'];

/** Whether `role` is at least `required`. */
export function roleAtLeast(role: Role | null, required: Role): boolean {
  return role !== null && roleOrder.indexOf(role) >= roleOrder.indexOf(required);
}

/**
 * Who may do what: app installations and their tokens, user tokens, and people's roles on
 * repositories. Tokens are random: a restarted sandbox must not honour yesterday's tokens.
 */
export class AccessControl {
  private readonly tokens = new Map<string, Token>();
  readonly installations = new Map<number, Installation>();

  constructor(private readonly core: SandboxCore) {}

  install(params: {
    app: GithubAppInfo;
    account: Account;
    repos: Repository[];
    sender: Account;
  }): Installation {
    const installation: Installation = {
      id: this.core.ids.take('installation'),
      app: params.app,
      account: params.account,
      repositoryIds: new Set(params.repos.map((r) => r.id)),
      createdAt: this.core.clock.now(),
    };
    this.installations.set(installation.id, installation);
    this.core.emit({
      type: 'installation',
      action: 'created',
      installation,
      repos: params.repos,
      sender: params.sender,
    });
    return installation;
  }

  installationOf(repo: Repository, appId: number): Installation | undefined {
    return [...this.installations.values()].find((i) => i.app.id === appId && i.repositoryIds.has(repo.id));
  }

  /** POST /app/installations/{id}/access_tokens. */
  issueInstallationToken(installationId: number): Extract<Token, { kind: 'installation' }> {
    const installation = this.installations.get(installationId);
    if (!installation) throw GithubError.notFound();
    const token = {
      kind: 'installation' as const,
      token: `ghs_${randomToken()}`,
      installation,
      // Wall-clock time: the app's token cache compares it with its own clock, and a token
      // that looked expired on a virtual clock would be fetched again on every request.
      expiresAt: Date.now() + installationTokenLifetimeMs,
    };
    this.tokens.set(token.token, token);
    return token;
  }

  /** A personal token for `user`, as the API's token checks and the extension use. */
  issueUserToken(user: Account): string {
    const token = `ghu_${randomToken()}`;
    this.tokens.set(token, { kind: 'user', token, user });
    return token;
  }

  /** Revokes a token (what an expired or deleted token looks like to the app). */
  revoke(token: string): void {
    this.tokens.delete(token);
  }

  authenticate(token: string): Token | undefined {
    return this.tokens.get(token);
  }

  /** A person's role: the owner is admin; collaborators have theirs; anyone else none. */
  roleOf(repo: Repository, user: Account): Role | null {
    if (repo.owner.id === user.id) return 'admin';
    return repo.collaborators.get(user.login.toLowerCase()) ?? null;
  }

  /** What a token may do on a repository; null when it may not even see it (GitHub answers 404). */
  accessOf(token: Token, repo: Repository): 'read' | 'write' | null {
    if (token.kind === 'installation') return token.installation.repositoryIds.has(repo.id) ? 'write' : null;
    const role = this.roleOf(repo, token.user);
    if (roleAtLeast(role, 'write')) return 'write';
    if (role !== null || !repo.private) return 'read';
    return null;
  }

  /** The account a token acts as: the app's bot for an installation token. */
  actorOf(token: Token): Account {
    return token.kind === 'installation' ? token.installation.app.bot : token.user;
  }
}

function randomToken(): string {
  return randomBytes(27).toString('base64url').replace(/[-_]/g, 'x').slice(0, 36);
}
