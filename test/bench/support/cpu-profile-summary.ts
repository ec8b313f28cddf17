/*
 * Summarizes a V8 CPU profile (.cpuprofile, as `BENCH_CPU_PROFILE` of bench:webhooks writes it):
 * where the busy time went, by area (a package of node_modules, a folder of app/, Node's own
 * code, the garbage collector) and by function, self and inclusive. With a count of units of
 * work (`--per 3000`), each figure is also given in ms per unit.
 *
 *   tsx test/bench/support/cpu-profile-summary.ts FILE.cpuprofile [--per N] [--top 25]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Where a frame's code lives: `pg`, `app/store`, `node`, or V8's own pseudo-frames. */
function areaOf(frame: ProfileNode['callFrame']): string {
  const { url, functionName } = frame;
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  const own = /\/((?:app|shared|test)\/[^/]+)/.exec(url);
  return own ? own[1]!.replace(/\.ts$/, '') : url;
}

function frameName(frame: ProfileNode['callFrame']): string {
  const file = frame.url.replace(/^.*\/(node_modules\/|app\/|shared\/|test\/)/, '$1');
  return `${frame.functionName || '(anonymous)'} ${file}${file ? `:${frame.lineNumber + 1}` : ''}`;
}

export function summarizeProfile(profile: Profile, top: number) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const areas = new Map<string, number>();
  let idle = 0;
  let total = 0;
  const add = (map: Map<string, number>, key: string, us: number) => map.set(key, (map.get(key) ?? 0) + us);
  profile.samples.forEach((id, i) => {
    // A sample stands for the time until the next one.
    const us = profile.timeDeltas[i + 1] ?? 0;
    const node = byId.get(id)!;
    total += us;
    if (node.callFrame.functionName === '(idle)') {
      idle += us;
      return;
    }
    add(self, frameName(node.callFrame), us);
    add(areas, areaOf(node.callFrame), us);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const name = frameName(byId.get(at)!.callFrame);
      if (seen.has(name)) continue;
      seen.add(name);
      add(inclusive, name, us);
    }
  });
  const ranked = (map: Map<string, number>) =>
    [...map]
      .filter(([name]) => name !== '(root) ')
      .sort((a, b) => b[1] - a[1])
      .slice(0, top);
  return {
    wallMs: total / 1000,
    busyMs: (total - idle) / 1000,
    areas: ranked(areas),
    self: ranked(self),
    inclusive: ranked(inclusive),
  };
}

function main(): void {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { per: { type: 'string' }, top: { type: 'string', default: '25' } },
  });
  const file = positionals[0];
  if (file === undefined)
    throw new Error('usage: cpu-profile-summary.ts FILE.cpuprofile [--per N] [--top N]');
  const per = values.per === undefined ? null : Number(values.per);
  const summary = summarizeProfile(JSON.parse(readFileSync(file, 'utf8')) as Profile, Number(values.top));
  const ms = (us: number) => {
    const value = us / 1000;
    const share = `${((100 * value) / summary.busyMs).toFixed(1).padStart(5)} %`;
    return `${value.toFixed(0).padStart(7)} ms ${share}${per ? `  ${(value / per).toFixed(3)} ms/unit` : ''}`;
  };
  const out: string[] = [
    `sampled ${summary.wallMs.toFixed(0)} ms, busy ${summary.busyMs.toFixed(0)} ms` +
      (per ? ` (${(summary.busyMs / per).toFixed(3)} ms per unit of ${per})` : ''),
  ];
  for (const [title, rows] of [
    ['by area (self time)', summary.areas],
    ['by function, self', summary.self],
    ['by function, inclusive', summary.inclusive],
  ] as const) {
    out.push('', title);
    for (const [name, us] of rows) out.push(`${ms(us)}  ${name}`);
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

main();
