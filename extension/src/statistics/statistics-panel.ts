import * as vscode from 'vscode';
import type { ApiSession, Problem } from '../api-session.ts';
import { Disposable } from '../lifecycle.ts';
import { formatRepository } from '../repository.ts';
import {
  type ChartSpec,
  type PeriodDays,
  periods,
  type StatisticsAnswers,
  statisticsCharts,
} from './statistics-charts.ts';

/** What the webview was last sent: for tests, which read what a person sees. */
export type StatisticsView =
  | { kind: 'loading'; days: PeriodDays }
  | { kind: 'charts'; days: PeriodDays; repository: string; charts: ChartSpec[] }
  | { kind: 'problem'; days: PeriodDays; problem: Problem };

function nonce(): string {
  const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from({ length: 32 }, () => chars[Math.floor(Math.random() * chars.length)]).join('');
}

/**
 * Statistics: a webview with charts over 1, 7 or 30 days, from the API's statistics. The chart
 * library is bundled in dist/statistics.js (nothing from a CDN); the content security policy lets
 * the page run only that script and load nothing else.
 */
export class StatisticsPanel extends Disposable {
  static current: StatisticsPanel | undefined;
  readonly panel: vscode.WebviewPanel;
  view: StatisticsView = { kind: 'loading', days: 7 };
  private readonly rendered = this._register(new vscode.EventEmitter<StatisticsView>());
  /** Fires once the webview has drawn what it was sent (it answers with the chart count). */
  readonly onDidRender = this.rendered.event;
  drawnCharts = 0;

  static show(extensionUri: vscode.Uri, session: ApiSession, days: PeriodDays = 7): StatisticsPanel {
    if (StatisticsPanel.current) {
      StatisticsPanel.current.panel.reveal();
      void StatisticsPanel.current.load(days);
      return StatisticsPanel.current;
    }
    StatisticsPanel.current = new StatisticsPanel(extensionUri, session, days);
    return StatisticsPanel.current;
  }

  private constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly session: ApiSession,
    days: PeriodDays,
  ) {
    super();
    const dist = vscode.Uri.joinPath(extensionUri, 'dist');
    this.panel = vscode.window.createWebviewPanel(
      'trainyard.statistics',
      'Trainyard statistics',
      vscode.ViewColumn.Active,
      {
        enableScripts: true,
        localResourceRoots: [dist],
      },
    );
    this._register(this.panel);
    this._register(
      this.panel.onDidDispose(() => {
        if (StatisticsPanel.current === this) StatisticsPanel.current = undefined;
        this.dispose();
      }),
    );
    this._register(
      this.panel.webview.onDidReceiveMessage((m: { type?: string; days?: number; charts?: number }) => {
        if (m.type === 'period' && periods.includes(m.days as PeriodDays))
          void this.load(m.days as PeriodDays);
        if (m.type === 'ready') this.post();
        if (m.type === 'rendered') {
          this.drawnCharts = Number(m.charts ?? 0);
          this.rendered.fire(this.view);
        }
      }),
    );
    this.panel.webview.html = this.html();
    void this.load(days);
  }

  private html(): string {
    const webview = this.panel.webview;
    const script = webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'dist', 'statistics.js'));
    const n = nonce();
    const csp = ["default-src 'none'", `script-src 'nonce-${n}'`, `style-src 'nonce-${n}'`].join('; ');
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>Trainyard statistics</title>
<style nonce="${n}">
body { font-family: var(--vscode-font-family); color: var(--vscode-foreground); padding: 0 16px; }
.periods button { margin-right: 4px; background: var(--vscode-button-secondaryBackground); color: var(--vscode-button-secondaryForeground); border: none; padding: 4px 10px; cursor: pointer; }
.periods button[aria-pressed="true"] { background: var(--vscode-button-background); color: var(--vscode-button-foreground); }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(360px, 1fr)); gap: 16px; }
.chart { border: 1px solid var(--vscode-panel-border); padding: 8px; }
.chart h2 { font-size: 1.05em; margin: 0 0 2px; }
.chart p { margin: 0 0 6px; opacity: 0.8; font-size: 0.9em; }
.chart .box { position: relative; height: 200px; }
</style>
</head>
<body>
<h1 id="title">Merge queue statistics</h1>
<div class="periods" role="group" aria-label="Period">
  <button data-days="1">1 day</button><button data-days="7">7 days</button><button data-days="30">30 days</button>
</div>
<p id="state" role="status">Loading…</p>
<div class="grid" id="charts"></div>
<script nonce="${n}" src="${script}"></script>
</body>
</html>`;
  }

  /** Fetches the charted statistics for the last `days` days and sends them to the webview. */
  async load(days: PeriodDays): Promise<void> {
    this.view = { kind: 'loading', days };
    this.post();
    const end = new Date();
    const query = {
      start_at: new Date(end.getTime() - days * 86_400_000).toISOString(),
      end_at: end.toISOString(),
    };
    const outcome = await this.session.run(async (client, r): Promise<StatisticsAnswers> => {
      const get = <E extends keyof StatisticsAnswers>(name: E) => client.stats(r.owner, r.name, name, query);
      const [
        total_queue_time,
        queue_size,
        failure_rate,
        batch_size,
        average_ci_runtime,
        queues_pr_exit_reasons,
        time_to_merge,
      ] = await Promise.all([
        get('total_queue_time'),
        get('queue_size'),
        get('failure_rate'),
        get('batch_size'),
        get('average_ci_runtime'),
        get('queues_pr_exit_reasons'),
        client.stats(r.owner, r.name, 'time_to_merge'),
      ]);
      return {
        total_queue_time,
        queue_size,
        failure_rate,
        batch_size,
        average_ci_runtime,
        queues_pr_exit_reasons,
        time_to_merge,
      };
    });
    if (this.view.days !== days) return; // another period was asked for meanwhile
    this.view = outcome.ok
      ? {
          kind: 'charts',
          days,
          repository: formatRepository(outcome.repository),
          charts: statisticsCharts(outcome.value),
        }
      : { kind: 'problem', days, problem: outcome.problem };
    this.post();
  }

  private post(): void {
    void this.panel.webview.postMessage({ type: 'view', view: this.view });
  }
}
