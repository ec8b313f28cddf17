import { describe, expect, it } from 'vitest';
import { ScaledClock, VirtualClock, WallClock } from '../../app/sandbox/clock.ts';

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

  it('a wall clock reads the machine clock, never goes back, holds at its floor and under its limit', async () => {
    const fresh = new WallClock();
    const before = Date.now();
    expect(fresh.now()).toBeGreaterThanOrEqual(before);
    expect(fresh.now()).toBeLessThanOrEqual(Date.now());
    expect(fresh.scale).toBe(1);

    // Resumed from files that may have shown a time a moment ahead: it holds there, then follows.
    const floor = Date.now() + 150;
    const resumed = new WallClock(floor);
    expect(resumed.now()).toBe(floor);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(resumed.now()).toBeGreaterThan(floor);
    expect(resumed.now()).toBeLessThanOrEqual(Date.now());

    // Held below its lease until it is renewed; a lower limit only stops it.
    const leased = new WallClock();
    leased.limitTo(Date.now() + 50);
    const held = leased.limitAt;
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(leased.now()).toBe(held);
    leased.limitTo(Date.now() + 60_000);
    expect(leased.now()).toBeGreaterThan(held);

    // Tasks fire at their wall-clock time, not before.
    const at = Date.now() + 40;
    const fired = await new Promise<number>((resolve) => fresh.schedule(at, () => resolve(Date.now())));
    expect(fired).toBeGreaterThanOrEqual(at);
    fresh.stop();

    // Against a scaled clock: 60 times faster is ahead of the wall clock within a second.
    const scaled = new ScaledClock(60);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(scaled.now() - Date.now()).toBeGreaterThan(3_000);
  });
});
