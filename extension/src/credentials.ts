import * as vscode from 'vscode';
import { apiKeySecret } from './ids.ts';
import { Disposable } from './lifecycle.ts';

export type Credential =
  | { kind: 'apiKey'; token: string }
  | { kind: 'github'; token: string; account: string };

const GITHUB_SCOPES = ['repo'];
/** code-server may have no GitHub provider at all: never wait on it for long. */
const SILENT_SESSION_TIMEOUT_MS = 3_000;

/**
 * The token the extension sends: an application key from SecretStorage (never a setting) when one
 * is set, else the VS Code GitHub session, asked for silently (sign-in is an explicit command).
 */
export class CredentialStore extends Disposable {
  private readonly changed = this._register(new vscode.EventEmitter<void>());
  readonly onDidChange = this.changed.event;

  constructor(private readonly secrets: vscode.SecretStorage) {
    super();
    this._register(
      secrets.onDidChange((e) => {
        if (e.key === apiKeySecret) this.changed.fire();
      }),
    );
    this._register(
      vscode.authentication.onDidChangeSessions((e) => {
        if (e.provider.id === 'github') this.changed.fire();
      }),
    );
  }

  async current(): Promise<Credential | null> {
    const key = await this.secrets.get(apiKeySecret);
    if (key) return { kind: 'apiKey', token: key };
    const session = await this.githubSession(false);
    return session ? { kind: 'github', token: session.accessToken, account: session.account.label } : null;
  }

  /** The signed-in GitHub account's login, without prompting; null when none. */
  async githubLogin(): Promise<string | null> {
    return (await this.githubSession(false))?.account.label ?? null;
  }

  async setApiKey(key: string): Promise<void> {
    await this.secrets.store(apiKeySecret, key.trim());
  }

  async clearApiKey(): Promise<void> {
    await this.secrets.delete(apiKeySecret);
  }

  /** Interactive GitHub sign-in; true when a session is available afterwards. */
  async signInWithGitHub(): Promise<boolean> {
    const session = await this.githubSession(true);
    if (session) this.changed.fire();
    return session !== undefined;
  }

  private async githubSession(interactive: boolean): Promise<vscode.AuthenticationSession | undefined> {
    try {
      const request = vscode.authentication.getSession(
        'github',
        GITHUB_SCOPES,
        interactive ? { createIfNone: true } : { silent: true },
      );
      if (interactive) return await request;
      const timeout = new Promise<undefined>((resolve) =>
        setTimeout(() => resolve(undefined), SILENT_SESSION_TIMEOUT_MS),
      );
      return await Promise.race([request, timeout]);
    } catch {
      return undefined;
    }
  }
}
