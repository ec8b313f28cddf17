import * as vscode from 'vscode';
import { commandIds } from '../../ids.ts';
import type { TreeNode } from '../../tree-node.ts';

/** The last row while the API has a next page: running it appends that page. */
export class LoadMoreNode implements TreeNode {
  constructor(private readonly repository: string) {}

  getTreeItem(): vscode.TreeItem {
    const item = new vscode.TreeItem('Load more…');
    item.id = `${this.repository}/event-log/load-more`;
    item.iconPath = new vscode.ThemeIcon('ellipsis');
    item.contextValue = 'loadMore';
    item.command = { command: commandIds.loadMoreEvents, title: 'Load more events' };
    return item;
  }

  getChildren(): TreeNode[] {
    return [];
  }
}
