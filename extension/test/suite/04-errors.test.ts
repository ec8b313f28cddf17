import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { TrainyardApi } from '../../src/extension.ts';
import {
  configureForTestServer,
  EXTENSION_ID,
  rows,
  serverClient,
  setSetting,
  stub,
  testServer,
} from './support.ts';

/**
 * The view shows its welcome entry for this state: VS Code shows welcome content only while the
 * tree is empty and the view has no message, and the entry for the state offers these commands.
 */
async function assertWelcomeOffers(api: TrainyardApi, state: string, commands: string[]): Promise<void> {
  assert.deepEqual(await rows(api.queueTree), []);
  // The host reports an unset message as ''; VS Code treats '' and undefined alike.
  assert.ok(!api.queueView.message, 'a message would hide the welcome content and its actions');
  const welcome = (
    vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON.contributes.viewsWelcome as {
      view: string;
      when: string;
      contents: string;
    }[]
  ).filter((w) => w.view === 'trainyard.mergeQueue' && w.when === `trainyard.state == ${state}`);
  assert.equal(welcome.length, 1, `one welcome entry for ${state}`);
  const offered = [...welcome[0]!.contents.matchAll(/\]\(command:([\w.]+)/g)].map((m) => m[1]);
  assert.deepEqual(offered, commands);
}

describe('errors explained in words, with a retry', () => {
  afterEach(async () => {
    await configureForTestServer();
  });

  it('a wrong key ⇒ "No access", an empty tree with the explanation, and the status bar warns', async () => {
    const api = await configureForTestServer();
    await vscode.commands.executeCommand(
      'trainyard.setApiKey',
      'ty_this-key-does-not-exist-0000000000000000',
    );
    await api.queue.refresh();
    const s = api.queue.snapshot;
    assert.equal(s.kind, 'problem');
    assert.equal(s.kind === 'problem' && s.problem.kind, 'forbidden');
    assert.match(
      String(api.queueView.description),
      /^No access to acme\/app: the server refused the credentials/,
    );
    await assertWelcomeOffers(api, 'forbidden', ['trainyard.setApiKey', 'trainyard.refresh']);
    assert.match(api.statusBar.item.text, /warning/);
    await api.eventLog.reload();
    assert.match(String(api.eventLogView.description), /^No access/);

    // Retry after fixing the key: the tree is back.
    await vscode.commands.executeCommand('trainyard.setApiKey', testServer().adminKey);
    await vscode.commands.executeCommand('trainyard.refresh');
    assert.equal(api.queue.snapshot.kind, 'ok');
    assert.ok(!api.queueView.message);
    assert.ok(!api.queueView.description);
  });

  it('a read-only key cannot pause: the error says so and offers Retry and Set API key', async () => {
    await configureForTestServer();
    await vscode.commands.executeCommand('trainyard.setApiKey', testServer().readKey);
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
    assert.match(shown!.message, /^No access to acme\/app/);
    assert.deepEqual(shown!.items, ['Retry', 'Set API key']);
    assert.equal(await serverClient().readPause('acme', 'app'), null);
  });

  it('an unknown repository ⇒ "Repository unknown"', async () => {
    const api = await configureForTestServer();
    await vscode.commands.executeCommand('trainyard.selectRepository', 'acme/nope');
    await api.queue.refresh();
    assert.equal(
      api.queue.snapshot.kind === 'problem' && api.queue.snapshot.problem.kind,
      'unknownRepository',
    );
    assert.match(
      String(api.queueView.description),
      /^Repository unknown: acme\/nope is not known to the Trainyard server/,
    );
    await assertWelcomeOffers(api, 'unknownRepository', ['trainyard.selectRepository', 'trainyard.refresh']);
  });

  it('a server that does not answer ⇒ "Server unreachable"', async () => {
    const api = await configureForTestServer();
    await setSetting('apiUrl', 'http://127.0.0.1:9');
    await api.queue.refresh();
    assert.equal(api.queue.snapshot.kind === 'problem' && api.queue.snapshot.problem.kind, 'unreachable');
    assert.match(
      String(api.queueView.description),
      /^Server unreachable: cannot reach the Trainyard server at http:\/\/127\.0\.0\.1:9/,
    );
    await assertWelcomeOffers(api, 'unreachable', ['trainyard.refresh', 'workbench.action.openSettings']);
  });

  it('no credentials ⇒ "Not signed in"', async () => {
    const api = await configureForTestServer();
    await vscode.commands.executeCommand('trainyard.clearApiKey');
    await api.queue.refresh();
    assert.equal(api.queue.snapshot.kind === 'problem' && api.queue.snapshot.problem.kind, 'signedOut');
    assert.match(String(api.queueView.description), /^Not signed in/);
    await assertWelcomeOffers(api, 'signedOut', ['trainyard.signInWithGitHub', 'trainyard.setApiKey']);
  });
});
