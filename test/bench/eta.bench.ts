import { type EtaCalibration, EtaRecorder, measureEtaCalibration } from '../../app/sim/eta-calibration.ts';
import { TrainyardPolicy } from '../../app/sim/policies/trainyard.ts';
import { recommendedConfigFor } from '../../app/sim/recommended-config.ts';
import { buildSimulation, findScenario } from '../../app/sim/scenarios.ts';
import { simulate } from '../../app/sim/simulator.ts';

/*
 * Calibration of the merge estimates (issue #17): in the simulator, each pull request's p50 and
 * p90 as the engine gives them when it enters the queue (the status's estimated_merge_at and
 * estimated_merge_at_p90), against when it merged. Target: 85–95 % merged by their p90.
 *
 *   npm run bench:eta
 *   BENCH_SEEDS=1,2,3 BENCH_DAYS=3 BENCH_SCENARIOS=mid,monorepo npm run bench:eta
 */

const SCENARIOS = (process.env.BENCH_SCENARIOS ?? 'mid,monorepo').split(',');
const SEEDS = (process.env.BENCH_SEEDS ?? '1,2').split(',').map(Number);
const DAYS = Number(process.env.BENCH_DAYS ?? 2);

const pct = (share: number) => `${(share * 100).toFixed(1)} %`;

function run(name: string, seed: number): EtaCalibration & { seconds: number } {
  const scenario = findScenario(name);
  const spec = buildSimulation(scenario, seed, DAYS);
  const etas = new EtaRecorder();
  const started = process.cpuUsage();
  const record = simulate(spec, new TrainyardPolicy({ config: recommendedConfigFor(scenario), seed, etas }));
  const used = process.cpuUsage(started);
  return { ...measureEtaCalibration(record, etas.estimates), seconds: (used.user + used.system) / 1e6 };
}

console.log(
  `ETA calibration: ${DAYS} simulated days, seeds ${SEEDS.join(', ')} (target: 85–95 % merged by their p90)\n`,
);
console.log(
  '| scenario | seed | merged (with estimate) | without estimate | merged by p50 | merged by p90 | median (merge − entry) / (p90 − entry) | CPU s |',
);
console.log('|---|--:|--:|--:|--:|--:|--:|--:|');
for (const name of SCENARIOS) {
  const all: EtaCalibration[] = [];
  for (const seed of SEEDS) {
    const result = run(name, seed);
    all.push(result);
    console.log(
      `| ${name} | ${seed} | ${result.merged} | ${result.withoutEstimate} | ${pct(result.byP50)} | ${pct(result.byP90)} | ${result.medianP90Ratio.toFixed(2)} | ${result.seconds.toFixed(1)} |`,
    );
  }
  const merged = all.reduce((sum, r) => sum + r.merged, 0);
  const share = (key: 'byP50' | 'byP90') =>
    all.reduce((sum, r) => sum + r[key] * r.merged, 0) / Math.max(1, merged);
  console.log(
    `| **${name}** | all | ${merged} | ${all.reduce((s, r) => s + r.withoutEstimate, 0)} | ${pct(share('byP50'))} | **${pct(share('byP90'))}** | | |`,
  );
}
