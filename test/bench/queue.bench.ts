/*
 * Queue benchmark: Trainyard's engine with its recommended configuration against serial,
 * GitHub-style, bors-ng-style and Zuul-style queues and two oracles, on the same simulated
 * workloads (app/sim/scenarios.ts: small, mid, monorepo, burst, flaky, slow-ci, agent-burst),
 * seeds 1–5, 6 simulated days each. Prints one table per scenario, writes
 * .bench-data/queue/results.json and one SVG per scenario (p95 time in queue against CI minutes
 * per merged PR).
 *
 *   npm run bench:queue
 *   BENCH_SEEDS=1,2 BENCH_DAYS=14 BENCH_SCENARIOS=mid,monorepo npm run bench:queue
 *   BENCH_JOBS=1 npm run bench:queue        # no parallel worker processes
 *
 * The verdict judges what users feel (app/sim/comparison.ts, app/sim/stability.ts), means over
 * the seeds, per policy:
 *   - stable: over the second half of the run, merged/h ≥ 95 % of the latency oracle's and the
 *     backlog's slope within noise — required wherever the latency oracle is stable;
 *   - p95 time in queue ≤ 2× the latency oracle's (mid, flaky, slow-ci, burst) or 3× (monorepo,
 *     agent-burst); an unstable policy's p95 is printed, marked, and not compared;
 *   - CI minutes per merged PR ≤ 1.25× the information floor (app/sim/information-floor.ts);
 *   - the base branch never broken.
 * The table's merged/h, good arrivals/h and slope are over the second half (the first fills the
 * queue from empty); p50/p95, runs and CI minutes over the whole run, as before. A missed target
 * is printed (per scenario, and for Trainyard in the summary at the end); the exit code stays 0,
 * as before: the bench measures, it does not gate. It is non-zero only when a run fails.
 *
 * 6 days: a second half of 3 whole days, so the daily profile does not bias its counts, long
 * enough for the backlog's slope (fitted to a mean over the day before each sample) to separate a
 * diverging queue from noise; and short enough for the whole default run (7 scenarios × 5
 * seeds) to stay under 5 minutes on two cores (a diverging Trainyard on the monorepo costs the
 * most: its engine state grows all run). The run times measured are in
 * docs/decisions/0025-queue-benchmark-verdict.md. "cpu s" is each policy's CPU time, summed
 * over the seeds.
 *
 * Each (scenario, seed) runs in its own process (BENCH_JOBS at a time, default 2): the engine is
 * CPU-bound and the machine has two cores.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { averageBreakdowns, type CiBreakdownEntry } from '../../app/sim/ci-breakdown.ts';
import {
  CI_TARGET,
  compareScenario,
  type PolicyResult,
  type ScenarioComparison,
  type TargetStatuses,
} from '../../app/sim/comparison.ts';
import { computeInformationFloor } from '../../app/sim/information-floor.ts';
import { computeMetrics, type QueueMetrics } from '../../app/sim/metrics.ts';
import { TrainyardPolicy } from '../../app/sim/policies/trainyard.ts';
import { OWN_PARTITIONS, RECOMMENDED_CONFIG } from '../../app/sim/recommended-config.ts';
import { createRoster } from '../../app/sim/roster.ts';
import { buildSimulation, findScenario, SCENARIOS, SIMULATED_DAYS } from '../../app/sim/scenarios.ts';
import { simulate } from '../../app/sim/simulator.ts';
import {
  measureStability,
  NOISE_SIGMAS,
  SAMPLE_MS,
  SMOOTHING_MS,
  type StabilitySample,
  THROUGHPUT_SHARE,
} from '../../app/sim/stability.ts';
import { renderTradeoffChart } from '../../app/sim/tradeoff-chart.ts';
import { envInt } from './support/env-int.ts';

const SEEDS = (process.env.BENCH_SEEDS ?? '1,2,3,4,5').split(',').map(Number);
// At least 2 days: the backlog's slope is fitted from mid-run, to a mean over the day before.
const DAYS = envInt('BENCH_DAYS', SIMULATED_DAYS, 2);
const NAMES = (process.env.BENCH_SCENARIOS ?? SCENARIOS.map((s) => s.name).join(',')).split(',');
const JOBS = envInt('BENCH_JOBS', 2, 1);
const OUT = join(dirname(fileURLToPath(import.meta.url)), '../../.bench-data/queue');

interface JobResult {
  scenario: string;
  seed: number;
  floor: number;
  runs: {
    name: string;
    kind: 'trainyard' | 'baseline' | 'oracle';
    metrics: QueueMetrics;
    stability: StabilitySample;
    /** CPU time of the run (user + system), seconds: what it costs whatever else the machine runs. */
    seconds: number;
    /** Trainyard's runner time by kind of run and outcome. */
    ci?: CiBreakdownEntry[];
  }[];
}

