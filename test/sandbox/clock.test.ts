import { describe, expect, it } from 'vitest';
import { ScaledClock, VirtualClock } from '../../app/sandbox/clock.ts';

describe('sandbox clocks', () => {
  it('a virtual clock runs due tasks in time order (FIFO on ties), each at its own time, including tasks they schedule', () => {
    const clock = new VirtualClock(0);
    const ran: string[] = [];
    clock.schedule(30, () => ran.push(`c@${clock.now()}`));
    clock.schedule(10, () => {
      ran.push(`a@${clock.now()}`);
      clock.schedule(15, () => ran.push(`nested@${clock.now()}`));
    });
    clock.schedule(10, () => ran.push(`b@${clock.now()}`));
    const cancel = clock.schedule(20, () => ran.push('cancelled'));
    cancel();
    clock.advance(25);
    expect(ran).toEqual(['a@10', 'b@10', 'nested@15']);
    expect(clock.now()).toBe(25);
    expect(clock.nextAt()).toBe(30);
    clock.advance(10);
    expect(ran.at(-1)).toBe('c@30');
    expect(clock.pending).toBe(0);
  });

  it('a scaled clock makes simulated minutes pass in real milliseconds', async () => {
    const clock = new ScaledClock(60_000, Date.UTC(2026, 0, 1));
    const start = clock.now();
    const fired = await new Promise<number>((resolve) =>
      clock.schedule(start + 60_000, () => resolve(clock.now())),
    );
    expect(fired - start).toBeGreaterThanOrEqual(60_000);
    // Many short waits: none fires before its simulated time (Node timers can run a millisecond early).
    for (let i = 0; i < 200; i++) {
      const at = clock.now() + 1 + (i % 3) * 30_000;
      const firedAt = await new Promise<number>((resolve) => clock.schedule(at, () => resolve(clock.now())));
      expect(firedAt).toBeGreaterThanOrEqual(at);
    }
    expect(fired - start).toBeLessThan(60_000 * 1_000); // well under a real second per simulated minute
    clock.schedule(clock.now() + 3_600_000, () => {
      throw new Error('stopped clocks run nothing');
    });
    clock.stop();
    expect(() => new ScaledClock(0)).toThrow(/positive/);
  });
});
