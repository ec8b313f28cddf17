import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { QueueModel, QueueSnapshot } from '../../src/queue/queue-model.ts';
import { QueueTreeProvider } from '../../src/queue/queue-tree-provider.ts';
import type { TreeNode } from '../../src/tree-node.ts';
import {
  configureForTestServer,
  find,
  type Row,
  rows,
  serverClient,
  setSetting,
  stub,
  type TestServer,
  testServer,
  waitFor,
} from './support.ts';

/** The tree shows the expected batches (head first), their sub-batches and PRs, and the waiting PRs. */
async function assertQueueRows(
  provider: vscode.TreeDataProvider<TreeNode>,
  server: TestServer,
): Promise<void> {
  assert.ok(server.expected.batches.length > 0, 'the fixture has batches');
  const root = await rows(provider);
  const queue = find(root, 'Queue');
  const batches = await rows(provider, queue.node);
  assert.deepEqual(
    batches.map((b) => b.label),
    server.expected.batches.map((b) => b.name),
  );
  for (const [i, expected] of server.expected.batches.entries()) {
    const batch = batches[i]!;
    const children = await rows(provider, batch.node);
    // Every pull request of the batch once: under the smallest probe holding it, or the batch.
    const shown: string[] = [];
    for (const child of children) {
      if (child.label.startsWith('probe ')) {
        assert.match(child.description, /^(passed|failed|pending) · #\d+/);
        shown.push(...(await rows(provider, child.node)).map((c) => c.label.split(' ')[0]!));
      } else shown.push(child.label.split(' ')[0]!);
    }
    assert.deepEqual(
      children.filter((c) => c.label.startsWith('probe ')).map((c) => c.label.slice('probe '.length)),
      expected.subBatches,
    );
    assert.deepEqual(
      [...shown].sort(),
      expected.pullRequests.map((n) => `#${n}`).sort(),
      'each pull request of the batch shown once',
    );
    if (expected.status === 'bisecting') {
      assert.match(batch.description, /^failed · bisecting · (culprit #\d+|suspects #\d+)/);
    } else {
      assert.match(
        batch.description,
        new RegExp(
          `^${expected.status.replaceAll('_', ' ')} · (\\d+/\\d+ checks|checks running|not started|no checks) · `,
        ),
      );
    }
    const pr = children.find((c) => c.label.startsWith('#'));
    if (pr) {
      // "#pos · state · ETA": the position as an ordinal, then the author; selecting it opens nothing.
      assert.match(
        pr.description,
        /^((culprit|suspect|cleared) · )?\d+(st|nd|rd|th) · [a-z ]+ · (~[^·]+|no ETA) · alice$/,
      );
      assert.equal(pr.item.command, undefined);
      assert.equal(pr.item.contextValue, 'pr:batch');
    }
  }
  const waiting = await rows(provider, find(root, 'Waiting').node);
  assert.deepEqual(
    waiting.map((w) => Number(w.label.split(' ')[0]!.slice(1))),
    server.expected.waiting,
  );
  assert.ok(waiting.every((w) => w.item.contextValue === 'pr:waiting'));
}

describe('Merge Queue view against the real server', () => {
  before(async () => {
    await configureForTestServer();
  });

  it('shows the repository, the pause state, the partitions and the waiting pull requests', async () => {
    const api = await configureForTestServer();
    assert.equal(api.queue.snapshot.kind, 'ok');
    const root = await rows(api.queueTree);
    assert.equal(root[0]?.label, 'My pull requests');
    const repo = find(root, 'acme/app');
    assert.match(repo.description, /^Status: .* · updated \d+ s ago$/);
    find(root, 'Not paused');
    find(root, 'Queue');
    find(root, 'Waiting');
  });

  it('Open pull request opens the pull request’s URL, as the server gave it, in the browser', async () => {
    const api = await configureForTestServer();
    const waiting = await rows(api.queueTree, find(await rows(api.queueTree), 'Waiting').node);
    const row = waiting[0]!;
    const number = Number(row.label.split(' ')[0]!.slice(1));
    const served = await serverClient().status('acme', 'app');
    const expected = served.waiting_pull_requests.find((p) => p.number === number)?.url;
    assert.ok(expected, `the server lists #${number} as waiting, with a URL`);
    const opened: string[] = [];
    const open = stub(vscode.env, 'openExternal', (async (uri: vscode.Uri) => {
      opened.push(uri.toString(true));
      return true;
    }) as typeof vscode.env.openExternal);
    try {
      // Selecting the row opens nothing; the explicit action (inline button, context menu) does.
      assert.equal(row.item.command, undefined);
      assert.equal(await vscode.commands.executeCommand('trainyard.openPullRequest', row.node), true);
      // From the command palette, with no node: nothing to open, and nothing opened.
      assert.equal(await vscode.commands.executeCommand('trainyard.openPullRequest'), false);
    } finally {
      open.restore();
    }
    assert.deepEqual(opened, [expected]);
  });

  it('shows the engine’s batches in order, a bisecting batch with its sub-batches, and their pull requests', async function () {
    const server = testServer();
    if (!server.servesQueueState) {
      // The status route still serves an empty queue (it does not read the engine's stored state yet).
      console.log(
        `skipped: the status route serves no batches yet${server.queueStateSaveError ? `; saving the engine state failed: ${server.queueStateSaveError}` : ''}`,
      );
      this.skip();
    }
    const api = await configureForTestServer();
    await assertQueueRows(api.queueTree, server);
    assert.match(api.statusBar.item.text, /Trainyard: \d+ batch(es)? running/);
  });

  it('a pull request expands to its check runs on the tested commit: name, state, a link that opens', async () => {
    const api = await configureForTestServer();
    const root = await rows(api.queueTree);
    const prs: Row[] = [];
    const walk = async (list: Row[]) => {
      for (const r of list) {
        if (r.label.startsWith('#')) prs.push(r);
        else if (
          r.item.collapsibleState !== vscode.TreeItemCollapsibleState.None &&
          r.label !== 'My pull requests'
        )
          await walk(await rows(api.queueTree, r.node));
      }
    };
    await walk(root.filter((r) => r.label === 'Queue' || r.label === 'Waiting'));
    assert.ok(prs.length > 0);
    let listed = 0;
    for (const pr of prs) {
      assert.equal(pr.item.collapsibleState, vscode.TreeItemCollapsibleState.Collapsed);
      const number = Number(pr.label.split(' ')[0]!.slice(1));
      const served = await serverClient().pull('acme', 'app', number);
      const children = await rows(api.queueTree, pr.node);
      const checks = served.mergeability_check?.checks ?? [];
      if (!served.mergeability_check) {
        assert.deepEqual(
          children.map((c) => c.label),
          ['Not tested yet: waiting for its batch'],
        );
        continue;
      }
      if (checks.length === 0) {
        assert.match(children[0]!.label, /^Testing \((pending|success|failed)\): no check has reported yet$/);
        continue;
      }
      listed++;
      assert.deepEqual(
        children.map((c) => [c.label, c.description]),
        checks.map((c) => [c.name, c.state.replaceAll('_', ' ')]),
      );
      for (const [i, c] of checks.entries()) {
        const command = children[i]!.item.command;
        if (c.url)
          assert.deepEqual(
            [command?.command, String(command?.arguments?.[0])],
            ['vscode.open', vscode.Uri.parse(c.url).toString()],
          );
        else assert.equal(command, undefined);
      }
    }
    assert.ok(listed > 0, 'at least one pull request lists check runs');
  });

  it('renders the engine’s status projection of the same queue: batches, sub-batches, pull requests, waiting', async () => {
    // The tree provider of the extension fed with the projection the server computes from the
    // engine state (validated by the shared schema): the batch rows, independent of the route.
    const server = testServer();
    const snapshot: QueueSnapshot = {
      kind: 'ok',
      repository: server.repository,
      status: server.projection,
      fetchedAt: new Date(),
    };
    const emitter = new vscode.EventEmitter<QueueSnapshot>();
    const model = { snapshot, onDidChange: emitter.event } as unknown as QueueModel;
    const provider = new QueueTreeProvider(model);
    try {
      await assertQueueRows(provider, server);
      const root = await rows(provider);
      assert.match(
        find(root, 'acme/app').description,
        new RegExp(
          `^Status: ${server.expected.batches.length === 1 ? '1 batch' : `${server.expected.batches.length} batches`} running · updated`,
        ),
      );
      const [bisecting] = await rows(provider, find(root, 'Queue').node);
      assert.equal(bisecting!.item.contextValue, 'batch:bisecting');
      const [sub] = await rows(provider, bisecting!.node);
      assert.match(sub!.item.contextValue ?? '', /^subBatch:/);
      assert.match(sub!.label, /^probe /);
    } finally {
      provider.dispose();
      emitter.dispose();
    }
  });

  it('Pause queue validates the reason before sending, and the pause reaches the server and the tree', async () => {
    const api = await configureForTestServer();
    let options: vscode.InputBoxOptions | undefined;
    const input = stub(vscode.window, 'showInputBox', (async (o?: vscode.InputBoxOptions) => {
      options = o;
      return 'deploy freeze';
    }) as typeof vscode.window.showInputBox);
    try {
      assert.equal(await vscode.commands.executeCommand('trainyard.pause'), true);
    } finally {
      input.restore();
    }
    // The prompt says what pausing does now (the running batches' checks are cancelled).
    assert.match(
      options?.prompt ?? '',
      /^Pausing (cancels the checks of the (running batch|\d+ running batches) and )?merges nothing until unpaused\. Why pause the queue\?$/,
    );
    const validate = options!.validateInput!;
    assert.match(String(validate('')), /required/);
    assert.match(String(validate('   ')), /required/);
    assert.match(String(validate('x'.repeat(256))), /At most 255/);
    assert.equal(validate('x'.repeat(255)), undefined);

    const record = await serverClient().readPause('acme', 'app');
    assert.equal(record?.reason, 'deploy freeze');
    const root = await rows(api.queueTree);
    const pause = find(root, 'Paused: deploy freeze');
    assert.match(pause.description, /^since /);
    assert.equal(pause.item.contextValue, 'pause:paused');
    assert.match(find(root, 'acme/app').description, /^Status: paused · updated/);
    assert.match(api.statusBar.item.text, /Trainyard: paused/);
  });

  it('an invalid reason is refused without a request; a new reason replaces the old one', async () => {
    const api = await configureForTestServer();
    const errors: string[] = [];
    const error = stub(vscode.window, 'showErrorMessage', (async (m: string) => {
      errors.push(m);
      return undefined;
    }) as typeof vscode.window.showErrorMessage);
    try {
      assert.equal(await vscode.commands.executeCommand('trainyard.pause', 'x'.repeat(256)), false);
      // Pausing a paused queue: the prompt names the current pause and offers its reason to edit.
      let options: vscode.InputBoxOptions | undefined;
      const input = stub(vscode.window, 'showInputBox', (async (o?: vscode.InputBoxOptions) => {
        options = o;
        return undefined;
      }) as typeof vscode.window.showInputBox);
      try {
        assert.equal(await vscode.commands.executeCommand('trainyard.pause'), false);
      } finally {
        input.restore();
      }
      assert.match(
        options?.prompt ?? '',
        /^Already paused by extension-tests since .*: "deploy freeze"\. A new reason replaces it\./,
      );
      assert.equal(options?.value, 'deploy freeze');
      assert.equal(await vscode.commands.executeCommand('trainyard.pause', '  '), false);
    } finally {
      error.restore();
    }
    assert.equal(errors.length, 2);
    assert.equal((await serverClient().readPause('acme', 'app'))?.reason, 'deploy freeze');
    assert.equal(await vscode.commands.executeCommand('trainyard.pause', 'release 2.0 freeze'), true);
    assert.equal((await serverClient().readPause('acme', 'app'))?.reason, 'release 2.0 freeze');
    find(await rows(api.queueTree), 'Paused: release 2.0 freeze');
  });

  it('Unpause queue asks for confirmation; cancelled, nothing changes; confirmed, the server unpauses', async () => {
    const api = await configureForTestServer();
    let answer: string | undefined;
    let modal: boolean | undefined;
    const warning = stub(vscode.window, 'showWarningMessage', (async (
      _message: string,
      options: vscode.MessageOptions,
    ) => {
      modal = options.modal;
      return answer;
    }) as unknown as typeof vscode.window.showWarningMessage);
    try {
      answer = undefined;
      assert.equal(await vscode.commands.executeCommand('trainyard.unpause'), false);
      assert.notEqual(await serverClient().readPause('acme', 'app'), null);
      answer = 'Unpause';
      assert.equal(await vscode.commands.executeCommand('trainyard.unpause'), true);
    } finally {
      warning.restore();
    }
    assert.equal(modal, true);
    assert.equal(await serverClient().readPause('acme', 'app'), null);
    const root = await rows(api.queueTree);
    find(root, 'Not paused');
    assert.doesNotMatch(find(root, 'acme/app').description, /^Status: paused/);
    assert.doesNotMatch(api.statusBar.item.text, /paused/);
  });

  it('the status bar opens the view; it auto-refreshes while visible', async () => {
    const api = await configureForTestServer();
    await setSetting('refreshInterval', 5);
    try {
      // the status bar item's click opens the view
      assert.equal(api.statusBar.item.command, 'trainyard.showView');
      await vscode.commands.executeCommand('trainyard.showView');
      await waitFor(() => api.queueView.visible, 10_000, 'the Merge Queue view to be visible');
      assert.equal(api.queue.polling, true);
      // A change made elsewhere (another client of the server) shows up without a refresh.
      await serverClient().pause('acme', 'app', 'paused from elsewhere');
      await waitFor(
        async () => (await rows(api.queueTree)).some((r) => r.label === 'Paused: paused from elsewhere'),
        15_000,
        'the tree to show a pause made by another client',
      );
      await serverClient().unpause('acme', 'app');
      await vscode.commands.executeCommand('workbench.view.explorer');
      await waitFor(() => !api.queueView.visible, 10_000, 'the Merge Queue view to be hidden');
      assert.equal(api.queue.polling, false);
      assert.equal(api.queue.interval, 10, 'hidden, the status bar still refreshes every 10 s');
    } finally {
      await setSetting('refreshInterval', undefined);
    }
  });
});
