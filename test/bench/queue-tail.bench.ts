/*
 * Where the p95 goes: for the merged pull requests at or above Trainyard's p95 time in queue
 * (recommended configuration), the mean minutes each spent before its first run, in runs thrown
 * away because a batch ahead failed, from its own batch's failure to its next run in line
 * (bisection included), in its other runs, and otherwise (app/sim/tail-breakdown.ts). The
 * latency oracle's p95 is printed beside it for scale. An engine change that means to move the
 * p95 has to shorten one of these parts: run it before and after.
 *
 *   npm run bench:queue-tail
 *   BENCH_SCENARIOS=mid,flaky BENCH_SEEDS=1,2,3 BENCH_DAYS=3 npm run bench:queue-tail
 */
import { computeMetrics } from '../../app/sim/metrics.ts';
import { OraclePolicy } from '../../app/sim/policies/oracle.ts';
import { TrainyardPolicy } from '../../app/sim/policies/trainyard.ts';
import { recommendedConfigFor } from '../../app/sim/recommended-config.ts';
import { buildSimulation, findScenario, SIMULATED_DAYS } from '../../app/sim/scenarios.ts';
import { simulate } from '../../app/sim/simulator.ts';
import { computeTailParts, RunTimeline, type TailParts } from '../../app/sim/tail-breakdown.ts';
import { envInt } from './support/env-int.ts';

const SEEDS = (process.env.BENCH_SEEDS ?? '1,2,3,4,5').split(',').map(Number);
const DAYS = envInt('BENCH_DAYS', SIMULATED_DAYS, 2);
const NAMES = (process.env.BENCH_SCENARIOS ?? 'mid,flaky,burst,slow-ci,agent-burst').split(',');

const f = (value: number, digits = 0) => value.toFixed(digits);
const header = [
  'scenario',
  'p95 min',
  'oracle p95',
  'tail PRs',
  'time in queue',
  'before 1st run',
  'aborted behind',
  'failure → retest',
  'of which bisecting',
  'in runs',
  'other',
  'runs',
  'aborts behind',
  'own failures',
  'ejections',
];
const rows: string[][] = [];
const started = process.cpuUsage();
for (const name of NAMES) {
  const scenario = findScenario(name);
  const sums: TailParts[] = [];
  let p95 = 0;
  let oracle = 0;
  for (const seed of SEEDS) {
    const spec = buildSimulation(scenario, seed, DAYS);
    const timeline = new RunTimeline();
    const record = simulate(
      spec,
      new TrainyardPolicy({ config: recommendedConfigFor(scenario), seed, timeline }),
    );
    p95 += computeMetrics(record).timeInQueue.p95;
    oracle += computeMetrics(simulate(spec, new OraclePolicy('latency'))).timeInQueue.p95;
    sums.push(computeTailParts(record, timeline));
  }
  const mean = (pick: (p: TailParts) => number) => sums.reduce((s, p) => s + pick(p), 0) / sums.length;
  rows.push([
    name,
    f(p95 / SEEDS.length),
    f(oracle / SEEDS.length),
    f(mean((p) => p.pullRequests)),
    f(mean((p) => p.total)),
    f(mean((p) => p.beforeFirstRun)),
    f(mean((p) => p.abortedBehind)),
    f(mean((p) => p.failureToRetest)),
    f(mean((p) => p.bisecting)),
    f(mean((p) => p.inRuns)),
    f(mean((p) => p.otherWaits)),
    f(
      mean((p) => p.runs),
      1,
    ),
    f(
      mean((p) => p.abortsBehind),
      1,
    ),
    f(
      mean((p) => p.ownFailures),
      1,
    ),
    f(
      mean((p) => p.ejections),
      2,
    ),
  ]);
}
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
const line = (cells: string[]) =>
  `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
console.log(`# Trainyard's p95 tail, recommended configuration — ${DAYS} days × seeds ${SEEDS.join(',')}`);
console.log(
  'Mean minutes per merged pull request at or above the p95 (means over seeds); counts per such pull request.\n',
);
console.log(line(header));
console.log(`|${widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`);
for (const row of rows) console.log(line(row));
const used = process.cpuUsage(started);
console.log(`\n${f((used.user + used.system) / 1e6, 1)} s of CPU`);
