import * as vscode from 'vscode';
import { Disposable } from '../lifecycle.ts';
import type { TreeNode } from '../tree-node.ts';
import type { EventLogModel } from './event-log-model.ts';
import { EventNode } from './nodes/event-node.ts';
import { LoadMoreNode } from './nodes/load-more-node.ts';

/** Event Log view: newest first, then "Load more…" while the API has a next page. */
export class EventLogTreeProvider extends Disposable implements vscode.TreeDataProvider<TreeNode> {
  private readonly changed = this._register(new vscode.EventEmitter<TreeNode | undefined>());
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly model: EventLogModel) {
    super();
    this._register(model.onDidChange(() => this.changed.fire(undefined)));
  }

  getTreeItem(node: TreeNode): vscode.TreeItem {
    return node.getTreeItem();
  }

  getChildren(node?: TreeNode): TreeNode[] | Promise<TreeNode[]> {
    if (node) return node.getChildren();
    const repository = this.model.repository ?? '';
    const nodes: TreeNode[] = this.model.events.map((e) => new EventNode(repository, e));
    if (this.model.hasMore) nodes.push(new LoadMoreNode(repository));
    return nodes;
  }
}
