import { describe, expect, it } from 'vitest';
import { Agenda } from '../../app/sim/agenda.ts';
import { CiPool } from '../../app/sim/ci-pool.ts';

function world() {
  const agenda = new Agenda();
  let now = 0;
  const clock = { now: () => now, schedule: (at: number, fire: () => void) => agenda.schedule(at, fire) };
  const runAll = () => {
    for (let e = agenda.pop(); e !== null; e = agenda.pop()) {
      now = e.at;
      e.fire();
    }
  };
  return { clock, runAll, setNow: (t: number) => (now = t), agenda };
}

describe('CI pool', () => {
  it('runs at most C at once; the others wait in FIFO order', () => {
    const w = world();
    const pool = new CiPool(2, w.clock);
    const done: [string, number][] = [];
    for (const name of ['a', 'b', 'c']) pool.submit(10, () => done.push([name, w.clock.now()]));
    expect(pool.load).toEqual({ waiting: 1, running: 2 });
    w.runAll();
    expect(done).toEqual([
      ['a', 10],
      ['b', 10],
      ['c', 20],
    ]);
    expect(pool.usage).toMatchObject({ runs: 3, busyMs: 30, waitMs: 10, cancelledRuns: 0 });
  });

  it('a cancelled run frees its runner and counts the time it used; a waiting one costs nothing', () => {
    const w = world();
    const pool = new CiPool(1, w.clock);
    const done: string[] = [];
    const a = pool.submit(10, () => done.push('a'));
    const b = pool.submit(10, () => done.push('b'));
    const c = pool.submit(10, () => done.push('c'));
    pool.cancel(b);
    w.setNow(4);
    pool.cancel(a);
    w.runAll();
    expect(done).toEqual(['c']);
    expect(c.startedAt).toBe(4);
    expect(pool.usage).toMatchObject({ runs: 2, busyMs: 14, cancelledRuns: 1, cancelledMs: 4 });
  });

  it('fires callbacks in time order, and in scheduling order at equal times', () => {
    const agenda = new Agenda();
    const fired: string[] = [];
    agenda.schedule(5, () => fired.push('b'));
    agenda.schedule(1, () => fired.push('a'));
    agenda.schedule(5, () => fired.push('c'));
    for (let e = agenda.pop(); e !== null; e = agenda.pop()) e.fire();
    expect(fired).toEqual(['a', 'b', 'c']);
  });
});
