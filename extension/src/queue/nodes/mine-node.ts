import * as vscode from 'vscode';
import type { TreeNode } from '../../tree-node.ts';
import { isOnBranch, type Me, type PullRequestPlace } from '../pull-request-place.ts';
import { type LoadChecks, PullRequestNode } from './pull-request-node.ts';

const MAX_EXPANDED = 5;

/** "My pull requests": the current branch's and the signed-in login's queued pull requests. */
export class MineNode implements TreeNode {
  constructor(
    private readonly repository: string,
    readonly places: PullRequestPlace[],
    private readonly me: Me,
    private readonly loadChecks: LoadChecks | null = null,
  ) {}

  getTreeItem(): vscode.TreeItem {
    const n = this.places.length;
    // A long list of mine (a bot's or a lead's login) would push the queue out of sight: folded.
    const item = new vscode.TreeItem(
      'My pull requests',
      n === 0
        ? vscode.TreeItemCollapsibleState.None
        : n <= MAX_EXPANDED
          ? vscode.TreeItemCollapsibleState.Expanded
          : vscode.TreeItemCollapsibleState.Collapsed,
    );
    item.id = `${this.repository}/mine`;
    const who = [this.me.login, this.me.branch ? `branch ${this.me.branch}` : null]
      .filter(Boolean)
      .join(', ');
    item.description = n ? `${n} queued${who ? ` · ${who}` : ''}` : `none queued${who ? ` · ${who}` : ''}`;
    item.tooltip = who
      ? `Queued pull requests by ${this.me.login ?? 'you'}${this.me.branch ? ` or of the branch ${this.me.branch}` : ''}`
      : 'Sign in with GitHub (or set trainyard.githubLogin) to see your pull requests here';
    item.iconPath = new vscode.ThemeIcon('account');
    item.contextValue = 'mine';
    return item;
  }

  getChildren(): TreeNode[] {
    return this.places.map(
      (p) =>
        new PullRequestNode(
          p.pr,
          `${this.repository}/mine`,
          isOnBranch(p, this.me) ? 'branch' : 'mine',
          p,
          null,
          this.loadChecks,
        ),
    );
  }
}
