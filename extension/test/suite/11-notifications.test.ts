import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { configureForTestServer, serverClient, setSetting, stub, testServer, waitFor } from './support.ts';

/*
 * acme/merges: #1 and #2 (alice's) under test. The server's test control lets its CI finish
 * (#1 passes and merges, #2 fails with a link to its run); the extension must say so.
 */
describe('Notifications: my pull request merged; removed, with a button to the failing run', () => {
  after(async () => {
    await setSetting('githubLogin', undefined);
  });

  it('announces the merge, and the removal whose button opens the failing CI run', async function () {
    this.timeout(60_000);
    const api = await configureForTestServer();
    await setSetting('githubLogin', 'alice');
    await api.queue.refresh();
    const noticesBefore = api.notifier.shown.length;
    await vscode.commands.executeCommand('trainyard.selectRepository', 'acme/merges');
    await api.queue.refresh();
    // Another repository is not a change: alice's pull requests of acme/app did not "leave".
    await new Promise((r) => setTimeout(r, 1000));
    assert.deepEqual(api.notifier.shown.slice(noticesBefore), []);
    const before = await serverClient().status('acme', 'merges');
    assert.deepEqual(
      before.batches.flatMap((b) => b.pull_requests.map((p) => p.number)),
      [1, 2],
      'both under test before',
    );
    assert.equal(api.queue.me.login, 'alice');
    assert.equal(api.queue.snapshot.kind === 'ok' && api.queue.snapshot.repository, 'acme/merges');

    // What a person sees and does: the info toast for the merge, the warning for the removal,
    // where they press the failing run's button; the link then opens outside VS Code.
    const shown: { level: string; text: string; buttons: string[] }[] = [];
    const opened: string[] = [];
    const info = stub(vscode.window, 'showInformationMessage', (async (
      text: string,
      ...buttons: string[]
    ) => {
      shown.push({ level: 'info', text, buttons });
      return undefined;
    }) as never);
    const warning = stub(vscode.window, 'showWarningMessage', (async (text: string, ...buttons: string[]) => {
      shown.push({ level: 'warning', text, buttons });
      return buttons.find((b) => b.startsWith('Open failing run'));
    }) as never);
    const external = stub(vscode.env, 'openExternal', (async (uri: vscode.Uri) => {
      opened.push(uri.toString(true));
      return true;
    }) as never);
    try {
      const response = await fetch(`${testServer().control}/merges/advance`, { method: 'POST' });
      assert.equal(response.status, 204);
      await api.queue.refresh();
      await waitFor(
        () => opened.length > 0 && shown.length >= 2,
        10_000,
        'both notifications and the opened run',
      );
    } finally {
      info.restore();
      warning.restore();
      external.restore();
    }

    const leaves = (
      await serverClient().logs('acme', 'merges', { event_type: ['action.queue.leave'] })
    ).page.events.flatMap((e) =>
      e.type === 'action.queue.leave' ? [{ number: e.pull_request, meta: e.metadata }] : [],
    );
    const failed = leaves.find((l) => l.number === 2)!.meta;
    const run = failed.checks.find((c) => c.state === 'failure')!;
    assert.ok(run.url, 'the failing check has a link');

    assert.deepEqual(
      shown.find((n) => n.level === 'info'),
      {
        level: 'info',
        text: '#1 merged: Change 1',
        buttons: ['Open pull request'],
      },
    );
    assert.deepEqual(
      shown.find((n) => n.level === 'warning'),
      {
        level: 'warning',
        text: `#2 was removed from the merge queue: ${failed.reason}`,
        buttons: ['Open failing run (ci)', 'Requeue', 'Open pull request'],
      },
    );
    assert.match(failed.reason, /^CHECKS_FAILED/);
    // The button opened the failing run, nothing else.
    assert.deepEqual(opened, [run.url]);
    assert.deepEqual(
      api.notifier.shown
        .map((n) => n.text)
        .filter((t) => /^#[12] /.test(t))
        .sort(),
      ['#1 merged: Change 1', `#2 was removed from the merge queue: ${failed.reason}`],
    );
  });
});
