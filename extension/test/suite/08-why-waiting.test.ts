import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { configureForTestServer, type Row, rows, serverClient, stub } from './support.ts';

/** The text of the editor the command opened: what a person reads. */
function shownText(): string {
  const editor = vscode.window.activeTextEditor;
  assert.ok(editor, 'an editor is open');
  assert.equal(editor.document.uri.scheme, 'trainyard-why');
  return editor.document.getText();
}

describe('Why is this pull request waiting?', () => {
  afterEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('from a tree row: its reasons, p50 and p90, its test and checks, in sentences', async () => {
    const api = await configureForTestServer();
    // acme/merges has #1 and #2 under test (acme/app's batches may have been rebuilt by now).
    await vscode.commands.executeCommand('trainyard.selectRepository', 'acme/merges');
    await api.queue.refresh();
    // Depth first through the partitions and batches: a tested pull request.
    const search = async (parent: Row['node'] | undefined, depth: number): Promise<Row | undefined> => {
      for (const row of await rows(api.queueTree, parent)) {
        if (/^(My pull requests|Waiting)/.test(row.label)) continue;
        if (/^#\d+ /.test(row.label) && depth > 1) return row;
        if (row.item.collapsibleState && !/^#\d+ /.test(row.label)) {
          const found = await search(row.node, depth + 1);
          if (found) return found;
        }
      }
      return undefined;
    };
    const pr = await search(undefined, 0);
    assert.ok(pr, 'a pull request under a batch');
    const number = Number(pr.label.split(' ')[0]!.slice(1));
    const view = await serverClient().pull('acme', 'merges', number);
    const returned = await vscode.commands.executeCommand<string>('trainyard.whyWaiting', pr.node);
    const text = shownText();
    assert.equal(text, returned);
    assert.ok(text.startsWith(`# Why is ${pr.label} waiting?`), text);
    assert.match(
      text,
      new RegExp(
        `#${number} is ${view.position + 1}(st|nd|rd|th) in the merge queue of acme/merges \\(queue rule "default", no priority rule\\)\\.`,
      ),
    );
    // Every reason the server gives, with its code.
    assert.ok(view.reasons.length > 0);
    for (const r of view.reasons) {
      assert.ok(text.includes(r.message), `reason "${r.message}" shown`);
      assert.ok(text.includes(`(\`${r.code}\`)`));
    }
    assert.match(text, /Most likely merged by .+: the median estimate\./);
    assert.match(text, /Late case: 9 in 10 pull requests merge by .+: the 90th percentile/);
    assert.ok(view.mergeability_check, 'under test');
    assert.ok(
      text.includes(`Tested on draft pull request #${view.mergeability_check.queue_pull_request_number}`),
    );
    assert.match(text, /CI is pending; the test is pending\./);
    assert.match(text, /Merge conditions not met yet: check-success=ci\./);
  });

  it('without an argument: picks among the queued pull requests', async () => {
    await configureForTestServer();
    const status = await serverClient().status('acme', 'app');
    const queued = [...status.batches.flatMap((b) => b.pull_requests), ...status.waiting_pull_requests];
    const waiting = queued.at(-1)!;
    const view = await serverClient().pull('acme', 'app', waiting.number);
    let offered: string[] = [];
    const pick = stub(vscode.window, 'showQuickPick', (async (items: readonly vscode.QuickPickItem[]) => {
      offered = items.map((i) => i.label);
      return items.find((i) => i.label.startsWith(`#${waiting.number} `));
    }) as unknown as typeof vscode.window.showQuickPick);
    try {
      await vscode.commands.executeCommand('trainyard.whyWaiting');
    } finally {
      pick.restore();
    }
    assert.ok(offered.includes(`#${waiting.number} ${waiting.title}`));
    assert.equal(offered.length, new Set(queued.map((p) => p.number)).size);
    const text = shownText();
    assert.ok(text.startsWith(`# Why is #${waiting.number} ${waiting.title} waiting?`));
    assert.ok(text.includes(waiting.reasons[0]!.message));
    if (view.mergeability_check === null) assert.match(text, /Not tested yet: it waits for a batch/);
    else assert.match(text, /^Tested /m);
  });

  it('a pull request in no queue: says so, opens nothing', async () => {
    await configureForTestServer();
    const said: string[] = [];
    const info = stub(vscode.window, 'showInformationMessage', (async (message: string) => {
      said.push(message);
      return undefined;
    }) as unknown as typeof vscode.window.showInformationMessage);
    try {
      assert.equal(await vscode.commands.executeCommand('trainyard.whyWaiting', 4242), null);
    } finally {
      info.restore();
    }
    assert.deepEqual(said, [
      '#4242 is not in the merge queue of acme/app: it merged, left, or was never queued. The Event Log says why it left.',
    ]);
    assert.equal(vscode.window.activeTextEditor, undefined);
  });
});
