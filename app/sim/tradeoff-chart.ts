/**
 * The benchmark's picture of one scenario: each policy as a point, CI minutes per merged pull
 * request across, p95 time in queue up (both on log scales, since baselines can be orders of
 * magnitude off). Lower left is better; the oracles mark what is possible. Plain SVG, no library.
 */
export interface TradeoffPoint {
  label: string;
  /** CI minutes per merged pull request. */
  ciMinutes: number;
  /** p95 time in queue, minutes. */
  p95Minutes: number;
  /** Oracles are drawn hollow: bounds, not queues. */
  bound?: boolean;
  highlight?: boolean;
}

const WIDTH = 720;
const HEIGHT = 480;
const MARGIN = { left: 70, right: 30, top: 40, bottom: 50 };

export function renderTradeoffChart(title: string, points: readonly TradeoffPoint[]): string {
  const xs = points.map((p) => Math.max(p.ciMinutes, 0.1));
  const ys = points.map((p) => Math.max(p.p95Minutes, 0.1));
  const x = logScale(Math.min(...xs), Math.max(...xs), MARGIN.left, WIDTH - MARGIN.right);
  const y = logScale(Math.min(...ys), Math.max(...ys), HEIGHT - MARGIN.bottom, MARGIN.top);
  const ticks = (scale: LogScale, axis: 'x' | 'y') =>
    scale.ticks
      .map((value) => {
        const at = scale.map(value);
        return axis === 'x'
          ? `<line x1="${at}" y1="${HEIGHT - MARGIN.bottom}" x2="${at}" y2="${MARGIN.top}" stroke="#eee"/><text x="${at}" y="${HEIGHT - MARGIN.bottom + 18}" text-anchor="middle">${value}</text>`
          : `<line x1="${MARGIN.left}" y1="${at}" x2="${WIDTH - MARGIN.right}" y2="${at}" stroke="#eee"/><text x="${MARGIN.left - 8}" y="${at + 4}" text-anchor="end">${value}</text>`;
      })
      .join('');
  const dots = points
    .map((p, i) => {
      const cx = x.map(xs[i]!).toFixed(1);
      const cy = y.map(ys[i]!).toFixed(1);
      const color = p.highlight === true ? '#d9480f' : p.bound === true ? '#555' : '#1c7ed6';
      const fill = p.bound === true ? 'none' : color;
      return `<circle cx="${cx}" cy="${cy}" r="6" fill="${fill}" stroke="${color}" stroke-width="2"/><text x="${Number(cx) + 9}" y="${Number(cy) - 8}" fill="${color}">${escapeXml(p.label)}</text>`;
    })
    .join('');
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" font-family="sans-serif" font-size="12" role="img">`,
    // A title element: what screen readers announce for the chart.
    `<title>${escapeXml(title)}</title>`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${WIDTH / 2}" y="22" text-anchor="middle" font-size="15">${escapeXml(title)}</text>`,
    ticks(x, 'x'),
    ticks(y, 'y'),
    `<text x="${WIDTH / 2}" y="${HEIGHT - 12}" text-anchor="middle">CI minutes per merged PR (log)</text>`,
    `<text transform="translate(18 ${HEIGHT / 2}) rotate(-90)" text-anchor="middle">p95 time in queue, minutes (log)</text>`,
    dots,
    '</svg>',
  ].join('\n');
}

interface LogScale {
  map(value: number): number;
  ticks: number[];
}

function logScale(min: number, max: number, from: number, to: number): LogScale {
  const lo = Math.log10(min) - 0.1;
  const hi = Math.log10(max) + 0.1;
  const span = Math.max(hi - lo, 1e-9);
  const ticks: number[] = [];
  for (let e = Math.floor(lo); e <= Math.ceil(hi); e++) {
    for (const m of [1, 2, 5]) {
      const v = m * 10 ** e;
      if (Math.log10(v) >= lo && Math.log10(v) <= hi) ticks.push(Number(v.toPrecision(3)));
    }
  }
  return { map: (value) => from + ((Math.log10(value) - lo) / span) * (to - from), ticks };
}

function escapeXml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}
