/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// Runs in the Statistics webview (a browser page, no Node): draws the charts it is sent with
// Chart.js, bundled into dist/statistics.js. Only the parts used are registered.
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
} from 'chart.js';
import type { StatisticsView } from '../statistics-panel.ts';

Chart.register(
  BarController,
  BarElement,
  CategoryScale,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
);

declare function acquireVsCodeApi(): { postMessage(message: unknown): void };
const vscode = acquireVsCodeApi();
const charts: Chart[] = [];
const palette = ['#3794ff', '#f5a623', '#d16969', '#89d185'];

function css(name: string, fallback: string): string {
  return getComputedStyle(document.body).getPropertyValue(name).trim() || fallback;
}

function label(start: string, days: number): string {
  const d = new Date(start);
  return days <= 1
    ? d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })
    : d.toLocaleDateString(undefined, {
        month: 'short',
        day: 'numeric',
        ...(days <= 7 ? { hour: '2-digit' } : {}),
      });
}

function render(view: StatisticsView): void {
  for (const c of charts.splice(0)) c.destroy();
  const grid = document.getElementById('charts')!;
  const state = document.getElementById('state')!;
  grid.replaceChildren();
  for (const b of document.querySelectorAll<HTMLButtonElement>('.periods button'))
    b.setAttribute('aria-pressed', String(Number(b.dataset.days) === view.days));
  if (view.kind === 'loading') {
    state.textContent = `Loading the last ${view.days === 1 ? 'day' : `${view.days} days`}…`;
    return;
  }
  if (view.kind === 'problem') {
    state.textContent = view.problem.message;
    vscode.postMessage({ type: 'rendered', charts: 0 });
    return;
  }
  state.textContent = `${view.repository}, last ${view.days === 1 ? 'day' : `${view.days} days`}`;
  const fg = css('--vscode-foreground', '#ccc');
  const gridColor = css('--vscode-panel-border', '#444');
  for (const spec of view.charts) {
    const box = document.createElement('section');
    box.className = 'chart';
    box.dataset.chart = spec.id;
    const h = document.createElement('h2');
    h.textContent = `${spec.title} (${spec.unit})`;
    const p = document.createElement('p');
    p.textContent = spec.summary;
    const area = document.createElement('div');
    area.className = 'box';
    const canvas = document.createElement('canvas');
    canvas.setAttribute('role', 'img');
    canvas.setAttribute('aria-label', `${spec.title}: ${spec.summary}`);
    area.append(canvas);
    box.append(h, p, area);
    grid.append(box);
    charts.push(
      new Chart(canvas, {
        type: spec.type,
        data: {
          labels: spec.type === 'line' ? spec.labels.map((l) => label(l, view.days)) : spec.labels,
          datasets: spec.series.map((s, i) => ({
            label: s.label,
            data: s.data,
            borderColor: palette[i % palette.length],
            backgroundColor: palette[i % palette.length],
            spanGaps: true,
          })),
        },
        options: {
          responsive: true,
          maintainAspectRatio: false,
          animation: false,
          plugins: { legend: { labels: { color: fg } } },
          scales: {
            x: { ticks: { color: fg }, grid: { color: gridColor } },
            y: { beginAtZero: true, ticks: { color: fg }, grid: { color: gridColor } },
          },
        },
      }),
    );
  }
  vscode.postMessage({ type: 'rendered', charts: charts.length });
}

window.addEventListener('message', (e: MessageEvent<{ type: string; view: StatisticsView }>) => {
  if (e.data?.type === 'view') render(e.data.view);
});
for (const b of document.querySelectorAll<HTMLButtonElement>('.periods button'))
  b.addEventListener('click', () => vscode.postMessage({ type: 'period', days: Number(b.dataset.days) }));
vscode.postMessage({ type: 'ready' });
