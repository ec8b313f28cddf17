import { describe, expect, it } from 'vitest';
import { computeMetrics } from '../../app/sim/metrics.ts';
import { BorsPolicy } from '../../app/sim/policies/bors.ts';
import { GithubPolicy } from '../../app/sim/policies/github.ts';
import { OraclePolicy } from '../../app/sim/policies/oracle.ts';
import { SerialPolicy } from '../../app/sim/policies/serial.ts';
import { TrainyardPolicy } from '../../app/sim/policies/trainyard.ts';
import { ZuulPolicy } from '../../app/sim/policies/zuul.ts';
import { RECOMMENDED_CONFIG } from '../../app/sim/recommended-config.ts';
import { buildSimulation, findScenario } from '../../app/sim/scenarios.ts';
import { simulate } from '../../app/sim/simulator.ts';

const DAY = 86_400_000;

describe('the latency oracle', () => {
  it('is never beaten on p95 time in queue beyond noise (small and mid, two seeds)', () => {
    for (const name of ['small', 'mid']) {
      for (const seed of [1, 2]) {
        const full = buildSimulation(findScenario(name), seed);
        const spec = { ...full, horizonMs: 3 * DAY, workload: full.workload.filter((w) => w.at < 3 * DAY) };
        const oracle = computeMetrics(simulate(spec, new OraclePolicy('latency'))).timeInQueue.p95;
        const others = [
          new SerialPolicy(),
          new GithubPolicy(5),
          new BorsPolicy(),
          new ZuulPolicy(),
          new OraclePolicy('ci'),
          new TrainyardPolicy({ config: RECOMMENDED_CONFIG, seed }),
        ];
        for (const policy of others) {
          const p95 = computeMetrics(simulate(spec, policy)).timeInQueue.p95;
          // Noise: lognormal CI durations (σ 0.25) drawn per run; 5 % covers it at these sizes.
          expect(p95, `${policy.name} on ${name}/${seed}`).toBeGreaterThan(oracle * 0.95);
        }
      }
    }
  });

  it('rejects bad and conflicting pull requests without CI and never breaks the base', () => {
    const full = buildSimulation(findScenario('mid'), 3);
    const spec = { ...full, horizonMs: 2 * DAY, workload: full.workload.filter((w) => w.at < 2 * DAY) };
    const record = simulate(spec, new OraclePolicy('ci'));
    const metrics = computeMetrics(record);
    expect(metrics.baseBreaks).toBe(0);
    expect(metrics.goodEjected).toBe(0);
    const bad = spec.workload.filter((w) => w.pullRequest.bad).map((w) => w.pullRequest.number);
    expect(bad.length).toBeGreaterThan(0);
    for (const n of bad) expect(record.pullRequests[n - 1]!.mergedAt).toBeNull();
  });
});
