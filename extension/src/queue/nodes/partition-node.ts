import * as vscode from 'vscode';
import { DEFAULT_PARTITION_NAME } from '../../../../shared/schemas/default-names.ts';
import type { Batch } from '../../../../shared/schemas/merge-queue.schema.ts';
import type { TreeNode } from '../../tree-node.ts';
import type { PullRequestPlace } from '../pull-request-place.ts';
import { BatchNode } from './batch-node.ts';
import type { LoadChecks } from './pull-request-node.ts';

/** One partition (or scope) and its batches, head first. */
export class PartitionNode implements TreeNode {
  constructor(
    private readonly repository: string,
    readonly scope: string,
    readonly batches: Batch[],
    private readonly places: Map<number, PullRequestPlace> = new Map(),
    private readonly loadChecks: LoadChecks | null = null,
  ) {}

  getTreeItem(): vscode.TreeItem {
    const item = new vscode.TreeItem(
      this.scope === DEFAULT_PARTITION_NAME ? 'Queue' : `Partition ${this.scope}`,
      this.batches.length ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None,
    );
    item.id = `${this.repository}/scope/${this.scope}`;
    item.description = this.batches.length === 1 ? '1 batch' : `${this.batches.length} batches`;
    item.iconPath = new vscode.ThemeIcon('list-ordered');
    item.contextValue = 'partition';
    return item;
  }

  getChildren(): TreeNode[] {
    return this.batches.map(
      (b) => new BatchNode(b, `${this.repository}/scope/${this.scope}`, this.places, null, this.loadChecks),
    );
  }
}
