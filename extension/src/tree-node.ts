import type * as vscode from 'vscode';

/** A tree node renders itself; its children come from data already fetched (no I/O here). */
export interface TreeNode {
  getTreeItem(): vscode.TreeItem;
  getChildren(): TreeNode[];
}
