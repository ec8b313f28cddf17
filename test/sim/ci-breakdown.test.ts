import { describe, expect, it } from 'vitest';
import { averageBreakdowns, CiBreakdown } from '../../app/sim/ci-breakdown.ts';
import { TrainyardPolicy } from '../../app/sim/policies/trainyard.ts';
import { recommendedConfigFor } from '../../app/sim/recommended-config.ts';
import { buildSimulation, findScenario } from '../../app/sim/scenarios.ts';
import { simulate } from '../../app/sim/simulator.ts';

const DAY = 86_400_000;

describe('CI breakdown', () => {
  it('names each run by its unit’s last outcome, whether the time or the outcome came first', () => {
    const ci = new CiBreakdown();
    ci.spent('a', 'batch', 1_000);
    ci.ended('a', 'success');
    ci.ended('b', 'BATCH_AHEAD_FAILED');
    ci.spent('b', 'batch', 300);
    ci.spent('p', 'probe', 2_000);
    ci.ended('p', 'success');
    // A passed unit aborted later counts as aborted.
    ci.ended('p', 'MERGE_QUEUE_RESET');
    ci.spent('c', 'batch', 50);
    expect(ci.entries()).toEqual([
      { kind: 'probe', outcome: 'MERGE_QUEUE_RESET', runs: 1, ms: 2_000 },
      { kind: 'batch', outcome: 'success', runs: 1, ms: 1_000 },
      { kind: 'batch', outcome: 'BATCH_AHEAD_FAILED', runs: 1, ms: 300 },
      { kind: 'batch', outcome: 'unreported', runs: 1, ms: 50 },
    ]);
  });

  it('averages minutes per merged pull request over seeds, a part missing from a seed counting 0', () => {
    const averaged = averageBreakdowns([
      { entries: [{ kind: 'batch', outcome: 'success', runs: 2, ms: 40 * 60_000 }], merged: 4 },
      {
        entries: [
          { kind: 'batch', outcome: 'success', runs: 1, ms: 30 * 60_000 },
          { kind: 'probe', outcome: 'failure', runs: 1, ms: 60 * 60_000 },
        ],
        merged: 2,
      },
    ]);
    // Largest first: the probe's 30 minutes per merged PR in seed 2 only, then the batch's 10 and 15.
    expect(averaged.map((a) => [a.kind, a.outcome])).toEqual([
      ['probe', 'failure'],
      ['batch', 'success'],
    ]);
    expect(averaged[0]!.minutesPerMerged).toBeCloseTo(30 / 2, 9);
    expect(averaged[1]!.minutesPerMerged).toBeCloseTo((10 + 15) / 2, 9);
  });

  it('accounts for every runner minute of a Trainyard simulation, probes of failed batches included', () => {
    const scenario = findScenario('mid');
    const full = buildSimulation(scenario, 2);
    const spec = { ...full, horizonMs: 2 * DAY, workload: full.workload.filter((w) => w.at < 2 * DAY) };
    const policy = new TrainyardPolicy({ config: recommendedConfigFor(scenario), seed: 2 });
    const record = simulate(spec, policy);
    const entries = policy.ci.entries();
    expect(entries.reduce((sum, e) => sum + e.ms, 0)).toBe(record.ci.busyMs);
    // Runs still going at the end used no counted time yet; every other run is in the breakdown.
    const counted = entries.reduce((sum, e) => sum + e.runs, 0);
    expect(counted).toBeLessThanOrEqual(record.ci.runs);
    expect(counted).toBeGreaterThan(record.ci.runs - 10);
    const part = (kind: string, outcome: string) =>
      entries.find((e) => e.kind === kind && e.outcome === outcome);
    expect(part('batch', 'success')?.runs).toBeGreaterThan(0);
    expect(part('batch', 'CHECKS_FAILED')?.runs).toBeGreaterThan(0);
    // The recommended configuration splits a failed batch into groups (probes): a failing group
    // ends as a failed batch does.
    expect(part('probe', 'CHECKS_FAILED')?.runs).toBeGreaterThan(0);
    expect(part('probe', 'success')?.runs).toBeGreaterThan(0);
  });
});
