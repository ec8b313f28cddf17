import { describe, expect, it } from 'vitest';
import { TrainyardPolicy } from '../../app/sim/policies/trainyard.ts';
import { buildSimulation, findScenario } from '../../app/sim/scenarios.ts';
import { simulate } from '../../app/sim/simulator.ts';

const DAY = 86_400_000;

describe("Little's law", () => {
  it('time-average queue depth = arrival rate × mean time in queue, from the engine’s own gauges', () => {
    const full = buildSimulation(findScenario('small'), 5);
    // Three days of arrivals, run until the queue is empty.
    const spec = {
      ...full,
      horizonMs: 3 * DAY,
      drainMs: 2 * DAY,
      workload: full.workload.filter((w) => w.at < 3 * DAY),
    };
    const policy = new TrainyardPolicy({
      config: { queue_rules: [{ name: 'default', batch_size: { min: 1, max: 4 } }] },
      seed: 5,
    });
    const record = simulate(spec, policy);
    const sojourns = record.pullRequests.flatMap((pr) => pr.sessions.map(([enter, leave]) => leave! - enter));
    expect(sojourns.every((t) => Number.isFinite(t))).toBe(true);
    const arrivalRate = sojourns.length / record.endedAt;
    const meanSojourn = sojourns.reduce((sum, t) => sum + t, 0) / sojourns.length;
    // L = λ W: the simulator's depth (its own sessions) and the engine's action.queue.change sizes.
    const worldDepth = record.depth.area / record.endedAt;
    expect(worldDepth).toBeCloseTo(arrivalRate * meanSojourn, 9);
    const engineDepth = policy.gauge.area / record.endedAt;
    expect(engineDepth / (arrivalRate * meanSojourn)).toBeCloseTo(1, 3);
  });
});
