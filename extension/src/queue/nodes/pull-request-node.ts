import * as vscode from 'vscode';
import { DEFAULT_PARTITION_NAME } from '../../../../shared/schemas/default-names.ts';
import type { QueuedPullRequest } from '../../../../shared/schemas/merge-queue.schema.ts';
import { absoluteTime } from '../../time.ts';
import type { TreeNode } from '../../tree-node.ts';
import { placeLine } from '../place-text.ts';
import type { PullRequestPlace } from '../pull-request-place.ts';

/** Fetches a pull request's check runs as nodes (the per-PR view); given by the tree provider. */
export type LoadChecks = (parentId: string, number: number) => Promise<TreeNode[]>;

/** How a pull request is marked under a bisecting batch. */
export type BisectionMark = 'culprit' | 'suspect' | 'cleared' | null;

/**
 * A queued pull request: "#pos · state · ETA" and its reason. Selecting it opens nothing:
 * opening the pull request is an explicit action (inline button or context menu).
 */
export class PullRequestNode implements TreeNode {
  constructor(
    readonly pullRequest: QueuedPullRequest,
    private readonly parentId: string,
    /** `branch`: mine, and the pull request of the workspace's current branch. */
    private readonly where: 'batch' | 'waiting' | 'mine' | 'branch',
    readonly place: PullRequestPlace | null = null,
    private readonly mark: BisectionMark = null,
    private readonly loadChecks: LoadChecks | null = null,
  ) {}

  getTreeItem(): vscode.TreeItem {
    const pr = this.pullRequest;
    const p = this.place;
    // Expanding it lists its check runs (state, link): fetched then, not with the status.
    const item = new vscode.TreeItem(
      `#${pr.number} ${pr.title}`,
      this.loadChecks ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None,
    );
    item.id = `${this.parentId}/pr/${pr.number}`;
    const markText = this.mark ? `${this.mark} · ` : this.where === 'branch' ? 'current branch · ' : '';
    item.description = p
      ? `${markText}${placeLine(p)} · ${pr.author.login}`
      : `${markText}${pr.author.login}`;
    item.tooltip = new vscode.MarkdownString(
      [
        `**#${pr.number} ${pr.title}**`,
        this.where === 'branch' ? `the pull request of your current branch, ${pr.head_ref}` : '',
        p
          ? `${placeLine(p)} in ${p.lane === DEFAULT_PARTITION_NAME ? 'the queue' : `partition ${p.lane}`}`
          : '',
        p?.reason ? `why: ${p.reason}` : '',
        ...(p?.reasons.slice(1).map((r) => `also: ${r.message}`) ?? []),
        ...(p?.reasons.flatMap((r) => (r.next_action ? [`next: ${r.next_action}`] : [])) ?? []),
        p?.eta
          ? `estimated merge: ${absoluteTime(p.eta)}${p.etaP90 ? ` (90 %: by ${absoluteTime(p.etaP90)})` : ''}`
          : '',
        `author: ${pr.author.login} · priority: ${pr.priority_alias}${pr.priority_rule_name ? ` (rule ${pr.priority_rule_name})` : ''}`,
        `queued: ${absoluteTime(pr.queued_at)}`,
        pr.labels.length ? `labels: ${pr.labels.join(', ')}` : '',
      ]
        .filter(Boolean)
        .join('\n\n'),
    );
    item.iconPath =
      this.mark === 'culprit'
        ? new vscode.ThemeIcon('bug', new vscode.ThemeColor('charts.red'))
        : this.mark === 'suspect'
          ? new vscode.ThemeIcon('question', new vscode.ThemeColor('charts.orange'))
          : this.where === 'branch'
            ? new vscode.ThemeIcon('git-branch', new vscode.ThemeColor('charts.blue'))
            : this.where === 'mine'
              ? new vscode.ThemeIcon('account', new vscode.ThemeColor('charts.blue'))
              : new vscode.ThemeIcon('git-pull-request');
    item.contextValue = `pr:${this.where}`;
    return item;
  }

  getChildren(): TreeNode[] | Promise<TreeNode[]> {
    return this.loadChecks
      ? this.loadChecks(`${this.parentId}/pr/${this.pullRequest.number}`, this.pullRequest.number)
      : [];
  }
}
