import * as vscode from 'vscode';
import type { Batch, BatchStatusCode } from '../../../../shared/schemas/merge-queue.schema.ts';
import { absoluteTime, relativeTime } from '../../time.ts';
import type { TreeNode } from '../../tree-node.ts';
import { PullRequestNode } from './pull-request-node.ts';

const icons: Record<BatchStatusCode, [string, string | undefined]> = {
  waiting_for_batch: ['clock', undefined],
  preparing: ['loading~spin', undefined],
  running: ['sync~spin', 'charts.blue'],
  bisecting: ['git-compare', 'charts.orange'],
  waiting_for_previous_batches: ['debug-stackframe', undefined],
  waiting_for_schedule: ['calendar', undefined],
  frozen: ['lock', 'charts.purple'],
  paused: ['debug-pause', 'charts.yellow'],
  merging: ['git-merge', 'charts.green'],
  merged: ['pass-filled', 'charts.green'],
  failed: ['error', 'charts.red'],
};

/** A batch, or a sub-batch of a bisecting batch (same rendering, nested id). */
export class BatchNode implements TreeNode {
  readonly id: string;

  constructor(
    readonly batch: Batch,
    parentId: string,
    private readonly isSubBatch = false,
  ) {
    this.id = `${parentId}/batch/${batch.id}`;
  }

  getTreeItem(): vscode.TreeItem {
    const b = this.batch;
    const item = new vscode.TreeItem(b.name, vscode.TreeItemCollapsibleState.Expanded);
    item.id = this.id;
    const code = b.status.code.replaceAll('_', ' ');
    const eta = b.estimated_merge_at ? `merge ${relativeTime(b.estimated_merge_at)}` : 'no estimate';
    item.description = `${code} · ${b.checks_summary.passed}/${b.checks_summary.total} checks · ${eta}`;
    item.tooltip = new vscode.MarkdownString(
      [
        `**${b.name}** — ${code}`,
        `checks passed: ${b.checks_summary.passed} of ${b.checks_summary.total}`,
        b.started_at ? `started: ${absoluteTime(b.started_at)}` : 'not started',
        b.estimated_merge_at ? `estimated merge: ${absoluteTime(b.estimated_merge_at)}` : '',
        `pull requests: ${b.pull_requests.map((p) => `#${p.number}`).join(', ') || 'none'}`,
      ]
        .filter(Boolean)
        .join('\n\n'),
    );
    const [icon, color] = icons[b.status.code];
    item.iconPath = new vscode.ThemeIcon(icon, color ? new vscode.ThemeColor(color) : undefined);
    item.contextValue = `${this.isSubBatch ? 'subBatch' : 'batch'}:${b.status.code}`;
    return item;
  }

  getChildren(): TreeNode[] {
    return [
      ...(this.batch.sub_batches ?? []).map((sub) => new BatchNode(sub, this.id, true)),
      ...this.batch.pull_requests.map((pr) => new PullRequestNode(pr, this.id, 'batch')),
    ];
  }
}
