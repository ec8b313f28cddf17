import { describe, expect, it } from 'vitest';
import type { SimulationRecord } from '../../app/sim/simulator.ts';
import { computeTailParts, RunTimeline } from '../../app/sim/tail-breakdown.ts';

const MINUTE = 60_000;

/** Only what the breakdown reads of a record: the pull requests' queue times, merges and ejections. */
function recordOf(
  pullRequests: { number: number; firstQueuedAt: number; mergedAt: number | null; ejections?: number }[],
) {
  return {
    pullRequests: pullRequests.map((pr) => ({
      number: pr.number,
      hotfix: false,
      firstQueuedAt: pr.firstQueuedAt * MINUTE,
      mergedAt: pr.mergedAt === null ? null : pr.mergedAt * MINUTE,
      sessions: [],
      ejections: Array.from({ length: pr.ejections ?? 0 }, () => ({ at: 0, reason: 'flaky' })),
    })),
  } as unknown as SimulationRecord;
}

describe('computeTailParts', () => {
  it('splits a slow pull request’s time into its waits and runs, and leaves the fast ones out', () => {
    const timeline = new RunTimeline();
    const at = (m: number) => m * MINUTE;
    // #1: waits 10 min, is thrown away behind a failure, fails in its own batch, is probed, then merges.
    timeline.started(1, 'b1', 'batch', at(10));
    timeline.ended(1, 'b1', 'aborted_behind_failure', at(30));
    timeline.started(1, 'b2', 'batch', at(30));
    timeline.ended(1, 'b2', 'failed', at(60));
    timeline.started(1, 'p1', 'probe', at(60));
    timeline.ended(1, 'p1', 'passed', at(90));
    timeline.started(1, 'b3', 'batch', at(105));
    timeline.ended(1, 'b3', 'passed', at(135));
    // #2: one run, merged fast: below the p95, not counted.
    timeline.started(2, 'b9', 'batch', at(0));
    timeline.ended(2, 'b9', 'passed', at(30));
    const record = recordOf([
      { number: 1, firstQueuedAt: 0, mergedAt: 140, ejections: 1 },
      { number: 2, firstQueuedAt: 0, mergedAt: 30 },
    ]);

    const parts = computeTailParts(record, timeline);

    expect(parts).toEqual({
      pullRequests: 1,
      total: 140,
      beforeFirstRun: 10,
      abortedBehind: 20,
      failureToRetest: 45,
      bisecting: 30,
      inRuns: 60,
      otherWaits: 5,
      runs: 4,
      abortsBehind: 1,
      ownFailures: 1,
      ejections: 1,
    });
  });

  it('ignores runs of an earlier stay and ends a run still open at the merge', () => {
    const timeline = new RunTimeline();
    timeline.started(3, 'old', 'batch', 0);
    timeline.ended(3, 'old', 'failed', 5 * MINUTE);
    timeline.started(3, 'b', 'batch', 20 * MINUTE);
    const parts = computeTailParts(recordOf([{ number: 3, firstQueuedAt: 10, mergedAt: 50 }]), timeline);
    expect(parts).toMatchObject({
      pullRequests: 1,
      total: 40,
      beforeFirstRun: 10,
      inRuns: 30,
      ownFailures: 0,
      runs: 1,
    });
  });
});

describe('the Trainyard adapter’s timeline', () => {
  it('reports every run of the real engine, so that the parts add up on a simulated day', async () => {
    const { TrainyardPolicy } = await import('../../app/sim/policies/trainyard.ts');
    const { recommendedConfigFor } = await import('../../app/sim/recommended-config.ts');
    const { buildSimulation, findScenario } = await import('../../app/sim/scenarios.ts');
    const { simulate } = await import('../../app/sim/simulator.ts');
    const scenario = findScenario('flaky');
    const timeline = new RunTimeline();
    const record = simulate(
      buildSimulation(scenario, 1, 2),
      new TrainyardPolicy({ config: recommendedConfigFor(scenario), seed: 1, timeline }),
    );
    const parts = computeTailParts(record, timeline);
    expect(parts.pullRequests).toBeGreaterThan(5);
    // Every tail pull request ran at least once; the slowest were failed or thrown away on the way.
    expect(parts.runs).toBeGreaterThanOrEqual(1);
    expect(parts.ownFailures + parts.abortsBehind).toBeGreaterThan(0);
    expect(
      parts.beforeFirstRun + parts.abortedBehind + parts.failureToRetest + parts.inRuns + parts.otherWaits,
    ).toBeCloseTo(parts.total, 6);
    expect(parts.bisecting).toBeLessThanOrEqual(parts.failureToRetest);
    for (const part of [
      parts.bisecting,
      parts.beforeFirstRun,
      parts.abortedBehind,
      parts.failureToRetest,
      parts.inRuns,
    ]) {
      expect(part).toBeGreaterThanOrEqual(0);
    }
    expect(parts.otherWaits).toBeGreaterThanOrEqual(-1e-9);
  });
});
