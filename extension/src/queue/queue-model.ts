import * as vscode from 'vscode';
import type { MergeQueueStatus } from '../../../shared/schemas/merge-queue.schema.ts';
import type { ApiSession, Problem } from '../api-session.ts';
import { contextKeys, settings } from '../ids.ts';
import { Disposable } from '../lifecycle.ts';
import { formatRepository } from '../repository.ts';

export type QueueSnapshot =
  | { kind: 'loading' }
  | { kind: 'ok'; repository: string; status: MergeQueueStatus; fetchedAt: Date }
  | { kind: 'problem'; problem: Problem };

/**
 * The merge queue status of the current repository: fetched, cached, announced on change.
 * Polls only while a view that shows it is visible.
 */
export class QueueModel extends Disposable {
  private readonly changed = this._register(new vscode.EventEmitter<QueueSnapshot>());
  readonly onDidChange = this.changed.event;
  private current: QueueSnapshot = { kind: 'loading' };
  private inFlight: Promise<void> | null = null;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly visibleViews = new Set<string>();

  constructor(private readonly session: ApiSession) {
    super();
    this._register(session.onDidChange(() => void this.refresh()));
    this._register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(`${settings.section}.${settings.refreshInterval}`)) this.schedule();
      }),
    );
    this._register(new vscode.Disposable(() => clearTimeout(this.timer)));
    void this.publishContext();
  }

  get snapshot(): QueueSnapshot {
    return this.current;
  }

  /** Fetches now; concurrent calls share one request, and a call during a request runs once more after it. */
  refresh(): Promise<void> {
    if (this.inFlight) {
      this.again = true;
      return this.inFlight;
    }
    this.inFlight = (async () => {
      try {
        do {
          this.again = false;
          await this.fetch();
        } while (this.again);
      } finally {
        this.inFlight = null;
        this.schedule();
      }
    })();
    return this.inFlight;
  }

  /** A view showing the queue became visible or hidden: poll only while one is visible. */
  setVisible(viewId: string, visible: boolean): void {
    const wasPolling = this.visibleViews.size > 0;
    if (visible) this.visibleViews.add(viewId);
    else this.visibleViews.delete(viewId);
    if (visible && !wasPolling) void this.refresh();
    else this.schedule();
  }

  get polling(): boolean {
    return this.visibleViews.size > 0;
  }

  private schedule(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.polling) return;
    const seconds = Math.max(
      5,
      vscode.workspace.getConfiguration(settings.section).get<number>(settings.refreshInterval, 30),
    );
    this.timer = setTimeout(() => void this.refresh(), seconds * 1000);
  }

  private async fetch(): Promise<void> {
    const outcome = await this.session.run((client, repo) => client.status(repo.owner, repo.name));
    this.current = outcome.ok
      ? {
          kind: 'ok',
          repository: formatRepository(outcome.repository),
          status: outcome.value,
          fetchedAt: new Date(),
        }
      : { kind: 'problem', problem: outcome.problem };
    await this.publishContext();
    this.changed.fire(this.current);
  }

  private async publishContext(): Promise<void> {
    const s = this.current;
    const state = s.kind === 'ok' ? 'ok' : s.kind === 'loading' ? 'loading' : s.problem.kind;
    await vscode.commands.executeCommand('setContext', contextKeys.state, state);
    await vscode.commands.executeCommand(
      'setContext',
      contextKeys.paused,
      s.kind === 'ok' && s.status.pause !== null,
    );
  }
}
