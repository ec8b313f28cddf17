import * as vscode from 'vscode';
import { commandIds } from './ids.ts';
import { Disposable } from './lifecycle.ts';
import { queueState } from './queue/nodes/repository-node.ts';
import { placeLine, statusBarLine, updatedAgo } from './queue/place-text.ts';
import { isOnBranch, myPlaces, placesOf } from './queue/pull-request-place.ts';
import type { QueueModel, QueueSnapshot } from './queue/queue-model.ts';

/**
 * The queue's state in the status bar: my pull request first ("#123 · 3rd · ~14:05"), else
 * paused / N batches running / idle; the tooltip says when it was last updated. Click opens the view.
 */
export class QueueStatusBar extends Disposable {
  readonly item = this._register(
    vscode.window.createStatusBarItem('trainyard.queue', vscode.StatusBarAlignment.Left, 50),
  );

  constructor(private readonly model: QueueModel) {
    super();
    this.item.name = 'Trainyard merge queue';
    this.item.command = commandIds.showView;
    this._register(model.onDidChange((s) => this.render(s)));
    // "updated N s ago" ages without a request.
    const tick = setInterval(() => this.render(model.snapshot), 5000);
    this._register(new vscode.Disposable(() => clearInterval(tick)));
    this.render(model.snapshot);
    this.item.show();
  }

  private render(snapshot: QueueSnapshot): void {
    if (snapshot.kind === 'loading') {
      this.item.text = '$(loading~spin) Trainyard';
      this.item.tooltip = 'Loading the merge queue';
      this.item.backgroundColor = undefined;
      return;
    }
    if (snapshot.kind === 'problem') {
      this.item.text = '$(warning) Trainyard';
      this.item.tooltip = snapshot.problem.message;
      this.item.backgroundColor = undefined;
      return;
    }
    const { status } = snapshot;
    const state = queueState(status);
    const mine = myPlaces(placesOf(status), this.model.me);
    const icon = status.pause ? '$(debug-pause)' : status.batches.length ? '$(sync)' : '$(check)';
    const first = mine[0];
    const branchFirst = first !== undefined && isOnBranch(first, this.model.me);
    this.item.text = first
      ? `${status.pause ? '$(debug-pause)' : branchFirst ? '$(git-branch)' : '$(git-pull-request)'} ${statusBarLine(first)}`
      : `${icon} Trainyard: ${state}`;
    const lines = [
      `**${snapshot.repository}**: ${status.pause ? `paused — ${status.pause.reason}` : state}; ${status.waiting_pull_requests.length} waiting`,
      ...mine.map(
        (p) =>
          `#${p.pr.number} ${p.pr.title}${isOnBranch(p, this.model.me) ? ` (current branch ${p.pr.head_ref})` : ''}: ${placeLine(p)} — ${p.reason ?? ''}`,
      ),
      `_${updatedAgo(snapshot.fetchedAt)}_`,
    ];
    const tooltip = new vscode.MarkdownString(lines.join('\n\n'));
    tooltip.supportThemeIcons = false;
    this.item.tooltip = tooltip;
    this.item.backgroundColor = status.pause
      ? new vscode.ThemeColor('statusBarItem.warningBackground')
      : undefined;
  }

  /** The tooltip as plain text (tests read what a person reads on hover). */
  get tooltipText(): string {
    const t = this.item.tooltip;
    return typeof t === 'string' ? t : (t?.value ?? '');
  }
}
