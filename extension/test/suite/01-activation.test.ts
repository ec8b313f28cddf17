import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { repositoryFromRemoteUrl } from '../../src/repository.ts';
import { EXTENSION_ID, extensionApi, setSetting, stub, testServer, waitFor } from './support.ts';

describe('activation and setup', () => {
  it('activates in the real extension host and registers every contributed command', async () => {
    const api = await extensionApi();
    assert.ok(api.queue && api.eventLog && api.queueView && api.eventLogView);
    const manifest = JSON.parse(
      readFileSync(
        path.join(vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath, 'package.json'),
        'utf8',
      ),
    ) as { contributes: { commands: { command: string }[] } };
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = manifest.contributes.commands.map((c) => c.command).filter((c) => !registered.has(c));
    assert.deepEqual(missing, []);
  });

  it('Set API key asks with a password box and keeps the key in SecretStorage, not in settings', async () => {
    const api = await extensionApi();
    const server = testServer();
    await setSetting('apiUrl', server.url);
    await setSetting('eventLog.pageSize', 10);
    await vscode.commands.executeCommand('trainyard.selectRepository', server.repository);
    let asked: vscode.InputBoxOptions | undefined;
    const input = stub(vscode.window, 'showInputBox', (async (options?: vscode.InputBoxOptions) => {
      asked = options;
      return server.adminKey;
    }) as typeof vscode.window.showInputBox);
    try {
      assert.equal(await vscode.commands.executeCommand('trainyard.setApiKey'), true);
    } finally {
      input.restore();
    }
    assert.equal(asked?.password, true);
    assert.equal(asked?.validateInput?.(''), 'An application key is required');
    const credential = await api.credentials.current();
    assert.deepEqual(credential, { kind: 'apiKey', token: server.adminKey });
    const settings = JSON.stringify(vscode.workspace.getConfiguration('trainyard'));
    assert.ok(!settings.includes(server.adminKey), 'the key must not be in the settings');
  });

  it('the repository comes from the setting (Select repository writes it)', async () => {
    const api = await extensionApi();
    assert.deepEqual(await api.session.repository(), { owner: 'acme', name: 'app' });
    assert.equal(vscode.workspace.getConfiguration('trainyard').get('repository'), 'acme/app');
  });

  it('with the setting empty, the repository is detected from the workspace’s git remote (git extension API)', async function () {
    if (!process.env.TRAINYARD_TEST_GIT_REMOTE) this.skip();
    const api = await extensionApi();
    try {
      assert.equal(await vscode.commands.executeCommand('trainyard.selectRepository', ''), true);
      assert.equal(vscode.workspace.getConfiguration('trainyard').get('repository'), '');
      await waitFor(
        async () =>
          JSON.stringify(await api.session.repository()) === JSON.stringify({ owner: 'acme', name: 'app' }),
        20_000,
        `detection of acme/app from the remote ${process.env.TRAINYARD_TEST_GIT_REMOTE}`,
      );
      // Select repository offers the detected remote in its quick pick; picking it saves the setting.
      let offered: string[] = [];
      const pick = stub(vscode.window, 'showQuickPick', (async (items: readonly vscode.QuickPickItem[]) => {
        offered = items.map((i) => `${i.label}${i.description ? ` (${i.description})` : ''}`);
        return items[0];
      }) as unknown as typeof vscode.window.showQuickPick);
      try {
        assert.equal(await vscode.commands.executeCommand('trainyard.selectRepository'), true);
      } finally {
        pick.restore();
      }
      assert.equal(offered[0], 'acme/app (git remote)');
      assert.equal(vscode.workspace.getConfiguration('trainyard').get('repository'), 'acme/app');
    } finally {
      await vscode.commands.executeCommand('trainyard.selectRepository', testServer().repository);
    }
  });

  it('parses GitHub remote URLs (https, ssh, scp-like) and ignores others', () => {
    assert.deepEqual(repositoryFromRemoteUrl('https://github.com/acme/app.git'), {
      owner: 'acme',
      name: 'app',
    });
    assert.deepEqual(repositoryFromRemoteUrl('git@github.com:acme/app.git'), { owner: 'acme', name: 'app' });
    assert.deepEqual(repositoryFromRemoteUrl('ssh://git@github.com/acme/my.app'), {
      owner: 'acme',
      name: 'my.app',
    });
    assert.equal(repositoryFromRemoteUrl('https://gitlab.com/acme/app.git'), null);
  });
});
