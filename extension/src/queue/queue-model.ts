import * as vscode from 'vscode';
import type { MergeQueueStatus } from '../../../shared/schemas/merge-queue.schema.ts';
import type { MergeQueuePullRequest } from '../../../shared/schemas/merge-queue-pull.schema.ts';
import type { ApiSession, Outcome, Problem } from '../api-session.ts';
import { contextKeys, settings } from '../ids.ts';
import { Disposable } from '../lifecycle.ts';
import { currentBranch, formatRepository } from '../repository.ts';
import type { Me } from './pull-request-place.ts';

export type QueueSnapshot =
  | { kind: 'loading' }
  | { kind: 'ok'; repository: string; status: MergeQueueStatus; fetchedAt: Date }
  | { kind: 'problem'; problem: Problem };

/**
 * The merge queue status of the current repository: fetched, cached, announced on change.
 * Polls always, for the status bar, every `statusBar.refreshInterval` seconds (10: six requests
 * a minute keep a pause made elsewhere visible within about ten seconds); while a view is
 * visible, at the shorter of that and `refreshInterval`.
 */
export class QueueModel extends Disposable {
  private readonly changed = this._register(new vscode.EventEmitter<QueueSnapshot>());
  readonly onDidChange = this.changed.event;
  private current: QueueSnapshot = { kind: 'loading' };
  /** Whose pull requests come first: the GitHub login and the current branch, as of the last fetch. */
  me: Me = { login: null, branch: null };
  private sessionLogin: string | null = null;
  private loginLookup: Promise<void> | null = null;
  /** Status requests sent so far (one HTTP request each): the poll's cost, measured by the tests. */
  requestCount = 0;
  /** When the last (at most 20) status requests started, in ms since the epoch. */
  readonly requestStarts: number[] = [];
  private inFlight: Promise<void> | null = null;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly visibleViews = new Set<string>();
  private stopped = false;

  constructor(private readonly session: ApiSession) {
    super();
    this._register(
      session.onDidChange(() => {
        this.loginLookup = null;
        void this.refresh();
      }),
    );
    this._register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (
          e.affectsConfiguration(`${settings.section}.${settings.refreshInterval}`) ||
          e.affectsConfiguration(`${settings.section}.${settings.statusBarRefreshInterval}`)
        )
          this.schedule();
      }),
    );
    this._register(
      new vscode.Disposable(() => {
        this.stopped = true;
        clearTimeout(this.timer);
      }),
    );
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
      let started = Date.now();
      try {
        do {
          this.again = false;
          started = Date.now();
          await this.fetch();
        } while (this.again);
      } finally {
        this.inFlight = null;
        this.schedule(started);
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

  /** Seconds between two fetches now (views visible or not). */
  get interval(): number {
    const config = vscode.workspace.getConfiguration(settings.section);
    const background = Math.max(10, config.get<number>(settings.statusBarRefreshInterval, 10));
    if (!this.polling) return background;
    return Math.min(background, Math.max(5, config.get<number>(settings.refreshInterval, 30)));
  }

  /** The next fetch, counted from the start of the last one so that the cadence holds. */
  private schedule(lastStart = Date.now()): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.stopped) return;
    const delay = Math.max(1000, lastStart + this.interval * 1000 - Date.now());
    this.timer = setTimeout(() => void this.refresh(), delay);
  }

  private async fetch(): Promise<void> {
    this.requestCount++;
    this.requestStarts.push(Date.now());
    if (this.requestStarts.length > 20) this.requestStarts.shift();
    const [outcome, me] = await Promise.all([
      this.session.run((client, repo) => client.status(repo.owner, repo.name)),
      this.whoAmI(),
    ]);
    this.me = me;
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

  /**
   * The setting, else the GitHub session's login. A silent session lookup can take seconds, so it
   * runs once in the background (again when the credentials change) and never delays a fetch.
   */
  /** One pull request's view (its test and check runs), fetched now. */
  pullRequest(number: number): Promise<Outcome<MergeQueuePullRequest>> {
    return this.session.run((client, repo) => client.pull(repo.owner, repo.name, number));
  }

  private async whoAmI(): Promise<Me> {
    const configured = vscode.workspace
      .getConfiguration(settings.section)
      .get<string>(settings.githubLogin, '')
      .trim();
    if (!configured && !this.loginLookup) {
      this.loginLookup = this.session.credentials.githubLogin().then((login) => {
        const changed = login !== this.sessionLogin;
        this.sessionLogin = login;
        if (changed && this.current.kind === 'ok') {
          this.me = { ...this.me, login };
          this.changed.fire(this.current);
        }
      });
    }
    return { login: configured || this.sessionLogin, branch: await currentBranch() };
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
