/*
 * The adaptive mode's frontier: p95 time in queue against CI minutes per merged PR, one point per
 * value of `merge_queue.queued_per_check` (the one setting that trades them), everything else as
 * recommended. Prints a table per scenario and writes .bench-data/queue/frontier-<scenario>.svg
 * beside bench:queue's charts, with the latency oracle and the information floor for scale.
 *
 *   npm run bench:queue-frontier
 *   BENCH_SCENARIOS=mid BENCH_SEEDS=1,2,3 BENCH_DAYS=6 FRONTIER=2,5,20 npm run bench:queue-frontier
 *
 * Each (scenario, seed, setting) runs in its own process, BENCH_JOBS (default 2) at a time.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { computeInformationFloor } from '../../app/sim/information-floor.ts';
import { computeMetrics } from '../../app/sim/metrics.ts';
import { OraclePolicy } from '../../app/sim/policies/oracle.ts';
import { TrainyardPolicy } from '../../app/sim/policies/trainyard.ts';
import { recommendedConfigFor } from '../../app/sim/recommended-config.ts';
import { buildSimulation, findScenario } from '../../app/sim/scenarios.ts';
import { simulate } from '../../app/sim/simulator.ts';
import { measureStability } from '../../app/sim/stability.ts';
import { renderTradeoffChart, type TradeoffPoint } from '../../app/sim/tradeoff-chart.ts';
import { envInt } from './support/env-int.ts';

const SEEDS = (process.env.BENCH_SEEDS ?? '1,2').split(',').map(Number);
const DAYS = envInt('BENCH_DAYS', 4, 2);
const NAMES = (process.env.BENCH_SCENARIOS ?? 'mid,flaky,monorepo').split(',');
const SETTINGS = (process.env.FRONTIER ?? '2,3,5,8,13,1000').split(',').map(Number);
const JOBS = envInt('BENCH_JOBS', 2, 1);
const OUT = join(dirname(fileURLToPath(import.meta.url)), '../../.bench-data/queue');

interface Point {
  scenario: string;
  seed: number;
  /** queued_per_check; 0: the latency oracle's row. */
  setting: number;
  p95: number;
  ciMinutes: number;
  floor: number;
  mergedPerHour: number;
  slope: number;
}

function runJob(name: string, seed: number, setting: number): Point {
  const scenario = findScenario(name);
  const spec = buildSimulation(scenario, seed, DAYS);
  const base = recommendedConfigFor(scenario);
  const policy =
    setting === 0
      ? new OraclePolicy('latency')
      : new TrainyardPolicy({
          config: { ...base, merge_queue: { ...base.merge_queue, queued_per_check: setting } },
          seed,
        });
  const record = simulate(spec, policy);
  const metrics = computeMetrics(record);
  const stability = measureStability(record);
  return {
    scenario: name,
    seed,
    setting,
    p95: metrics.timeInQueue.p95,
    ciMinutes: metrics.ciMinutesPerMerged,
    floor: computeInformationFloor(spec.workload, scenario.ci),
    mergedPerHour: stability.mergedPerHour,
    slope: stability.slope,
  };
}

function runInChild(name: string, seed: number, setting: number): Promise<Point> {
  const tsx = join(dirname(fileURLToPath(import.meta.url)), '../../node_modules/.bin/tsx');
  const args = [fileURLToPath(import.meta.url), '--job', name, String(seed), String(setting)];
  return new Promise((resolve, reject) => {
    const child = spawn(tsx, args, { stdio: ['ignore', 'pipe', 'inherit'], env: process.env });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`job ${name}/${seed}/${setting} exited with ${code}`));
      else resolve(JSON.parse(out) as Point);
    });
  });
}

async function runAll(): Promise<Point[]> {
  const jobs = NAMES.flatMap((name) =>
    SEEDS.flatMap((seed) => [0, ...SETTINGS].map((setting) => ({ name, seed, setting }))),
  );
  const points: Point[] = [];
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const job = jobs[next++]!;
      points.push(await runInChild(job.name, job.seed, job.setting));
    }
  };
  await Promise.all(Array.from({ length: Math.min(JOBS, jobs.length) }, worker));
  return points;
}

const mean = (values: number[]) => values.reduce((s, v) => s + v, 0) / Math.max(1, values.length);

function report(points: Point[]): void {
  mkdirSync(OUT, { recursive: true });
  const defaultSetting = 5;
  for (const name of NAMES) {
    const of = (setting: number) => points.filter((p) => p.scenario === name && p.setting === setting);
    const oracle = of(0);
    const oracleP95 = mean(oracle.map((p) => p.p95));
    const oracleMerged = mean(oracle.map((p) => p.mergedPerHour));
    const floor = mean(oracle.map((p) => p.floor));
    console.log(
      `\n## ${name} — ${DAYS} days × seeds ${SEEDS.join(',')}; latency oracle p95 ${oracleP95.toFixed(0)} min, floor ${floor.toFixed(1)} CI min/PR`,
    );
    console.log(
      '| queued_per_check | merged/h ×oracle | slope PR/h | p95 min | p95 ×oracle | CI min/PR | CI ×floor |',
    );
    console.log('|--:|--:|--:|--:|--:|--:|--:|');
    const chart: TradeoffPoint[] = [
      {
        label: 'latency oracle',
        ciMinutes: mean(oracle.map((p) => p.ciMinutes)),
        p95Minutes: oracleP95,
        bound: true,
      },
    ];
    for (const setting of SETTINGS) {
      const rows = of(setting);
      const p95 = mean(rows.map((p) => p.p95));
      const ci = mean(rows.map((p) => p.ciMinutes));
      const merged = mean(rows.map((p) => p.mergedPerHour)) / oracleMerged;
      const label = setting >= 1000 ? 'one at a time' : String(setting);
      console.log(
        `| ${label}${setting === defaultSetting ? ' (default)' : ''} | ${merged.toFixed(3)} | ${mean(rows.map((p) => p.slope)).toFixed(2)} | ${p95.toFixed(0)} | ${(p95 / oracleP95).toFixed(2)} | ${ci.toFixed(1)} | ${(ci / floor).toFixed(2)} |`,
      );
      chart.push({
        label: `per ${label}`,
        ciMinutes: ci,
        p95Minutes: p95,
        highlight: setting === defaultSetting,
      });
    }
    const file = join(OUT, `frontier-${name}.svg`);
    writeFileSync(
      file,
      renderTradeoffChart(`${name}: adaptive mode, p95 against CI per merged PR by queued_per_check`, chart),
    );
    console.log(`chart: ${file}`);
  }
}

if (process.argv[2] === '--job') {
  const [, , , name, seed, setting] = process.argv;
  process.stdout.write(JSON.stringify(runJob(name!, Number(seed), Number(setting))));
} else {
  report(await runAll());
}
