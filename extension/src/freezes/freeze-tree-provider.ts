import * as vscode from 'vscode';
import type { ScheduledFreeze } from '../../../shared/schemas/scheduled-freeze.schema.ts';
import type { ApiSession } from '../api-session.ts';
import { Disposable } from '../lifecycle.ts';
import { NoteNode } from '../queue/nodes/check-node.ts';
import type { QueueModel } from '../queue/queue-model.ts';
import { formatRepository } from '../repository.ts';
import type { TreeNode } from '../tree-node.ts';
import { freezeDetails, freezeLine, freezeWhen } from './freeze-text.ts';

/** One scheduled freeze: its reason, active or upcoming and until when; details in the tooltip. */
export class FreezeNode implements TreeNode {
  constructor(
    private readonly repository: string,
    readonly freeze: ScheduledFreeze,
    private readonly now: Date,
  ) {}

  getTreeItem(): vscode.TreeItem {
    const f = this.freeze;
    const item = new vscode.TreeItem(f.reason.split('\n')[0]!, vscode.TreeItemCollapsibleState.None);
    item.id = `${this.repository}/freeze/${f.id}`;
    item.description = freezeLine(f, this.now);
    const tooltip = new vscode.MarkdownString(freezeDetails(f, this.now));
    tooltip.supportThemeIcons = false;
    item.tooltip = tooltip;
    const active = freezeWhen(f, this.now).state === 'active';
    item.iconPath = active
      ? new vscode.ThemeIcon('lock', new vscode.ThemeColor('charts.orange'))
      : new vscode.ThemeIcon('calendar');
    item.contextValue = active ? 'freeze:active' : 'freeze:upcoming';
    return item;
  }

  getChildren(): TreeNode[] {
    return [];
  }
}

/**
 * Scheduled Freezes view: the repository's freezes not ended yet (`GET …/scheduled_freeze`), active
 * first. Read when shown, and again with each queue refresh while it is visible (VS Code asks
 * only then), so it follows the queue's cadence without a poll of its own.
 */
export class FreezeTreeProvider extends Disposable implements vscode.TreeDataProvider<TreeNode> {
  private readonly changed = this._register(new vscode.EventEmitter<TreeNode | undefined>());
  readonly onDidChangeTreeData = this.changed.event;
  /** Freeze lists fetched so far (one request each): the view's cost, read by the tests. */
  requestCount = 0;

  constructor(
    private readonly session: ApiSession,
    queue: QueueModel,
  ) {
    super();
    this._register(queue.onDidChange(() => this.changed.fire(undefined)));
  }

  refresh(): void {
    this.changed.fire(undefined);
  }

  getTreeItem(node: TreeNode): vscode.TreeItem {
    return node.getTreeItem();
  }

  async getChildren(node?: TreeNode): Promise<TreeNode[]> {
    if (node) return node.getChildren();
    this.requestCount++;
    const outcome = await this.session.run((client, r) => client.freezes(r.owner, r.name));
    if (!outcome.ok) return [new NoteNode('freezes/problem', outcome.problem.message)];
    const now = new Date();
    const repository = formatRepository(outcome.repository);
    const nodes = outcome.value.map((f) => new FreezeNode(repository, f, now));
    const rank = (n: FreezeNode) => (freezeWhen(n.freeze, now).state === 'active' ? 0 : 1);
    return nodes.sort((a, b) => rank(a) - rank(b));
  }
}
