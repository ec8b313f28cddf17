// Signing in with VS Code's GitHub session (vscode.authentication.getSession('github', ['repo'])),
// in the real extension host, against the real Trainyard server, whose GitHub is the sandbox code
// host: the server asks it what each token may do, as it asks GitHub (pull ⇒ read, push ⇒ write).
//
// code-server cannot sign in to GitHub offline, so this file registers the `github`
// authentication provider itself: it hands out sessions holding user tokens minted by the
// sandbox. The built-in vscode.github-authentication runs in this same extension host and would
// keep the id, so the runner (run-ext-tests.mjs) has code-server leave it out
// (VSCODE_SKIP_BUILTIN_EXTENSIONS).
//
// VS Code lets an extension use a session only once the user has allowed it. Its modal consent
// prompt (what `createIfNone` shows) is refused in extension-test mode (DialogService.skipDialogs),
// so here the user allows Trainyard from the Accounts menu ("Sign in with GitHub to use
// Trainyard"), which also creates the session through the provider. The Sign in with GitHub
// command with its real consent dialog is driven in the workbench by the UI run (ui-test.mjs).
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { TrainyardApi } from '../../src/extension.ts';
import {
  configureForTestServer,
  EXTENSION_ID,
  find,
  type GithubUser,
  rows,
  serverClient,
  stub,
  testServer,
  waitFor,
} from './support.ts';

type SessionsChange = vscode.AuthenticationProviderAuthenticationSessionsChangeEvent;

/** GitHub as a VS Code authentication provider, with sandbox user tokens; records what it is asked. */
class SandboxGithubProvider implements vscode.AuthenticationProvider {
  private readonly changed = new vscode.EventEmitter<SessionsChange>();
  readonly onDidChangeSessions = this.changed.event;
  private sessions: vscode.AuthenticationSession[] = [];
  /** Who the next interactive sign-in (createSession) signs in as. */
  nextSignIn: GithubUser | undefined;
  readonly asked = {
    getSessions: [] as (readonly string[] | undefined)[],
    createSession: [] as string[][],
  };

  async getSessions(scopes: readonly string[] | undefined): Promise<vscode.AuthenticationSession[]> {
    this.asked.getSessions.push(scopes);
    return this.sessions.filter((s) => (scopes ?? []).every((scope) => s.scopes.includes(scope)));
  }

  async createSession(scopes: readonly string[]): Promise<vscode.AuthenticationSession> {
    this.asked.createSession.push([...scopes]);
    const user = this.nextSignIn;
    if (!user) throw new Error('the test did not say who signs in');
    this.nextSignIn = undefined;
    const session: vscode.AuthenticationSession = {
      id: `session-${user.login}-${this.asked.createSession.length}`,
      accessToken: user.token,
      account: { id: String(user.id), label: user.login },
      scopes: [...scopes],
    };
    this.replace([session]);
    return session;
  }

  async removeSession(sessionId: string): Promise<void> {
    this.replace(this.sessions.filter((s) => s.id !== sessionId));
  }

  /** Signs out of every session, as the Accounts menu does. */
  signOut(): void {
    this.replace([]);
  }

  private replace(next: vscode.AuthenticationSession[]): void {
    const removed = this.sessions.filter((s) => !next.includes(s));
    const added = next.filter((s) => !this.sessions.includes(s));
    this.sessions = next;
    this.changed.fire({ added, removed, changed: [] });
  }

  dispose(): void {
    this.changed.dispose();
  }
}

/** The newest event of a type, as the server logged it. */
async function newestEvent(type: string) {
  const { page } = await serverClient().logs('acme', 'app', { event_type: [type], per_page: 1 });
  assert.ok(page.events[0], `no ${type} event in the log`);
  return page.events[0];
}

/**
 * The user allows Trainyard to sign in from the Accounts menu: a plain getSession (neither silent
 * nor createIfNone) makes VS Code add "Sign in with GitHub to use Trainyard" there; picking it
 * creates a session through the provider and lets Trainyard use that account.
 */
async function signInFromAccountsMenu(provider: SandboxGithubProvider, user: GithubUser): Promise<void> {
  provider.nextSignIn = user;
  const before = provider.asked.createSession.length;
  assert.equal(await vscode.authentication.getSession('github', ['repo'], {}), undefined);
  const item = new RegExp(`^github:${EXTENSION_ID.replace(/\./g, '\\.')}:signIn\\d+$`);
  const items = (await vscode.commands.getCommands(true)).filter((c) => item.test(c));
  assert.ok(items[0], 'VS Code added no "Sign in with GitHub to use Trainyard" to the Accounts menu');
  await vscode.commands.executeCommand(items[0]);
  assert.equal(provider.asked.createSession.length, before + 1, 'the provider was not asked for a session');
  assert.deepEqual(provider.asked.createSession.at(-1), ['repo']);
}

