import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { RequeueResult } from '../../src/commands/requeue.ts';
import { dequeueConfirmation } from '../../src/queue/dequeue-text.ts';
import {
  configureForTestServer,
  find,
  report,
  rows,
  serverClient,
  setSetting,
  stub,
  waitFor,
} from './support.ts';

async function hideViews(): Promise<void> {
  const api = await configureForTestServer();
  await vscode.commands.executeCommand('workbench.view.explorer');
  await waitFor(
    () => !api.queueView.visible && !api.eventLogView.visible,
    10_000,
    'the Trainyard views to be hidden',
  );
}

describe('The extension as a daily tool: live status bar, my pull requests, notifications, dequeue', () => {
  afterEach(async () => {
    await setSetting('githubLogin', undefined);
    if (await serverClient().readPause('acme', 'app')) await serverClient().unpause('acme', 'app');
  });

  it('views hidden, the status bar shows a pause made elsewhere within 10 s, at no more than 6 requests a minute', async function () {
    this.timeout(60_000);
    const api = await configureForTestServer();
    await hideViews();
    assert.equal(api.queue.polling, false);
    // Start right after a poll: the worst case for a change made elsewhere.
    await new Promise<void>((resolve) => {
      const d = api.queue.onDidChange(() => {
        d.dispose();
        resolve();
      });
    });
    const t0 = Date.now();
    const c0 = api.queue.requestCount;
    await serverClient().pause('acme', 'app', 'incident 42');
    await waitFor(
      () =>
        api.statusBar.item.text.includes('$(debug-pause)') &&
        api.statusBar.tooltipText.includes('incident 42'),
      12_000,
      'the status bar to show the pause made elsewhere',
    );
    const latency = (Date.now() - t0) / 1000;
    assert.match(api.statusBar.tooltipText, /updated \d+ s ago/);
    // The pause notification names the reason.
    await waitFor(
      () => api.notifier.shown.some((n) => n.text === 'Merge queue paused: incident 42'),
      5000,
      'the pause notification',
    );
    await new Promise((r) => setTimeout(r, Math.max(0, t0 + 30_000 - Date.now())));
    // The cadence: the mean interval between the requests sent while the views were hidden.
    const starts = api.queue.requestStarts.filter((t) => t > t0 - 2000);
    assert.ok(api.queue.requestCount - c0 >= 2 && starts.length >= 3, `${starts.length} requests`);
    const perMinute = (60_000 * (starts.length - 1)) / (starts.at(-1)! - starts[0]!);
    report(
      `measured: pause seen after ${latency.toFixed(1)} s; ${perMinute.toFixed(1)} status requests a minute with the views hidden`,
    );
    assert.ok(latency <= 10.5, `pause seen after ${latency} s`);
    assert.ok(perMinute <= 6.1, `${perMinute} requests a minute`);
  });

  it('my pull requests come first in the view and in the status bar: position, state, ETA and why', async () => {
    const api = await configureForTestServer();
    await setSetting('githubLogin', 'alice');
    await api.queue.refresh();
    assert.equal(api.queue.me.login, 'alice');
    const root = await rows(api.queueTree);
    assert.equal(root[0]!.label, 'My pull requests');
    assert.match(root[0]!.description, /^\d+ queued · alice/);
    const mine = await rows(api.queueTree, root[0]!.node);
    assert.ok(mine.length > 0, 'alice has queued pull requests');
    assert.match(mine[0]!.description, /^1st · [a-z ]+ · (~[^·]+|no ETA) · alice$/);
    const tooltip = (mine[0]!.item.tooltip as vscode.MarkdownString).value;
    assert.match(tooltip, /why: \S+/);
    const first = mine[0]!.label.split(' ')[0]!;
    assert.match(
      api.statusBar.item.text,
      new RegExp(`^\\$\\(git-pull-request\\) ${first} · 1st · (~\\S+|no ETA)`),
    );
    // Another login: nothing of mine, the queue's state again.
    await setSetting('githubLogin', 'nobody-here');
    await api.queue.refresh();
    assert.match((await rows(api.queueTree))[0]!.description, /^none queued · nobody-here/);
    assert.match(api.statusBar.item.text, /Trainyard: /);
  });

  it('Dequeue states the impact and asks first; dequeued, my pull request’s removal is announced with its reason', async () => {
    const api = await configureForTestServer();
    await setSetting('githubLogin', 'alice');
    await api.queue.refresh();
    // All the fixture's pull requests are alice's: take the last of hers in the queue.
    const mine = await rows(api.queueTree, find(await rows(api.queueTree), 'My pull requests').node);
    const row = mine[mine.length - 1]!;
    const number = Number(row.label.split(' ')[0]!.slice(1));
    const title = row.label.slice(row.label.indexOf(' ') + 1);
    const impact = await serverClient().dequeueImpact('acme', 'app', number);
    const asked: string[] = [];
    let answer: string | undefined;
    const warning = stub(vscode.window, 'showWarningMessage', (async (
      message: string,
      ...rest: unknown[]
    ) => {
      if (typeof rest[0] === 'object' && (rest[0] as vscode.MessageOptions).modal) {
        asked.push(message);
        return answer;
      }
      return undefined;
    }) as unknown as typeof vscode.window.showWarningMessage);
    try {
      answer = undefined;
      assert.equal(await vscode.commands.executeCommand('trainyard.dequeuePullRequest', row.node), false);
      await serverClient().pull('acme', 'app', number); // still queued
      answer = 'Dequeue';
      assert.equal(await vscode.commands.executeCommand('trainyard.dequeuePullRequest', row.node), true);
      await waitFor(
        () =>
          api.notifier.shown.some((n) =>
            n.text.startsWith(`#${number} was removed from the merge queue: PR_MANUALLY_DEQUEUED`),
          ),
        10_000,
        'the removal notification',
      );
    } finally {
      warning.restore();
    }
    assert.equal(asked.length, 2);
    // The confirmation states the server's impact in words.
    assert.equal(asked[0], dequeueConfirmation(number, title, impact));
    assert.match(
      asked[0]!,
      /^Remove #\d+ ".*" from the merge queue\? (No running batch is|\d+ batch(es)? (is|are)) stopped and (no other pull request is|\d+ other pull requests? (is|are)) tested again\.$/,
    );
    await assert.rejects(serverClient().pull('acme', 'app', number), /not in any merge queue/);
    const notice = api.notifier.shown.find((n) => n.text.startsWith(`#${number} was removed`))!;
    assert.ok(
      notice.buttons.some(
        (b) => b.label === 'Open pull request' && 'url' in b && b.url.endsWith(`/${number}`),
      ),
    );
    assert.ok(
      !(await rows(api.queueTree, find(await rows(api.queueTree), 'Waiting').node)).some((r) =>
        r.label.startsWith(`#${number} `),
      ),
    );
    // Its Requeue button runs the real command: the pull request is back in the queue.
    const requeue = notice.buttons.find((b) => b.label === 'Requeue');
    assert.deepEqual(requeue, {
      label: 'Requeue',
      command: 'trainyard.requeuePullRequest',
      argument: number,
    });
    const result = (await api.notifier.press(requeue!)) as RequeueResult;
    assert.equal(result?.ok, true);
    assert.equal((await serverClient().pull('acme', 'app', number)).number, number);
    // Out again, as the suites after this one expect it.
    await serverClient().dequeue('acme', 'app', number);
    await api.queue.refresh();
  });
});
