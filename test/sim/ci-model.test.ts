import { describe, expect, it } from 'vitest';
import {
  type CiModel,
  decideConflict,
  decideRun,
  type PullRequestTruth,
  TrackedBase,
} from '../../app/sim/ci-model.ts';

const model: CiModel = { seed: 11, medianMs: 600_000, spread: 0, flakeRate: 0 };
const pr = (number: number, overrides: Partial<PullRequestTruth> = {}): PullRequestTruth => ({
  number,
  areas: ['a'],
  bad: false,
  conflictsWith: [],
  ...overrides,
});
const empty = new TrackedBase();

describe('CI model', () => {
  it('passes good pull requests in the median time when there is no spread and no flakiness', () => {
    expect(decideRun(model, { key: 'r1', base: empty, tested: [pr(1), pr(2)] })).toEqual({
      passed: true,
      durationMs: 600_000,
      cause: null,
      culprits: [],
    });
  });

  it('fails a run holding a bad pull request and names it', () => {
    const outcome = decideRun(model, { key: 'r1', base: empty, tested: [pr(1), pr(2, { bad: true })] });
    expect(outcome).toMatchObject({ passed: false, cause: 'bad', culprits: [2] });
  });

  it('fails a run holding both sides of a conflict and blames the later one', () => {
    const tested = [pr(1, { conflictsWith: [3] }), pr(2), pr(3, { conflictsWith: [1] })];
    expect(decideRun(model, { key: 'r', base: empty, tested })).toMatchObject({
      passed: false,
      cause: 'conflict',
      culprits: [3],
    });
    expect(decideRun(model, { key: 'r', base: empty, tested: tested.slice(0, 2) }).passed).toBe(true);
  });

  it('fails a pull request that conflicts with one already in the base', () => {
    const base = new TrackedBase();
    expect(base.merge(pr(1, { conflictsWith: [2] }))).toBe(false);
    expect(decideRun(model, { key: 'r', base, tested: [pr(2, { conflictsWith: [1] })] })).toMatchObject({
      passed: false,
      culprits: [2],
    });
  });

  it('notices a broken base, fails every run on it, and repairs it by a revert', () => {
    const base = new TrackedBase();
    expect(base.merge(pr(1, { bad: true }))).toBe(true);
    expect(base.culprits).toEqual([1]);
    expect(decideRun(model, { key: 'r', base, tested: [pr(2)] }).cause).toBe('broken_base');
    base.revert(1);
    expect(base.broken).toBe(false);
    expect(decideRun(model, { key: 'r', base, tested: [pr(2)] }).passed).toBe(true);
  });

  it('flakes with probability f, the same way for the same run key', () => {
    const flaky = { ...model, flakeRate: 0.1 };
    const outcomes = Array.from({ length: 5_000 }, (_, i) =>
      decideRun(flaky, { key: `run-${i}`, base: empty, tested: [pr(1)] }),
    );
    const flakes = outcomes.filter((o) => o.cause === 'flaky').length;
    expect(flakes).toBeGreaterThan(420);
    expect(flakes).toBeLessThan(580);
    expect(decideRun(flaky, { key: 'run-3', base: empty, tested: [pr(1)] })).toEqual(outcomes[3]);
  });

  it('spreads durations lognormally around the median', () => {
    const spread = { ...model, spread: 0.25 };
    const durations = Array.from(
      { length: 4_001 },
      (_, i) => decideRun(spread, { key: `k${i}`, base: empty, tested: [] }).durationMs,
    ).sort((a, b) => a - b);
    expect(durations[2_000]! / 600_000).toBeCloseTo(1, 1);
    expect(durations[3_600]! / 600_000).toBeGreaterThan(1.3);
  });

  it('decides conflicts only between pull requests sharing an area, symmetrically', () => {
    const a = { number: 1, areas: ['x'] };
    const b = { number: 2, areas: ['x', 'y'] };
    expect(decideConflict(1, 1, a, b)).toBe(true);
    expect(decideConflict(1, 1, a, { number: 3, areas: ['y'] })).toBe(false);
    expect(decideConflict(1, 0, a, b)).toBe(false);
    for (let n = 2; n < 50; n++) {
      const other = { number: n, areas: ['x'] };
      expect(decideConflict(4, 0.3, a, other)).toBe(decideConflict(4, 0.3, other, a));
    }
  });
});