/** One scenario and seed, every policy: what a worker process runs. */
function runJob(name: string, seed: number): JobResult {
  const scenario = findScenario(name);
  const spec = buildSimulation(scenario, seed, DAYS);
  const runs = createRoster(scenario).map((entry) => {
    const started = process.cpuUsage();
    const policy = entry.make(seed);
    const record = simulate(spec, policy);
    const metrics = computeMetrics(record);
    const stability = measureStability(record);
    const used = process.cpuUsage(started);
    const seconds = (used.user + used.system) / 1e6;
    const ci = policy instanceof TrainyardPolicy ? policy.ci.entries() : undefined;
    return {
      name: entry.name,
      kind: entry.kind,
      metrics,
      stability,
      seconds,
      ...(ci === undefined ? {} : { ci }),
    };
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
  const load = (name: string) => {
    const { workload } = findScenario(name);
    return workload.ratePerHour + (workload.dailyDrops ?? []).reduce((sum, d) => sum + d.count, 0) / 24;
  };
  const jobs = NAMES.flatMap((name) => SEEDS.map((seed) => ({ name, seed }))).sort(
    (a, b) => load(b.name) - load(a.name),
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
const signed = (value: number, digits = 2) => `${value >= 0 ? '+' : ''}${f(value, digits)}`;

function stableCell(r: PolicyResult): string {
  const { keepsUp, backlogFlat } = r.stability;
  if (keepsUp && backlogFlat) return 'yes';
  return `no: ${[keepsUp ? [] : ['merged/h'], backlogFlat ? [] : ['backlog']].flat().join(', ')}`;
}

/** The targets a policy missed (or could not be judged on), by name. */
function missed(targets: TargetStatuses): string[] {
  return (Object.keys(targets) as (keyof TargetStatuses)[])
    .filter((k) => targets[k] === 'missed' || targets[k] === 'not compared')
    .map((k) => ({ stable: 'stable', p95: 'p95', ci: 'CI', base: 'base' })[k]);
}

function verdictCell(r: PolicyResult): string {
  if (r.kind === 'oracle') return '(bound)';
  return r.met ? 'met' : `missed: ${missed(r.targets).join(', ')}`;
}

function printTable(comparison: ScenarioComparison, seconds: Map<string, number>): void {
  const scenario = findScenario(comparison.scenario);
  const floor = comparison.informationFloor;
  console.log(`\n## ${scenario.name}: ${scenario.description} — ${DAYS} days × seeds ${SEEDS.join(',')}`);
  const header = [
    'policy',
    'merged/h',
    'good arr/h',
    'slope PR/h',
    'stable',
    'p50 min',
    'p95 min',
    'p95 ×oracle',
    'runs/PR',
    'CI min/PR',
    'CI ×floor',
    'good ejected',
    'base broken',
    'depth avg/max',
    'verdict',
    'cpu s',
  ];
  const rows = comparison.results.map((r) => [
    r.name,
    f(r.stability.mergedPerHour, 2),
    f(r.stability.goodArrivalsPerHour, 2),
    signed(r.stability.slope),
    stableCell(r),
    f(r.mean.timeInQueue.p50, 0),
    `${f(r.mean.timeInQueue.p95, 0)}${r.stability.stable ? '' : '*'}`,
    r.p95ToOracle === null ? '—' : f(r.p95ToOracle, 2),
    f(r.mean.ciRunsPerMerged, 2),
    f(r.mean.ciMinutesPerMerged),
    f(r.ciToFloor, 2),
    f(r.mean.goodEjected),
    f(r.mean.baseBreaks, 0),
    `${f(r.mean.queueDepth.mean)}/${r.mean.queueDepth.max}`,
    verdictCell(r),
    f(seconds.get(r.name) ?? 0),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const left = new Set([0, 4, 14]);
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (left.has(i) ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  console.log(line(header));
  console.log(
    `|${widths.map((w, i) => (left.has(i) ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`,
  );
  for (const row of rows) console.log(line(row));
  const bound = comparison.results[0]!.stability.slopeBound;
  console.log(
    `stable: over the second half (merged/h, good arr/h and slope are too), merged/h ≥ ${THROUGHPUT_SHARE * 100} % of the latency oracle's ` +
      `and the backlog's slope ≤ ${f(bound, 2)} PR/h (noise of a queue merging as fast as PRs arrive, ${NOISE_SIGMAS} σ, mean of ${SEEDS.length} seeds); ` +
      `* not stable: p95 shown, not compared`,
  );
  console.log(
    `targets: stable${comparison.oracleStable ? '' : ' (n/a: the latency oracle is not stable here)'}; ` +
      `p95 ≤ ${comparison.p95Target === null ? '— (no target here)' : `${comparison.p95Target}× the latency oracle's`}; ` +
      `CI ≤ ${CI_TARGET}× the information floor, ${f(floor)} CI min/PR (${f(CI_TARGET * floor)}); base never broken`,
  );
  const mine = comparison.results.find((r) => r.kind === 'trainyard');
  if (mine !== undefined) console.log(`trainyard: ${describeTargets(mine, comparison)}`);
}

function describeTargets(r: PolicyResult, comparison: ScenarioComparison): string {
  const t = r.targets;
  const p95 =
    t.p95 === 'n/a'
      ? 'p95 n/a'
      : t.p95 === 'not compared'
        ? `p95 ${f(r.mean.timeInQueue.p95, 0)} min not compared (not stable)`
        : `p95 ×${f(r.p95ToOracle!, 2)} (≤ ${comparison.p95Target}) ${t.p95}`;
  return [
    `stable ${t.stable}`,
    p95,
    `CI ×${f(r.ciToFloor, 2)} of the floor (≤ ${CI_TARGET}) ${t.ci}`,
    `base ${t.base === 'met' ? 'never broken' : 'BROKEN'}`,
  ]
    .join(' · ')
    .concat(r.met ? ' → all targets met' : ' → targets missed');
}

/** Where Trainyard's CI minutes go (what an engine change has to move): the largest parts first. */
function printBreakdown(breakdown: ReturnType<typeof averageBreakdowns>): void {
  if (breakdown.length === 0) return;
  // A failed batch's checks end with CHECKS_FAILED; other codes are aborts (docs/queue-semantics.md).
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
  console.log('# Queue benchmark');
  console.log(`Trainyard's recommended configuration: ${JSON.stringify(RECOMMENDED_CONFIG)}`);
  console.log(
    `the same on every scenario; the monorepo adds partition rules: one for each of its ${OWN_PARTITIONS} largest areas, one for the rest`,
  );
  const jobs = await runAll();
  mkdirSync(OUT, { recursive: true });
  const report: Record<string, unknown> = {};
  const summary: { scenario: string; line: string; met: boolean }[] = [];
  for (const name of NAMES) {
    const mine = jobs.filter((j) => j.scenario === name).sort((a, b) => a.seed - b.seed);
    const names = mine[0]!.runs.map((r) => ({ name: r.name, kind: r.kind }));
    const floor = mine.reduce((sum, j) => sum + j.floor, 0) / mine.length;
    const comparison = compareScenario(
      findScenario(name),
      floor,
      names.map(({ name: policy, kind }) => {
        const runs = mine.map((j) => j.runs.find((r) => r.name === policy)!);
        return {
          name: policy,
          kind,
          seeds: runs.map((r) => r.metrics),
          stability: runs.map((r) => r.stability),
        };
      }),
    );
    const seconds = new Map(
      names.map(({ name: policy }) => [
        policy,
        mine.reduce((sum, j) => sum + j.runs.find((r) => r.name === policy)!.seconds, 0),
      ]),
    );
    printTable(comparison, seconds);
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
    const trainyard = comparison.results.find((r) => r.kind === 'trainyard');
    if (trainyard !== undefined) {
      summary.push({ scenario: name, line: describeTargets(trainyard, comparison), met: trainyard.met });
    }
    report[name] = { ...comparison, trainyardCiBreakdown: breakdown };
    const svg = renderTradeoffChart(
      `${name}: p95 time in queue vs CI minutes per merged PR`,
      comparison.results.map((r) => ({
        label: r.stability.stable ? r.name : `${r.name} (not stable)`,
        ciMinutes: r.mean.ciMinutesPerMerged,
        p95Minutes: r.mean.timeInQueue.p95,
        bound: r.kind === 'oracle',
        highlight: r.kind === 'trainyard',
      })),
    );
    writeFileSync(join(OUT, `${name}.svg`), svg);
  }
  const elapsed = (performance.now() - started) / 1000;
  const cpu = jobs.reduce((sum, j) => sum + j.runs.reduce((s, r) => s + r.seconds, 0), 0);
  const definitions = {
    throughputShare: THROUGHPUT_SHARE,
    noiseSigmas: NOISE_SIGMAS,
    backlogSampleMs: SAMPLE_MS,
    backlogSmoothingMs: SMOOTHING_MS,
    slopeWindow: 'second half of the measured window',
    ciTargetToFloor: CI_TARGET,
  };
  writeFileSync(
    join(OUT, 'results.json'),
    `${JSON.stringify(
      {
        days: DAYS,
        seeds: SEEDS,
        config: RECOMMENDED_CONFIG,
        ownPartitions: OWN_PARTITIONS,
        elapsedSeconds: elapsed,
        simulationCpuSeconds: cpu,
        definitions,
        trainyard: Object.fromEntries(summary.map((s) => [s.scenario, { met: s.met, verdict: s.line }])),
        scenarios: report,
      },
      null,
      2,
    )}\n`,
  );
  console.log('\n## Verdict: Trainyard against the targets');
  for (const s of summary) console.log(`- ${s.scenario}: ${s.line}`);
  const all = summary.every((s) => s.met);
  console.log(
    all ? 'every target met' : 'targets missed (the exit code stays 0: the bench measures, it does not gate)',
  );
  console.log(
    `\nwrote ${join(OUT, 'results.json')} and one SVG per scenario; ${f(elapsed)} s, ` +
      `of which ${f(cpu)} s of CPU in the simulations (${JOBS} at a time)`,
  );
}

if (process.argv[2] === '--job') {
  process.stdout.write(JSON.stringify(runJob(process.argv[3]!, Number(process.argv[4]))));
} else {
  await main();
}
