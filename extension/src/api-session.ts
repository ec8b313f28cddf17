import * as vscode from 'vscode';
import { ApiClient, ApiError } from '../../shared/client/api-client.ts';
import type { CredentialStore } from './credentials.ts';
import { settings } from './ids.ts';
import { Disposable } from './lifecycle.ts';
import {
  formatRepository,
  onDidOpenGitRepository,
  type RepositoryRef,
  resolveRepository,
} from './repository.ts';

export type ProblemKind =
  | 'noRepository'
  | 'signedOut'
  | 'forbidden'
  | 'unreachable'
  | 'unknownRepository'
  | 'error';

/** Why the extension cannot show or do something, in words a user can act on. */
export interface Problem {
  kind: ProblemKind;
  message: string;
}

export type Outcome<T> = { ok: true; value: T; repository: RepositoryRef } | { ok: false; problem: Problem };

export function apiUrl(): string {
  return vscode.workspace
    .getConfiguration(settings.section)
    .get<string>(settings.apiUrl, 'http://127.0.0.1:3000')
    .trim();
}

/** Turns an API failure into the words shown to the user. */
export function describeApiError(error: unknown, context: { repository: string; url: string }): Problem {
  if (!(error instanceof ApiError)) {
    return { kind: 'error', message: `Unexpected error: ${(error as Error)?.message ?? String(error)}` };
  }
  const requestId = error.requestId ? ` (request id ${error.requestId})` : '';
  switch (error.kind) {
    case 'forbidden':
      return {
        kind: 'forbidden',
        message: `No access to ${context.repository}: the server refused the credentials (${error.message}). Set another API key or sign in with a GitHub account that can see the repository.`,
      };
    case 'unreachable':
      return {
        kind: 'unreachable',
        message: `Server unreachable: cannot reach the Trainyard server at ${context.url}. Check the setting trainyard.apiUrl and that the server is running.`,
      };
    case 'not_found':
      return {
        kind: 'unknownRepository',
        message: `Repository unknown: ${context.repository} is not known to the Trainyard server at ${context.url} (${error.message}).`,
      };
    case 'conflict':
      return { kind: 'error', message: `Another change got there first; try again (${error.message}).` };
    case 'invalid':
      return { kind: 'error', message: `The server rejected the request: ${error.message}.` };
    case 'bad_response':
      return {
        kind: 'error',
        message: `The server at ${context.url} answered in a shape this extension does not understand; is it a compatible Trainyard server?${requestId}`,
      };
    default:
      return { kind: 'error', message: `The server failed: ${error.message}${requestId}.` };
  }
}

/**
 * The API as the extension sees it: the shared client, configured from the settings, the
 * repository and the credentials; every failure classified into a Problem.
 */
export class ApiSession extends Disposable {
  private readonly changed = this._register(new vscode.EventEmitter<void>());
  /** Settings, repository or credentials changed: what is shown may be stale. */
  readonly onDidChange = this.changed.event;

  constructor(readonly credentials: CredentialStore) {
    super();
    this._register(credentials.onDidChange(() => this.changed.fire()));
    this._register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (
          e.affectsConfiguration(`${settings.section}.${settings.apiUrl}`) ||
          e.affectsConfiguration(`${settings.section}.${settings.repository}`)
        )
          this.changed.fire();
      }),
    );
    void onDidOpenGitRepository(() => this.changed.fire()).then((d) => this._register(d));
  }

  async repository(): Promise<RepositoryRef | null> {
    return resolveRepository();
  }

  /** Runs one API call for the current repository with the current credentials. */
  async run<T>(call: (client: ApiClient, repository: RepositoryRef) => Promise<T>): Promise<Outcome<T>> {
    const repository = await this.repository();
    if (!repository) {
      return {
        ok: false,
        problem: {
          kind: 'noRepository',
          message:
            'No repository: the workspace has no GitHub remote and the setting trainyard.repository is empty.',
        },
      };
    }
    const credential = await this.credentials.current();
    if (!credential) {
      return {
        ok: false,
        problem: {
          kind: 'signedOut',
          message: 'Not signed in: sign in with GitHub or set a Trainyard API key.',
        },
      };
    }
    const url = apiUrl();
    const client = new ApiClient({ baseUrl: url, token: () => credential.token });
    try {
      return { ok: true, value: await call(client, repository), repository };
    } catch (error) {
      return {
        ok: false,
        problem: describeApiError(error, { repository: formatRepository(repository), url }),
      };
    }
  }
}
