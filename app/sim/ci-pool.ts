/**
 * CI capacity C shared by every run of a simulation: a run holds one of C runners for its
 * duration; when all are busy it waits in FIFO order. Cancelling a waiting run drops it;
 * cancelling a running one frees its runner (the minutes it used are still spent).
 */
export interface PooledRun {
  readonly durationMs: number;
  state: 'waiting' | 'running' | 'finished' | 'cancelled';
  startedAt: number | null;
  finish: () => void;
}

export interface CiUsage {
  /** Runs that got a runner. */
  runs: number;
  /** Runner time used, ms (cancelled runs count what they used). */
  busyMs: number;
  /** Of which: runs cancelled while running, and the time they had used. */
  cancelledRuns: number;
  cancelledMs: number;
  /** Time runs spent waiting for a runner, ms. */
  waitMs: number;
}

export class CiPool {
  private readonly waiting: PooledRun[] = [];
  private running = 0;
  private readonly submittedAt = new Map<PooledRun, number>();
  readonly usage: CiUsage = { runs: 0, busyMs: 0, cancelledRuns: 0, cancelledMs: 0, waitMs: 0 };

  constructor(
    /** Runners; Infinity for unlimited CI. */
    readonly capacity: number,
    private readonly clock: { now(): number; schedule(at: number, fire: () => void): void },
  ) {}

  /** Queues a run; `onFinish` fires when it has run its duration (not when cancelled). */
  submit(durationMs: number, onFinish: () => void): PooledRun {
    const run: PooledRun = { durationMs, state: 'waiting', startedAt: null, finish: onFinish };
    this.submittedAt.set(run, this.clock.now());
    this.waiting.push(run);
    this.dispatch();
    return run;
  }

  cancel(run: PooledRun): void {
    if (run.state === 'waiting') {
      run.state = 'cancelled';
      this.waiting.splice(this.waiting.indexOf(run), 1);
      this.submittedAt.delete(run);
    } else if (run.state === 'running') {
      run.state = 'cancelled';
      this.usage.busyMs += this.clock.now() - run.startedAt!;
      this.usage.cancelledRuns++;
      this.usage.cancelledMs += this.clock.now() - run.startedAt!;
      this.running--;
      this.dispatch();
    }
  }

  /** Runs queued or running now. */
  get load(): { waiting: number; running: number } {
    return { waiting: this.waiting.length, running: this.running };
  }

  private dispatch(): void {
    while (this.running < this.capacity && this.waiting.length > 0) {
      const run = this.waiting.shift()!;
      const now = this.clock.now();
      run.state = 'running';
      run.startedAt = now;
      this.usage.runs++;
      this.usage.waitMs += now - this.submittedAt.get(run)!;
      this.submittedAt.delete(run);
      this.running++;
      this.clock.schedule(now + run.durationMs, () => {
        if (run.state !== 'running') return;
        run.state = 'finished';
        this.usage.busyMs += run.durationMs;
        this.running--;
        this.dispatch();
        run.finish();
      });
    }
  }
}
