import { describe, expect, it } from 'vitest';
import { ArrivalSignal } from '../../../app/github/loops/arrival-signal.ts';

describe('ArrivalSignal', () => {
  it('counts arrivals and wakes every waiter of the next one, once', async () => {
    const signal = new ArrivalSignal();
    const before = signal.count;
    const woken: string[] = [];
    const first = signal.next().then(() => woken.push('first'));
    const second = signal.next().then(() => woken.push('second'));
    await Promise.resolve();
    expect(woken).toEqual([]);
    signal.notify();
    await Promise.all([first, second]);
    expect(woken).toEqual(['first', 'second']);
    expect(signal.count).toBe(before + 1);
    // A wait begun after the arrival waits for the next one.
    let late = false;
    const third = signal.next().then(() => {
      late = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(late).toBe(false);
    signal.notify();
    await third;
    expect(late).toBe(true);
    expect(signal.count).toBe(before + 2);
  });
});
