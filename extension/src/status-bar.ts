import * as vscode from 'vscode';
import { commandIds } from './ids.ts';
import { Disposable } from './lifecycle.ts';
import { queueState } from './queue/nodes/repository-node.ts';
import type { QueueModel, QueueSnapshot } from './queue/queue-model.ts';

/** The queue's state in the status bar (paused / N batches running / idle); click opens the view. */
export class QueueStatusBar extends Disposable {
  readonly item = this._register(
    vscode.window.createStatusBarItem('trainyard.queue', vscode.StatusBarAlignment.Left, 50),
  );

  constructor(model: QueueModel) {
    super();
    this.item.name = 'Trainyard merge queue';
    this.item.command = commandIds.showView;
    this._register(model.onDidChange((s) => this.render(s)));
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
    const state = queueState(snapshot.status);
    const icon = snapshot.status.pause
      ? '$(debug-pause)'
      : snapshot.status.batches.length
        ? '$(sync)'
        : '$(check)';
    this.item.text = `${icon} Trainyard: ${state}`;
    this.item.tooltip = snapshot.status.pause
      ? `${snapshot.repository}: paused — ${snapshot.status.pause.reason}`
      : `${snapshot.repository}: ${state}; ${snapshot.status.waiting_pull_requests.length} waiting`;
    this.item.backgroundColor = snapshot.status.pause
      ? new vscode.ThemeColor('statusBarItem.warningBackground')
      : undefined;
  }
}
