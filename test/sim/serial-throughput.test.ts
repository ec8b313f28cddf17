import { describe, expect, it } from 'vitest';
import { computeMetrics } from '../../app/sim/metrics.ts';
import { SerialPolicy } from '../../app/sim/policies/serial.ts';
import { simulate } from '../../app/sim/simulator.ts';
import { fixedSimulation } from './support/fixed-workload.ts';

describe('serial queue', () => {
  it('with p = f = 0 and a backlog, merges one pull request per CI run: throughput 1/T', () => {
    // 200 pull requests queued over the first hour; T = 15 min; measured over 24 hours.
    const arrivals = Array.from({ length: 200 }, (_, i) => (i * 60) / 200);
    const spec = fixedSimulation({ arrivals, ciMinutes: 15, horizonMinutes: 24 * 60 });
    const metrics = computeMetrics(simulate(spec, new SerialPolicy()));
    expect(metrics.mergedPerHour).toBeCloseTo(4, 1);
    // One run per merge (the run cut by the end of the simulation aside).
    expect(metrics.ciRunsPerMerged).toBeCloseTo(1, 1);
    expect(metrics.ciMinutesPerMerged).toBeCloseTo(15, 0);
  });
});
