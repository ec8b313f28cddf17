import { describe, expect, it } from 'vitest';
import { computeZipfCumulative, createRandom, hashToUnit } from '../../app/sim/random.ts';

describe('seeded randomness', () => {
  it('gives the same stream for the same seed and another for another seed', () => {
    const draw = (seed: number) => Array.from({ length: 5 }, createRandom(seed).next);
    expect(draw(7)).toEqual(draw(7));
    expect(draw(7)).not.toEqual(draw(8));
  });

  it('draws exponentials with the asked mean and lognormals with the asked median', () => {
    const random = createRandom(1);
    const n = 20_000;
    const exps = Array.from({ length: n }, () => random.exponential(10));
    expect(exps.reduce((s, v) => s + v, 0) / n).toBeCloseTo(10, 0);
    const logs = Array.from({ length: n }, () => random.lognormal(30, 0.3)).sort((a, b) => a - b);
    expect(logs[n / 2]!).toBeGreaterThan(29);
    expect(logs[n / 2]!).toBeLessThan(31);
  });

  it('draws Zipf ranks with weight 1/(k+1)^s', () => {
    const random = createRandom(2);
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 40_000; i++) counts[random.zipf(4, 1)]!++;
    // Weights 1, 1/2, 1/3, 1/4: rank 0 is drawn twice as often as rank 1, four times as rank 3.
    expect(counts[0]! / counts[1]!).toBeCloseTo(2, 0);
    expect(counts[0]! / counts[3]!).toBeCloseTo(4, 0);
    expect(computeZipfCumulative(3, 0)).toEqual([1 / 3, 2 / 3, 1]);
  });

  it('forks independent streams by label', () => {
    const a = createRandom(3).fork('a').next();
    expect(createRandom(3).fork('a').next()).toBe(a);
    expect(createRandom(3).fork('b').next()).not.toBe(a);
  });

  it('hashes draws from what they decide, not from the order they are asked in', () => {
    const first = hashToUnit(5, 'flake', 'run-1');
    hashToUnit(5, 'flake', 'run-2');
    expect(hashToUnit(5, 'flake', 'run-1')).toBe(first);
    expect(hashToUnit(5, 'flake', 'run-1')).not.toBe(hashToUnit(6, 'flake', 'run-1'));
    // Parts are delimited: ('ab', 'c') is not ('a', 'bc'), and 1 is not '1'.
    expect(hashToUnit(5, 'ab', 'c')).not.toBe(hashToUnit(5, 'a', 'bc'));
    expect(hashToUnit(5, 1)).not.toBe(hashToUnit(5, '1'));
    const draws = Array.from({ length: 10_000 }, (_, i) => hashToUnit(9, i));
    expect(draws.filter((u) => u < 0.1).length).toBeGreaterThan(900);
    expect(draws.filter((u) => u < 0.1).length).toBeLessThan(1100);
  });
});
