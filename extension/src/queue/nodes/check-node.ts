import * as vscode from 'vscode';
import type { Check } from '../../../../shared/schemas/event-parts.schema.ts';
import type { TreeNode } from '../../tree-node.ts';

const icons: Record<string, [string, string | undefined]> = {
  success: ['pass', 'testing.iconPassed'],
  neutral: ['circle-outline', undefined],
  skipped: ['circle-slash', undefined],
  pending: ['clock', 'charts.yellow'],
  failure: ['error', 'testing.iconFailed'],
  error: ['error', 'testing.iconFailed'],
  timed_out: ['watch', 'testing.iconFailed'],
  cancelled: ['circle-slash', 'testing.iconFailed'],
  action_required: ['warning', 'charts.orange'],
  stale: ['history', undefined],
};

/** One check run on a pull request's tested commit: name, state; its link opens on click. */
export class CheckNode implements TreeNode {
  constructor(
    private readonly parentId: string,
    readonly check: Check,
  ) {}

  getTreeItem(): vscode.TreeItem {
    const c = this.check;
    const item = new vscode.TreeItem(c.name, vscode.TreeItemCollapsibleState.None);
    item.id = `${this.parentId}/check/${c.name}`;
    item.description = c.state.replaceAll('_', ' ');
    item.tooltip = [c.name, c.description, c.url ?? 'no link'].filter(Boolean).join('\n');
    const [icon, color] = icons[c.state] ?? ['circle-outline', undefined];
    item.iconPath = new vscode.ThemeIcon(icon, color ? new vscode.ThemeColor(color) : undefined);
    item.contextValue = c.url ? 'check:link' : 'check';
    if (c.url)
      item.command = {
        command: 'vscode.open',
        title: 'Open check run',
        arguments: [vscode.Uri.parse(c.url)],
      };
    return item;
  }

  getChildren(): TreeNode[] {
    return [];
  }
}

/** A line under a pull request when its checks cannot be listed (not tested yet, or an error). */
export class NoteNode implements TreeNode {
  constructor(
    private readonly id: string,
    private readonly text: string,
  ) {}

  getTreeItem(): vscode.TreeItem {
    const item = new vscode.TreeItem(this.text, vscode.TreeItemCollapsibleState.None);
    item.id = this.id;
    item.iconPath = new vscode.ThemeIcon('info');
    item.contextValue = 'note';
    return item;
  }

  getChildren(): TreeNode[] {
    return [];
  }
}