describe('signing in with a VS Code GitHub session (the server checks the token with GitHub)', function () {
  this.timeout(60_000);
  let api: TrainyardApi;
  let provider: SandboxGithubProvider;
  let registration: vscode.Disposable | undefined;
  const github = () => testServer().github;

  before(async () => {
    api = await configureForTestServer();
    provider = new SandboxGithubProvider();
    registration = vscode.authentication.registerAuthenticationProvider('github', 'GitHub', provider, {
      supportsMultipleAccounts: false,
    });
    await vscode.commands.executeCommand('trainyard.clearApiKey');
  });

  after(async () => {
    provider.signOut();
    registration?.dispose();
    provider.dispose();
    await configureForTestServer();
  });

  it('the built-in GitHub sign-in is left out of this host, so the provider that answers for "github" is the test’s', async () => {
    assert.equal(vscode.extensions.getExtension('vscode.github-authentication'), undefined);
    const before = provider.asked.getSessions.length;
    await api.queue.refresh();
    // VS Code itself also lists every session (scopes undefined) for its Accounts menu, at times of
    // its own: what matters is that the extension's request, with the repo scope, reached this provider.
    const askedForRepo = () =>
      provider.asked.getSessions.slice(before).some((scopes) => scopes?.length === 1 && scopes[0] === 'repo');
    await waitFor(askedForRepo, 10_000, 'the extension to ask the github provider for a repo session');
  });

  it('no API key and no GitHub session ⇒ both views say they need credentials', async () => {
    await api.queue.refresh();
    await api.eventLog.reload();
    assert.equal(api.queue.snapshot.kind === 'problem' && api.queue.snapshot.problem.kind, 'signedOut');
    assert.match(
      String(api.queueView.description),
      /^Not signed in: sign in with GitHub or set a Trainyard API key/,
    );
    assert.match(String(api.eventLogView.description), /^Not signed in/);
    assert.equal(await api.credentials.current(), null);
  });

  it('Sign in with GitHub: when the sign-in does not complete (VS Code refuses its consent prompt in tests), the command says so', async () => {
    provider.nextSignIn = github().writer;
    let shown: string | undefined;
    const error = stub(vscode.window, 'showErrorMessage', (async (message: string) => {
      shown = message;
      return undefined;
    }) as unknown as typeof vscode.window.showErrorMessage);
    try {
      assert.equal(await vscode.commands.executeCommand('trainyard.signInWithGitHub'), false);
    } finally {
      error.restore();
    }
    assert.equal(shown, 'GitHub sign-in did not complete.');
    assert.deepEqual(provider.asked.createSession, []);
    assert.equal(api.queue.snapshot.kind === 'problem' && api.queue.snapshot.problem.kind, 'signedOut');
    provider.nextSignIn = undefined;
  });

  it('once the user allows Trainyard a GitHub session, the views load with the GitHub token alone', async () => {
    const writer = github().writer;
    await signInFromAccountsMenu(provider, writer);
    await api.queue.refresh();
    assert.deepEqual(await api.credentials.current(), {
      kind: 'github',
      token: writer.token,
      account: writer.login,
    });
    // The only credential is the GitHub token: the server accepted it after asking the sandbox.
    await waitFor(() => api.queue.snapshot.kind === 'ok', 10_000, 'the queue to load');
    const s = api.queue.snapshot;
    assert.equal(s.kind === 'ok' && s.repository, 'acme/app');
    assert.ok(!api.queueView.message);
    assert.ok(!api.queueView.description);
    const root = await rows(api.queueTree);
    assert.equal(root[0]?.label, 'My pull requests');
    assert.equal(root[1]?.label, 'acme/app');
    find(root, 'Not paused');
    // "Mine" is the GitHub session's login (looked up in the background, without prompting).
    await waitFor(
      async () =>
        /^none queued · ext-writer(, branch \S+)?$/.test((await rows(api.queueTree))[0]!.description),
      10_000,
      'the session login in "My pull requests"',
    );
    await api.eventLog.reload();
    assert.equal(api.eventLog.problem, null);
    assert.ok((await rows(api.eventLogTree)).length > 0, 'the event log is empty');

    // Sign in with GitHub now finds that session and returns it, without a new one.
    assert.equal(await vscode.commands.executeCommand('trainyard.signInWithGitHub'), true);
    assert.equal(provider.asked.createSession.length, 1);
  });

  it('a push (write) GitHub token pauses and unpauses; the server names the GitHub user who did', async () => {
    const writer = github().writer;
    assert.equal(
      await vscode.commands.executeCommand('trainyard.pause', 'freeze via a GitHub session'),
      true,
    );
    assert.equal((await serverClient().readPause('acme', 'app'))?.reason, 'freeze via a GitHub session');
    const paused = await newestEvent('queue.pause.create');
    assert.deepEqual((paused.metadata as { created_by: unknown }).created_by, {
      type: 'user',
      id: writer.id,
      name: writer.login,
    });
    find(await rows(api.queueTree), 'Paused: freeze via a GitHub session');

    const confirm = stub(
      vscode.window,
      'showWarningMessage',
      (async () => 'Unpause') as unknown as typeof vscode.window.showWarningMessage,
    );
    try {
      assert.equal(await vscode.commands.executeCommand('trainyard.unpause'), true);
    } finally {
      confirm.restore();
    }
    assert.equal(await serverClient().readPause('acme', 'app'), null);
    const unpaused = await newestEvent('queue.pause.delete');
    assert.deepEqual((unpaused.metadata as { deleted_by: unknown }).deleted_by, {
      type: 'user',
      id: writer.id,
      name: writer.login,
    });
  });

  it('signing out of the session (onDidChangeSessions) makes both views say they need credentials', async () => {
    assert.equal(api.queue.snapshot.kind, 'ok');
    provider.signOut(); // no refresh here: the extension reacts to the session change by itself
    await waitFor(
      () => api.queue.snapshot.kind === 'problem' && api.queue.snapshot.problem.kind === 'signedOut',
      10_000,
      'the queue view to say "Not signed in"',
    );
    // The view's description follows the snapshot on its next render, not in the same turn.
    await waitFor(
      () => /^Not signed in/.test(String(api.queueView.description)),
      10_000,
      'the queue view\'s description to say "Not signed in"',
    );
    await waitFor(
      () => /^Not signed in/.test(String(api.eventLogView.description)),
      10_000,
      'the event log view to say "Not signed in"',
    );
    assert.equal(await api.credentials.current(), null);
    assert.match(api.statusBar.item.text, /warning/);
  });

  it('a pull (read-only) GitHub token shows the queue, but Pause is refused with the words for "no access"', async () => {
    await signInFromAccountsMenu(provider, github().reader);
    await api.queue.refresh();
    assert.equal(api.queue.snapshot.kind, 'ok');
    let shown: { message: string; items: string[] } | undefined;
    const error = stub(vscode.window, 'showErrorMessage', (async (message: string, ...items: string[]) => {
      shown = { message, items };
      return undefined;
    }) as unknown as typeof vscode.window.showErrorMessage);
    try {
      assert.equal(await vscode.commands.executeCommand('trainyard.pause', 'should not pause'), false);
    } finally {
      error.restore();
    }
    assert.match(
      shown!.message,
      /^No access to acme\/app: the server refused the credentials \(this GitHub token has read access only; changing the queue \(pause, dequeue, scheduled freezes\) needs push permission\)/,
    );
    assert.deepEqual(shown!.items, ['Retry', 'Set API key']);
    assert.equal(await serverClient().readPause('acme', 'app'), null);
  });

  it('a GitHub account without access to the private repository ⇒ "No access" in the view', async () => {
    provider.signOut();
    await signInFromAccountsMenu(provider, github().outsider);
    await api.queue.refresh();
    assert.equal(api.queue.snapshot.kind === 'problem' && api.queue.snapshot.problem.kind, 'forbidden');
    assert.match(
      String(api.queueView.description),
      /^No access to acme\/app: the server refused the credentials \(GitHub does not grant this token access to this repository\)/,
    );
    assert.deepEqual(await rows(api.queueTree), []);
  });

  it('an API key, once set, takes precedence over the GitHub session; forgetting it falls back to the session', async () => {
    provider.signOut();
    const reader = github().reader;
    await signInFromAccountsMenu(provider, reader);
    assert.equal((await api.credentials.current())?.kind, 'github');

    // The session is read-only; the admin key, once set, is what the server sees: pause works.
    await vscode.commands.executeCommand('trainyard.setApiKey', testServer().adminKey);
    assert.deepEqual(await api.credentials.current(), { kind: 'apiKey', token: testServer().adminKey });
    assert.equal(await vscode.commands.executeCommand('trainyard.pause', 'the key wins'), true);
    const paused = await newestEvent('queue.pause.create');
    assert.equal((paused.metadata as { created_by: { type: string } }).created_by.type, 'application');
    await serverClient().unpause('acme', 'app');

    // A read-only key over the same session: refused as a key, not as the GitHub token.
    await vscode.commands.executeCommand('trainyard.setApiKey', testServer().readKey);
    let shown: string | undefined;
    const error = stub(vscode.window, 'showErrorMessage', (async (message: string) => {
      shown = message;
      return undefined;
    }) as unknown as typeof vscode.window.showErrorMessage);
    try {
      assert.equal(await vscode.commands.executeCommand('trainyard.pause', 'should not pause'), false);
    } finally {
      error.restore();
    }
    assert.match(String(shown), /this application key is read-only/);

    await vscode.commands.executeCommand('trainyard.clearApiKey');
    assert.deepEqual(await api.credentials.current(), {
      kind: 'github',
      token: reader.token,
      account: reader.login,
    });
    assert.equal(api.queue.snapshot.kind, 'ok');
  });
});
