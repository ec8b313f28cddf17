/**
 * CI capacity C shared by every run of a simulation: a run holds one of C runners for its
 * duration; when all are busy it waits in FIFO order. Cancelling a waiting run drops it;
 * cancelling a running one frees its runner (the minutes it used are still spent).
 *
 * Runners are handed out once the event being handled is over (a dispatch scheduled at the
 * current time), never in the middle of a policy's reaction to it. A policy that hears a result
 * typically cancels several stale runs and submits their replacements in one go; handing out
 * each freed runner at once gave it to a stale run still waiting, which the policy cancelled a
 * moment later in the same reaction: a run counted (and its wait) for 0 ms on a runner.
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
  private dispatchScheduled = false;
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
    this.scheduleDispatch();
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
      this.scheduleDispatch();
    }
  }

  /** Runs queued or running now. */
  get load(): { waiting: number; running: number } {
    return { waiting: this.waiting.length, running: this.running };
  }

  /** Hands out free runners when the current event is over (once, however many asked). */
  private scheduleDispatch(): void {
    if (this.dispatchScheduled) return;
    this.dispatchScheduled = true;
    this.clock.schedule(this.clock.now(), () => {
      this.dispatchScheduled = false;
      this.dispatch();
    });
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
        run.finish();
        this.scheduleDispatch();
      });
    }
  }
}
