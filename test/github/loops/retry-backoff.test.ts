import { describe, expect, it } from 'vitest';
import { computeRetryDelay } from '../../../app/github/loops/retry-backoff.ts';

describe('computeRetryDelay', () => {
  it('doubles from one second, between half and all of it', () => {
    for (const [attempts, ceiling] of [
      [1, 1_000],
      [2, 2_000],
      [3, 4_000],
      [8, 128_000],
    ] as const) {
      expect(computeRetryDelay(attempts, () => 0)).toBe(ceiling / 2);
      expect(computeRetryDelay(attempts, () => 0.999_999)).toBe(ceiling);
    }
  });

  it('stops growing at five minutes, however many attempts', () => {
    for (const attempts of [10, 20, 60, 1_000]) {
      expect(computeRetryDelay(attempts, () => 0.999_999)).toBe(300_000);
      expect(computeRetryDelay(attempts, () => 0)).toBe(150_000);
    }
  });

  it('takes its bounds from the options', () => {
    expect(computeRetryDelay(3, () => 0.5, { baseMs: 100, maxMs: 250 })).toBe(188);
  });
});
