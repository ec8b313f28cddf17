import * as vscode from 'vscode';
import type { QueuedPullRequest } from '../../../../shared/schemas/merge-queue.schema.ts';
import type { TreeNode } from '../../tree-node.ts';
import type { PullRequestPlace } from '../pull-request-place.ts';
import { type LoadChecks, PullRequestNode } from './pull-request-node.ts';

/** Queued pull requests not yet in a batch, in queue order. */
export class WaitingNode implements TreeNode {
  constructor(
    private readonly repository: string,
    readonly pullRequests: QueuedPullRequest[],
    private readonly places: Map<number, PullRequestPlace> = new Map(),
    private readonly loadChecks: LoadChecks | null = null,
  ) {}

  getTreeItem(): vscode.TreeItem {
    const n = this.pullRequests.length;
    const item = new vscode.TreeItem(
      'Waiting',
      n ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None,
    );
    item.id = `${this.repository}/waiting`;
    item.description = n === 1 ? '1 pull request' : `${n} pull requests`;
    item.iconPath = new vscode.ThemeIcon('watch');
    item.contextValue = 'waiting';
    return item;
  }

  getChildren(): TreeNode[] {
    return this.pullRequests.map(
      (pr) =>
        new PullRequestNode(
          pr,
          `${this.repository}/waiting`,
          'waiting',
          this.places.get(pr.number) ?? null,
          null,
          this.loadChecks,
        ),
    );
  }
}
