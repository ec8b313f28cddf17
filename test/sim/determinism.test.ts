import { describe, expect, it } from 'vitest';
import { computeMetrics } from '../../app/sim/metrics.ts';
import { TrainyardPolicy } from '../../app/sim/policies/trainyard.ts';
import { ZuulPolicy } from '../../app/sim/policies/zuul.ts';
import { RECOMMENDED_CONFIG } from '../../app/sim/recommended-config.ts';
import { buildSimulation, findScenario } from '../../app/sim/scenarios.ts';
import { simulate } from '../../app/sim/simulator.ts';

const DAY = 86_400_000;
const twoDays = (seed: number) => {
  const full = buildSimulation(findScenario('mid'), seed);
  return { ...full, horizonMs: 2 * DAY, workload: full.workload.filter((w) => w.at < 2 * DAY) };
};

describe('determinism', () => {
  it('the same seed gives identical metrics and records; another seed does not', () => {
    const run = (seed: number) =>
      simulate(twoDays(seed), new TrainyardPolicy({ config: RECOMMENDED_CONFIG, seed }));
    const first = run(7);
    const second = run(7);
    expect(computeMetrics(second)).toEqual(computeMetrics(first));
    expect(second.pullRequests).toEqual(first.pullRequests);
    expect(computeMetrics(run(8))).not.toEqual(computeMetrics(first));
    const zuul = () => computeMetrics(simulate(twoDays(7), new ZuulPolicy()));
    expect(zuul()).toEqual(zuul());
  });
});
