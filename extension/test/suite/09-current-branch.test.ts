import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as vscode from 'vscode';
import { currentBranch } from '../../src/repository.ts';
import { configureForTestServer, rows, serverClient, setSetting, stub, waitFor } from './support.ts';

/** Checks out `branch` in the workspace's git repository (made by the runner) and waits for the git extension. */
async function checkout(branch: string): Promise<void> {
  const ws = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  assert.ok(ws, 'a workspace folder');
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', ws, '-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args]);
  try {
    git('rev-parse', '--verify', '-q', 'HEAD');
  } catch {
    git('commit', '-q', '--allow-empty', '-m', 'start'); // a fresh repository: no commit to branch from
  }
  git('checkout', '-q', '-B', branch);
  await waitFor(
    async () => {
      await vscode.commands.executeCommand('git.refresh').then(undefined, () => undefined);
      return (await currentBranch()) === branch;
    },
    20_000,
    `the git extension to see the branch ${branch}`,
  );
}

describe('The pull request of the current branch (head_ref)', () => {
  before(function () {
    if (!process.env.TRAINYARD_TEST_GIT_REMOTE) this.skip(); // no git on this machine
  });
  afterEach(async () => {
    await setSetting('githubLogin', undefined);
  });

  it('is found by its head branch: first in My pull requests and in the status bar, marked as the current branch', async () => {
    const api = await configureForTestServer();
    const status = await serverClient().status('acme', 'app');
    // A pull request far down the queue, so that being first is the branch's doing.
    const queued = [...status.batches.flatMap((b) => b.pull_requests), ...status.waiting_pull_requests];
    const target = queued.at(-1)!;
    assert.match(target.head_ref, /\S/);
    await checkout(target.head_ref);
    await setSetting('githubLogin', 'nobody-here');
    await api.queue.refresh();
    assert.equal(api.queue.me.branch, target.head_ref);

    const root = await rows(api.queueTree);
    assert.equal(root[0]!.label, 'My pull requests');
    assert.match(root[0]!.description, new RegExp(`^1 queued · nobody-here, branch ${target.head_ref}$`));
    const [mine] = await rows(api.queueTree, root[0]!.node);
    assert.equal(mine!.label, `#${target.number} ${target.title}`);
    assert.match(mine!.description, /^current branch · \d+(st|nd|rd|th) · /);
    assert.equal((mine!.item.iconPath as vscode.ThemeIcon).id, 'git-branch');
    assert.match(api.statusBar.item.text, new RegExp(`^\\$\\(git-branch\\) #${target.number} · \\d+`));
    assert.ok(api.statusBar.tooltipText.includes(`(current branch ${target.head_ref})`));

    // "Why is it waiting?" offers the current branch's pull request first.
    let first: vscode.QuickPickItem | undefined;
    const pick = stub(vscode.window, 'showQuickPick', (async (items: readonly vscode.QuickPickItem[]) => {
      first = items[0];
      return undefined;
    }) as unknown as typeof vscode.window.showQuickPick);
    try {
      await vscode.commands.executeCommand('trainyard.whyWaiting');
    } finally {
      pick.restore();
    }
    assert.equal(first?.label, `#${target.number} ${target.title}`);
    assert.match(first?.description ?? '', /^\$\(git-branch\) current branch · /);

    // Another branch: none of mine any more.
    await checkout('no-such-pull-request');
    await api.queue.refresh();
    assert.match((await rows(api.queueTree))[0]!.description, /^none queued · nobody-here, branch no-such/);
  });
});
