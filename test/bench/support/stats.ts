/** Latency summary of one series of timed runs, in milliseconds. */
export interface Summary {
  n: number;
  p50: number;
  p99: number;
  mean: number;
  min: number;
  max: number;
}

/** Nearest-rank percentile of sorted samples (p99 of 200 is the 198th smallest). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export function summarize(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  const round = (x: number) => Math.round(x * 1000) / 1000;
  return {
    n: sorted.length,
    p50: round(percentile(sorted, 50)),
    p99: round(percentile(sorted, 99)),
    mean: round(sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length)),
    min: round(sorted[0] ?? Number.NaN),
    max: round(sorted.at(-1) ?? Number.NaN),
  };
}

/**
 * Runs `fn` `warmup` times untimed, then `runs` times timed, one after another; `afterWarmup`
 * runs in between (to reset other recorders).
 */
export async function timeRuns(
  runs: number,
  warmup: number,
  fn: () => Promise<unknown>,
  afterWarmup?: () => void,
): Promise<Summary> {
  for (let i = 0; i < warmup; i++) await fn();
  afterWarmup?.();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn();
    samples.push(performance.now() - start);
  }
  return summarize(samples);
}

/** A plain-text table; the first `leftColumns` columns are left-aligned, the others right-aligned. */
export function table(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  leftColumns = 1,
): string {
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => (r[c] ?? '').length)));
  const fmt = (cells: readonly string[]) =>
    cells
      .map((cell, c) => (c < leftColumns ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!)))
      .join(' | ');
  return [fmt(header), widths.map((w) => '-'.repeat(w)).join('-|-'), ...rows.map(fmt)].join('\n');
}

export const ms = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : '–');
export const ratio = (x: number) => (Number.isFinite(x) ? `${x.toFixed(2)}×` : '–');
export const int = (x: number) => Math.round(x).toLocaleString('en');
