import type * as vscode from 'vscode';

/**
 * A tree node renders itself; its children come from data already fetched, except a pull
 * request's check runs, fetched when the user expands it.
 */
export interface TreeNode {
  getTreeItem(): vscode.TreeItem;
  getChildren(): TreeNode[] | Promise<TreeNode[]>;
}
