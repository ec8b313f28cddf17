import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { RequeueResult } from '../../src/commands/requeue.ts';
import { configureForTestServer, rows, serverClient, stub, testServer } from './support.ts';

/** Records the messages shown while `run` runs (answering none of them). */
async function messages(run: () => Thenable<unknown>): Promise<string[]> {
  const said: string[] = [];
  const record = (async (message: string) => {
    said.push(message);
    return undefined;
  }) as never;
  const info = stub(vscode.window, 'showInformationMessage', record);
  const warning = stub(vscode.window, 'showWarningMessage', record);
  try {
    await run();
  } finally {
    info.restore();
    warning.restore();
  }
  return said;
}

describe('Requeue pull request', () => {
  it('from the Event Log: a dequeued pull request enters again, and the message says where and when', async () => {
    const api = await configureForTestServer();
    const status = await serverClient().status('acme', 'app');
    const queued = [...status.batches.flatMap((b) => b.pull_requests), ...status.waiting_pull_requests];
    const target = queued.at(-1)!;
    await serverClient().dequeue('acme', 'app', target.number);
    await api.eventLog.reload();
    // The leave's row offers Requeue (its menu is keyed by the event type at the end of contextValue).
    const leave = (await rows(api.eventLogTree)).find(
      (r) =>
        (r.item.contextValue ?? '').endsWith(':action.queue.leave') && r.label.includes(`#${target.number}`),
    );
    assert.ok(leave, `the leave of #${target.number} in the Event Log`);
    assert.match(leave.item.contextValue!, /^event:.*:action\.queue\.leave$/);

    let result: RequeueResult = null;
    const said = await messages(async () => {
      result = await vscode.commands.executeCommand<RequeueResult>(
        'trainyard.requeuePullRequest',
        leave.node,
      );
    });
    assert.ok(result !== null && (result as Exclude<RequeueResult, null>).ok, JSON.stringify(result));
    const view = await serverClient().pull('acme', 'app', target.number);
    // (A poll may also announce the dequeue meanwhile: the requeue's own message is looked for.)
    const back = said.find((m) => m.startsWith(`#${target.number} is back`)) ?? said.join(' | ');
    assert.match(
      back,
      new RegExp(
        `^#${target.number} is back in the merge queue: ${view.position + 1}(st|nd|rd|th) \\(queue rule default\\) · `,
      ),
    );
    // The tree shows it again.
    const after = api.queue.snapshot;
    assert.equal(after.kind, 'ok');
    const again =
      after.kind === 'ok'
        ? [...after.status.batches.flatMap((b) => b.pull_requests), ...after.status.waiting_pull_requests]
        : [];
    assert.ok(again.some((p) => p.number === target.number));

    // Asked again: the server's refusal, in its words.
    const twice = await messages(() =>
      vscode.commands.executeCommand('trainyard.requeuePullRequest', target.number),
    );
    assert.deepEqual(
      twice.filter((m) => m.includes('requeued')),
      [
        `#${target.number} was not requeued: pull request #${target.number} is already in the merge queue (queue rule "default")`,
      ],
    );
  });

  it('from the command palette: asks for the number; an unknown pull request is refused in words', async () => {
    await configureForTestServer();
    const asked: string[] = [];
    const input = stub(vscode.window, 'showInputBox', (async (options: vscode.InputBoxOptions) => {
      asked.push(options.title ?? '');
      assert.equal(await options.validateInput?.('abc'), 'A pull request number, e.g. 123');
      return '4242';
    }) as never);
    let said: string[];
    try {
      said = await messages(() => vscode.commands.executeCommand('trainyard.requeuePullRequest'));
    } finally {
      input.restore();
    }
    assert.deepEqual(asked, ['Requeue pull request']);
    assert.deepEqual(said, [
      '#4242 was not requeued: pull request #4242 is not an open pull request Trainyard knows in this repository (closed, merged, or never seen)',
    ]);
  });

  it('needs write access: with the read-only key the problem says so', async () => {
    await configureForTestServer();
    const { readKey } = testServer();
    await vscode.commands.executeCommand('trainyard.setApiKey', readKey);
    const errors: string[] = [];
    const error = stub(vscode.window, 'showErrorMessage', (async (m: string) => {
      errors.push(m);
      return undefined;
    }) as never);
    try {
      const result = await vscode.commands.executeCommand('trainyard.requeuePullRequest', 1);
      assert.equal(result, null);
    } finally {
      error.restore();
      await vscode.commands.executeCommand('trainyard.setApiKey', testServer().adminKey);
    }
    assert.equal(errors.length, 1);
    assert.match(errors[0]!, /^No access to acme\/app: .*admin key/);
  });
});
