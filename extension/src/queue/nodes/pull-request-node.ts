import * as vscode from 'vscode';
import type { QueuedPullRequest } from '../../../../shared/schemas/merge-queue.schema.ts';
import { commandIds } from '../../ids.ts';
import { absoluteTime, relativeTime } from '../../time.ts';
import type { TreeNode } from '../../tree-node.ts';

export class PullRequestNode implements TreeNode {
  constructor(
    readonly pullRequest: QueuedPullRequest,
    private readonly parentId: string,
    private readonly where: 'batch' | 'waiting',
  ) {}

  getTreeItem(): vscode.TreeItem {
    const pr = this.pullRequest;
    const item = new vscode.TreeItem(`#${pr.number} ${pr.title}`, vscode.TreeItemCollapsibleState.None);
    item.id = `${this.parentId}/pr/${pr.number}`;
    item.description = `${pr.author.login} · ${pr.priority_alias} · queued ${relativeTime(pr.queued_at)}`;
    item.tooltip = new vscode.MarkdownString(
      [
        `**#${pr.number} ${pr.title}**`,
        `author: ${pr.author.login}`,
        `priority: ${pr.priority_alias} (rule ${pr.priority_rule_name})`,
        `queued: ${absoluteTime(pr.queued_at)}`,
        pr.labels.length ? `labels: ${pr.labels.join(', ')}` : '',
      ]
        .filter(Boolean)
        .join('\n\n'),
    );
    item.iconPath = new vscode.ThemeIcon('git-pull-request');
    item.contextValue = `pr:${this.where}`;
    item.command = { command: commandIds.openPullRequest, title: 'Open pull request', arguments: [this] };
    return item;
  }

  getChildren(): TreeNode[] {
    return [];
  }
}
