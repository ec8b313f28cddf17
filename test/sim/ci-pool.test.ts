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
  /** Fires what is due now (the pool's dispatch of the current instant). */
  const runDue = () => {
    while (agenda.peek() !== null && agenda.peek()! <= now) agenda.pop()!.fire();
  };
  return { clock, runAll, runDue, setNow: (t: number) => (now = t), agenda };
}

describe('CI pool', () => {
  it('runs at most C at once; the others wait in FIFO order', () => {
    const w = world();
    const pool = new CiPool(2, w.clock);
    const done: [string, number][] = [];
    for (const name of ['a', 'b', 'c']) pool.submit(10, () => done.push([name, w.clock.now()]));
    // Handed out when the current event is over.
    expect(pool.load).toEqual({ waiting: 3, running: 0 });
    w.runDue();
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
    w.runDue();
    w.setNow(4);
    pool.cancel(a);
    w.runAll();
    expect(done).toEqual(['c']);
    expect(c.startedAt).toBe(4);
    expect(pool.usage).toMatchObject({ runs: 2, busyMs: 14, cancelledRuns: 1, cancelledMs: 4 });
  });

  it('a runner freed in the middle of a reaction is not handed to a run the reaction then cancels', () => {
    const w = world();
    const pool = new CiPool(1, w.clock);
    const done: string[] = [];
    // A speculative pipeline on one runner: a runs, b (built on a) waits. At 4, the policy learns
    // that both are stale (something ahead failed): it cancels a, then b, and submits c.
    const a = pool.submit(10, () => done.push('a'));
    const b = pool.submit(10, () => done.push('b'));
    w.agenda.schedule(4, () => {
      pool.cancel(a);
      pool.cancel(b);
      pool.submit(10, () => done.push('c'));
    });
    w.runAll();
    expect(done).toEqual(['c']);
    expect(b.startedAt).toBeNull();
    expect(pool.usage).toMatchObject({ runs: 2, busyMs: 14, cancelledRuns: 1, cancelledMs: 4, waitMs: 0 });
  });

  it('the policy hears a result before the freed runner is handed out: a waiting run it cancels then never ran', () => {
    const w = world();
    const pool = new CiPool(1, w.clock);
    // A speculative pipeline on one runner: b is built on top of a. a fails, so b is stale: the
    // policy cancels it and submits c instead. b must not get a's runner first.
    const done: string[] = [];
    const b = { run: null as ReturnType<CiPool['submit']> | null };
    pool.submit(10, () => {
      done.push('a');
      pool.cancel(b.run!);
      pool.submit(10, () => done.push('c'));
    });
    b.run = pool.submit(10, () => done.push('b'));
    w.runAll();
    expect(done).toEqual(['a', 'c']);
    expect(b.run.startedAt).toBeNull();
    expect(pool.usage).toMatchObject({ runs: 2, busyMs: 20, cancelledRuns: 0, cancelledMs: 0 });
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
