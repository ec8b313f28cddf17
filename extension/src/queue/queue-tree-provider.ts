import * as vscode from 'vscode';
import { Disposable } from '../lifecycle.ts';
import type { TreeNode } from '../tree-node.ts';
import { PartitionNode } from './nodes/partition-node.ts';
import { PauseNode, RepositoryNode } from './nodes/repository-node.ts';
import { WaitingNode } from './nodes/waiting-node.ts';
import type { QueueModel } from './queue-model.ts';

/**
 * Merge Queue view: repository, pause state, each partition's batches (sub-batches and pull
 * requests below), then the waiting pull requests. Empty on a problem: viewsWelcome explains it.
 */
export class QueueTreeProvider extends Disposable implements vscode.TreeDataProvider<TreeNode> {
  private readonly changed = this._register(new vscode.EventEmitter<TreeNode | undefined>());
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly model: QueueModel) {
    super();
    this._register(model.onDidChange(() => this.changed.fire(undefined)));
  }

  getTreeItem(node: TreeNode): vscode.TreeItem {
    return node.getTreeItem();
  }

  getChildren(node?: TreeNode): TreeNode[] {
    if (node) return node.getChildren();
    const snapshot = this.model.snapshot;
    if (snapshot.kind !== 'ok') return [];
    const { repository, status } = snapshot;
    const byId = new Map(status.batches.map((b) => [b.id, b]));
    const partitions = Object.entries(status.scope_queues).map(
      ([scope, ids]) =>
        new PartitionNode(
          repository,
          scope,
          ids.flatMap((id) => byId.get(id) ?? []),
        ),
    );
    return [
      new RepositoryNode(repository, status, snapshot.fetchedAt),
      new PauseNode(repository, status.pause),
      ...partitions,
      new WaitingNode(repository, status.waiting_pull_requests),
    ];
  }
}
