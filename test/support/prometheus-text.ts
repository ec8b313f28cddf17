/** One sample of Prometheus' text exposition format. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** A scrape, read: its samples, and its metric families with their declared type. */
export interface Scrape {
  samples: Sample[];
  types: Map<string, string>;
  /** The sum of the samples named `name` whose labels include `match`. */
  sum(name: string, match?: Record<string, string>): number;
  /** Whether a sample named `name` with labels including `match` exists. */
  has(name: string, match?: Record<string, string>): boolean;
}

const sampleLine = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: \d+)?$/;
const labelPair = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Parses the text format (version 0.0.4) strictly enough for tests: a line it cannot read throws. */
export function parseScrape(text: string): Scrape {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('#')) {
      const type = /^# TYPE (\S+) (\S+)$/.exec(line);
      if (type) types.set(type[1]!, type[2]!);
      continue;
    }
    const match = sampleLine.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(labelPair)) {
      labels[pair[1]!] = pair[2]!.replace(/\\"/g, '"').replace(/\\n/g, '\n').replace(/\\\\/g, '\\');
    }
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  const matching = (name: string, match: Record<string, string>) =>
    samples.filter((s) => s.name === name && Object.entries(match).every(([k, v]) => s.labels[k] === v));
  return {
    samples,
    types,
    sum: (name, match = {}) => matching(name, match).reduce((total, s) => total + s.value, 0),
    has: (name, match = {}) => matching(name, match).length > 0,
  };
}
