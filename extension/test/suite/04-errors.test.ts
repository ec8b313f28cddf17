import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { configureForTestServer, rows, serverClient, setSetting, stub, testServer } from './support.ts';

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
      String(api.queueView.message),
      /^No access to acme\/app: the server refused the credentials/,
    );
    assert.deepEqual(await rows(api.queueTree), []);
    assert.match(api.statusBar.item.text, /warning/);
    await api.eventLog.reload();
    assert.match(String(api.eventLogView.message), /^No access/);

    // Retry after fixing the key: the tree is back.
    await vscode.commands.executeCommand('trainyard.setApiKey', testServer().adminKey);
    await vscode.commands.executeCommand('trainyard.refresh');
    assert.equal(api.queue.snapshot.kind, 'ok');
    assert.equal(api.queueView.message, undefined);
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
      String(api.queueView.message),
      /^Repository unknown: acme\/nope is not known to the Trainyard server/,
    );
  });

  it('a server that does not answer ⇒ "Server unreachable"', async () => {
    const api = await configureForTestServer();
    await setSetting('apiUrl', 'http://127.0.0.1:9');
    await api.queue.refresh();
    assert.equal(api.queue.snapshot.kind === 'problem' && api.queue.snapshot.problem.kind, 'unreachable');
    assert.match(
      String(api.queueView.message),
      /^Server unreachable: cannot reach the Trainyard server at http:\/\/127\.0\.0\.1:9/,
    );
  });

  it('no credentials ⇒ "Not signed in"', async () => {
    const api = await configureForTestServer();
    await vscode.commands.executeCommand('trainyard.clearApiKey');
    await api.queue.refresh();
    assert.equal(api.queue.snapshot.kind === 'problem' && api.queue.snapshot.problem.kind, 'signedOut');
    assert.match(String(api.queueView.message), /^Not signed in/);
  });
});
