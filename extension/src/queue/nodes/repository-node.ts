import * as vscode from 'vscode';
import type { MergeQueueStatus, PauseRecord } from '../../../../shared/schemas/merge-queue.schema.ts';
import { absoluteTime, relativeTime } from '../../time.ts';
import type { TreeNode } from '../../tree-node.ts';
import { updatedAgo } from '../place-text.ts';

export function queueState(status: MergeQueueStatus): string {
  if (status.pause) return 'paused';
  const running = status.batches.length;
  if (running > 0) return running === 1 ? '1 batch running' : `${running} batches running`;
  return 'idle';
}

/** The repository the view shows, with the queue's state. */
export class RepositoryNode implements TreeNode {
  constructor(
    readonly repository: string,
    private readonly status: MergeQueueStatus,
    private readonly fetchedAt: Date,
  ) {}

  getTreeItem(): vscode.TreeItem {
    const item = new vscode.TreeItem(this.repository, vscode.TreeItemCollapsibleState.None);
    item.id = `${this.repository}/repository`;
    item.description = `Status: ${queueState(this.status)} · ${updatedAgo(this.fetchedAt)}`;
    item.tooltip = `${this.repository} — updated ${this.fetchedAt.toLocaleTimeString()}`;
    item.iconPath = new vscode.ThemeIcon('repo');
    item.contextValue = 'repository';
    return item;
  }

  getChildren(): TreeNode[] {
    return [];
  }
}

/** The pause state: "Paused: <reason>" since when, or "Not paused". */
export class PauseNode implements TreeNode {
  constructor(
    private readonly repository: string,
    readonly pause: PauseRecord | null,
  ) {}

  getTreeItem(): vscode.TreeItem {
    const p = this.pause;
    const item = new vscode.TreeItem(p ? `Paused: ${p.reason}` : 'Not paused');
    item.id = `${this.repository}/pause`;
    if (p) {
      item.description = `since ${relativeTime(p.paused_at)}`;
      item.tooltip = `Paused since ${absoluteTime(p.paused_at)}: ${p.reason}`;
      item.iconPath = new vscode.ThemeIcon('debug-pause', new vscode.ThemeColor('charts.yellow'));
    } else {
      item.description = 'merging as usual';
      item.iconPath = new vscode.ThemeIcon('play-circle', new vscode.ThemeColor('charts.green'));
    }
    item.contextValue = p ? 'pause:paused' : 'pause:running';
    return item;
  }

  getChildren(): TreeNode[] {
    return [];
  }
}
