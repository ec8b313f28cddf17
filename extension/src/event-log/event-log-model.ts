import * as vscode from 'vscode';
import type { LogsFilter } from '../../../shared/client/api-client.ts';
import type { Event } from '../../../shared/schemas/event.schema.ts';
import type { ApiSession, Problem } from '../api-session.ts';
import { contextKeys, settings } from '../ids.ts';
import { Disposable } from '../lifecycle.ts';
import { formatRepository } from '../repository.ts';

export interface EventLogFilter {
  /** Only these event types; empty: all. */
  types: string[];
  pullRequest: number | null;
}

export const noFilter: EventLogFilter = { types: [], pullRequest: null };

/**
 * The event log of the current repository, newest first: the first page, then more pages
 * appended by following the API's `next` links; a filter restarts from the first page.
 */
export class EventLogModel extends Disposable {
  private readonly changed = this._register(new vscode.EventEmitter<void>());
  readonly onDidChange = this.changed.event;

  events: Event[] = [];
  repository: string | null = null;
  nextUrl: string | null = null;
  problem: Problem | null = null;
  loaded = false;
  pages = 0;
  private currentFilter: EventLogFilter = noFilter;
  private queue: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private visible = false;

  constructor(private readonly session: ApiSession) {
    super();
    this._register(session.onDidChange(() => void this.reload()));
    this._register(new vscode.Disposable(() => clearTimeout(this.timer)));
  }

  get filter(): EventLogFilter {
    return this.currentFilter;
  }

  get hasMore(): boolean {
    return this.nextUrl !== null;
  }

  /** Runs loads one after another, so pages never interleave. */
  private serial(work: () => Promise<void>): Promise<void> {
    this.queue = this.queue.then(work, work);
    return this.queue;
  }

  setFilter(filter: EventLogFilter): Promise<void> {
    this.currentFilter = { types: [...filter.types], pullRequest: filter.pullRequest };
    void vscode.commands.executeCommand(
      'setContext',
      contextKeys.eventLogFiltered,
      filter.types.length > 0 || filter.pullRequest !== null,
    );
    return this.reload();
  }

  /** The first page again (drops pages loaded with "load more"). */
  reload(): Promise<void> {
    return this.serial(async () => {
      const query = this.firstPageQuery();
      const outcome = await this.session.run((client, repo) => client.logs(repo.owner, repo.name, query));
      this.loaded = true;
      if (outcome.ok) {
        this.repository = formatRepository(outcome.repository);
        this.events = outcome.value.page.events;
        this.nextUrl = outcome.value.links.next ?? null;
        this.problem = null;
        this.pages = 1;
      } else {
        this.events = [];
        this.nextUrl = null;
        this.problem = outcome.problem;
        this.pages = 0;
      }
      this.changed.fire();
      this.schedule();
    });
  }

  /** Appends the next page (the `next` link of the last page). */
  loadMore(): Promise<void> {
    return this.serial(async () => {
      const next = this.nextUrl;
      if (!next) return;
      const outcome = await this.session.run((client, repo) =>
        client.logs(repo.owner, repo.name, { url: next }),
      );
      if (outcome.ok) {
        const seen = new Set(this.events.map((e) => e.id));
        this.events = [...this.events, ...outcome.value.page.events.filter((e) => !seen.has(e.id))];
        this.nextUrl = outcome.value.links.next ?? null;
        this.problem = null;
        this.pages++;
      } else {
        this.problem = outcome.problem;
      }
      this.changed.fire();
      this.schedule();
    });
  }

  /**
   * New events on top, what is shown stays (expanded events, pages loaded with "Load more…"):
   * the first page is fetched and its unseen events prepended; when none of it is known (more
   * than a page arrived), the log starts again from the first page.
   */
  refreshTop(): Promise<void> {
    if (!this.loaded || this.problem || this.events.length === 0) return this.reload();
    return this.serial(async () => {
      const outcome = await this.session.run((client, repo) =>
        client.logs(repo.owner, repo.name, this.firstPageQuery()),
      );
      if (!outcome.ok) {
        this.problem = outcome.problem;
        this.changed.fire();
        this.schedule();
        return;
      }
      const seen = new Set(this.events.map((e) => e.id));
      const page = outcome.value.page.events;
      const fresh = page.filter((e) => !seen.has(e.id));
      if (fresh.length === page.length && page.length > 0) {
        this.events = page;
        this.nextUrl = outcome.value.links.next ?? null;
        this.pages = 1;
      } else if (fresh.length) this.events = [...fresh, ...this.events];
      this.problem = null;
      if (fresh.length) this.changed.fire();
      this.schedule();
    });
  }

  /** Auto-refresh while visible (new events on top; loaded pages stay). */
  setVisible(visible: boolean): void {
    const was = this.visible;
    this.visible = visible;
    if (visible && !was) void (this.loaded ? this.refreshTop() : this.reload());
    else this.schedule();
  }

  private firstPageQuery(): LogsFilter {
    const pageSize = vscode.workspace
      .getConfiguration(settings.section)
      .get<number>(settings.eventLogPageSize, 25);
    const query: LogsFilter = { per_page: Math.min(100, Math.max(1, pageSize)) };
    if (this.currentFilter.types.length) query.event_type = this.currentFilter.types;
    if (this.currentFilter.pullRequest !== null) query.pull_request = this.currentFilter.pullRequest;
    return query;
  }

  private schedule(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.visible) return;
    const seconds = Math.max(
      5,
      vscode.workspace.getConfiguration(settings.section).get<number>(settings.refreshInterval, 30),
    );
    this.timer = setTimeout(() => void this.refreshTop(), seconds * 1000);
  }
}
