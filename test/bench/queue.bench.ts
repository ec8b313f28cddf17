/*
 * Queue efficiency benchmark (issue #8): Trainyard's engine with its recommended configuration
 * against serial, GitHub-style, bors-ng-style and Zuul-style queues and two oracles, on the same
 * simulated workloads (app/sim/scenarios.ts), several seeds each. Prints one table per scenario,
 * writes .bench-data/queue/results.json and one SVG per scenario (p95 time in queue against CI
 * minutes per merged PR).
 *
 *   npm run bench:queue
 *   BENCH_SEEDS=1,2 BENCH_DAYS=7 BENCH_SCENARIOS=mid,monorepo npm run bench:queue
 *   BENCH_JOBS=1 npm run bench:queue        # no parallel worker processes
 *
 * Each (scenario, seed) runs in its own process (BENCH_JOBS at a time, default 2): the engine is
 * CPU-bound and the machine has two cores.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { averageBreakdowns, type CiBreakdownEntry } from '../../app/sim/ci-breakdown.ts';
import { compareScenario, type ScenarioComparison } from '../../app/sim/comparison.ts';
import { computeInformationFloor } from '../../app/sim/information-floor.ts';
import { computeMetrics, type QueueMetrics } from '../../app/sim/metrics.ts';
import { TrainyardPolicy } from '../../app/sim/policies/trainyard.ts';
import { PARTITIONED_MERGE_QUEUE, RECOMMENDED_CONFIG } from '../../app/sim/recommended-config.ts';
import { createRoster } from '../../app/sim/roster.ts';
import { buildSimulation, findScenario, SCENARIOS, SIMULATED_DAYS } from '../../app/sim/scenarios.ts';
import { simulate } from '../../app/sim/simulator.ts';
import { renderTradeoffChart } from '../../app/sim/tradeoff-chart.ts';

const DAY = 86_400_000;
const SEEDS = (process.env.BENCH_SEEDS ?? '1,2,3').split(',').map(Number);
const DAYS = Number(process.env.BENCH_DAYS ?? SIMULATED_DAYS);
const NAMES = (process.env.BENCH_SCENARIOS ?? SCENARIOS.map((s) => s.name).join(',')).split(',');
const JOBS = Number(process.env.BENCH_JOBS ?? 2);
const OUT = join(dirname(fileURLToPath(import.meta.url)), '../../.bench-data/queue');
/** Scenarios where Trainyard must dominate every baseline (issue #8, target 1). */
const MUST_DOMINATE = ['mid', 'monorepo'];
/** Issue #8, target 2 (an aim): within this factor of the oracle on p95 time in queue and on CI minutes per merged PR. */
const TARGET_RATIO = 1.5;

interface JobResult {
  scenario: string;
  seed: number;
  floor: number;
  runs: {
    name: string;
    kind: 'trainyard' | 'baseline' | 'oracle';
    metrics: QueueMetrics;
    seconds: number;
    /** Trainyard's runner time by kind of run and outcome. */
    ci?: CiBreakdownEntry[];
  }[];
}

/** One scenario and seed, every policy: what a worker process runs. */
function runJob(name: string, seed: number): JobResult {
  const scenario = findScenario(name);
  const full = buildSimulation(scenario, seed);
  const spec = { ...full, horizonMs: DAYS * DAY, workload: full.workload.filter((w) => w.at < DAYS * DAY) };
  const runs = createRoster(scenario).map((entry) => {
    const started = performance.now();
    const policy = entry.make(seed);
    const metrics = computeMetrics(simulate(spec, policy));
    const seconds = (performance.now() - started) / 1000;
    const ci = policy instanceof TrainyardPolicy ? policy.ci.entries() : undefined;
    return { name: entry.name, kind: entry.kind, metrics, seconds, ...(ci === undefined ? {} : { ci }) };
  });
  return { scenario: name, seed, floor: computeInformationFloor(spec.workload, scenario.ci), runs };
}

function runInChild(name: string, seed: number): Promise<JobResult> {
  const tsx = join(dirname(fileURLToPath(import.meta.url)), '../../node_modules/.bin/tsx');
  return new Promise((resolve, reject) => {
    const child = spawn(tsx, [fileURLToPath(import.meta.url), '--job', name, String(seed)], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: process.env,
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`job ${name}/${seed} exited with ${code}`));
      else resolve(JSON.parse(out) as JobResult);
    });
  });
}

async function runAll(): Promise<JobResult[]> {
  // Heaviest first (the monorepo), so that the two processes finish together.
  const jobs = NAMES.flatMap((name) => SEEDS.map((seed) => ({ name, seed }))).sort(
    (a, b) => findScenario(b.name).workload.ratePerHour - findScenario(a.name).workload.ratePerHour,
  );
  if (JOBS <= 1) return jobs.map((job) => runJob(job.name, job.seed));
  const results: JobResult[] = [];
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const job = jobs[next++]!;
      results.push(await runInChild(job.name, job.seed));
    }
  };
  await Promise.all(Array.from({ length: Math.min(JOBS, jobs.length) }, worker));
  return results;
}

const f = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : '—');

function printTable(comparison: ScenarioComparison, floor: number, seconds: Map<string, number>): void {
  const scenario = findScenario(comparison.scenario);
  console.log(`\n## ${scenario.name}: ${scenario.description} — ${DAYS} days × seeds ${SEEDS.join(',')}`);
  const header = [
    'policy',
    'merged/h',
    'p50 min',
    'p95 min',
    'p99 min',
    'runs/PR',
    'CI min/PR',
    'good ejected',
    'base broken',
    'depth avg/max',
    'p95 ×oracle',
    'CI ×oracle',
    'sim s',
  ];
  const rows = comparison.results.map((r) => [
    r.name,
    f(r.mean.mergedPerHour, 2),
    f(r.mean.timeInQueue.p50, 0),
    f(r.mean.timeInQueue.p95, 0),
    f(r.mean.timeInQueue.p99, 0),
    f(r.mean.ciRunsPerMerged, 2),
    f(r.mean.ciMinutesPerMerged),
    f(r.mean.goodEjected),
    f(r.mean.baseBreaks, 0),
    `${f(r.mean.queueDepth.mean)}/${r.mean.queueDepth.max}`,
    f(r.p95ToOracle, 2),
    f(r.ciToOracle, 2),
    f(seconds.get(r.name) ?? 0),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`);
  for (const row of rows) console.log(line(row));
  console.log(
    `information floor (any queue that does not know the culprits): ${f(floor)} CI min/PR; ×oracle columns: p95 vs oracle (latency), CI vs oracle (ci)`,
  );
  const verdict = comparison.notDominated.length === 0 ? 'dominates every baseline' : 'does NOT dominate';
  console.log(
    `trainyard ${verdict}${comparison.notDominated.length > 0 ? `: ${comparison.notDominated.join(', ')}` : ''}` +
      (comparison.dominates.length > 0 ? ` (dominates ${comparison.dominates.join(', ')})` : ''),
  );
  const mine = comparison.results.find((r) => r.kind === 'trainyard');
  if (mine !== undefined) {
    const within = (ratio: number) => (ratio <= TARGET_RATIO ? 'met' : 'not met');
    console.log(
      `target 2 (within ${TARGET_RATIO}× of the oracles): p95 ×${f(mine.p95ToOracle, 2)} ${within(mine.p95ToOracle)}, ` +
        `CI ×${f(mine.ciToOracle, 2)} ${within(mine.ciToOracle)}`,
    );
  }
}

/** Where Trainyard's CI minutes go (what an engine change has to move): the largest parts first. */
function printBreakdown(breakdown: ReturnType<typeof averageBreakdowns>): void {
  if (breakdown.length === 0) return;
  // A failed batch's checks end with CHECKS_FAILED; other codes are aborts (QUEUE-SEMANTICS.md).
  const label = (outcome: string) =>
    outcome === 'success'
      ? 'passed'
      : outcome === 'failure' || outcome === 'CHECKS_FAILED'
        ? 'failed'
        : outcome === 'unreported'
          ? 'not ended'
          : `aborted (${outcome.toLowerCase().replaceAll('_', ' ')})`;
  const parts = breakdown
    .filter((b) => b.minutesPerMerged >= 0.05)
    .map((b) => `${b.kind}, ${label(b.outcome)}: ${f(b.minutesPerMerged)}`);
  console.log(`trainyard's CI min per merged PR by kind of run and how it ended: ${parts.join(' · ')}`);
}

async function main(): Promise<void> {
  const started = performance.now();
  console.log('# Queue efficiency benchmark');
  console.log(`Trainyard's recommended configuration: ${JSON.stringify(RECOMMENDED_CONFIG)}`);
  console.log(
    `with partitions (monorepo, one per large area): merge_queue ${JSON.stringify(PARTITIONED_MERGE_QUEUE)}`,
  );
  const jobs = await runAll();
  mkdirSync(OUT, { recursive: true });
  const report: Record<string, unknown> = {};
  let ok = true;
  for (const name of NAMES) {
    const mine = jobs.filter((j) => j.scenario === name).sort((a, b) => a.seed - b.seed);
    const names = mine[0]!.runs.map((r) => ({ name: r.name, kind: r.kind }));
    const comparison = compareScenario(
      name,
      names.map(({ name: policy, kind }) => ({
        name: policy,
        kind,
        seeds: mine.map((j) => j.runs.find((r) => r.name === policy)!.metrics),
      })),
    );
    const floor = mine.reduce((sum, j) => sum + j.floor, 0) / mine.length;
    const seconds = new Map(
      names.map(({ name: policy }) => [
        policy,
        mine.reduce((sum, j) => sum + j.runs.find((r) => r.name === policy)!.seconds, 0),
      ]),
    );
    printTable(comparison, floor, seconds);
    const breakdown = averageBreakdowns(
      mine.flatMap((j) => {
        const run = j.runs.find((r) => r.kind === 'trainyard');
        return run?.ci === undefined ? [] : [{ entries: run.ci, merged: run.metrics.merged }];
      }),
    );
    printBreakdown(breakdown);
    for (const r of comparison.results) {
      if (r.kind !== 'oracle' && r.mean.baseBreaks > 0) console.log(`!! ${r.name} broke the base`);
    }
    if (MUST_DOMINATE.includes(name) && comparison.notDominated.length > 0) ok = false;
    report[name] = { ...comparison, informationFloor: floor, trainyardCiBreakdown: breakdown };
    const svg = renderTradeoffChart(
      `${name}: p95 time in queue vs CI minutes per merged PR`,
      comparison.results.map((r) => ({
        label: r.name,
        ciMinutes: r.mean.ciMinutesPerMerged,
        p95Minutes: r.mean.timeInQueue.p95,
        bound: r.kind === 'oracle',
        highlight: r.kind === 'trainyard',
      })),
    );
    writeFileSync(join(OUT, `${name}.svg`), svg);
  }
  const elapsed = (performance.now() - started) / 1000;
  writeFileSync(
    join(OUT, 'results.json'),
    `${JSON.stringify({ days: DAYS, seeds: SEEDS, config: RECOMMENDED_CONFIG, partitionedMergeQueue: PARTITIONED_MERGE_QUEUE, elapsedSeconds: elapsed, scenarios: report }, null, 2)}\n`,
  );
  console.log(`\nwrote ${join(OUT, 'results.json')} and one SVG per scenario; ${f(elapsed)} s`);
  if (!ok) console.log('target 1 (Trainyard dominates every baseline on mid and monorepo) is NOT met');
}

if (process.argv[2] === '--job') {
  process.stdout.write(JSON.stringify(runJob(process.argv[3]!, Number(process.argv[4]))));
} else {
  await main();
}
