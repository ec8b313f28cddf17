/**
 * The sandbox's notion of time: timestamps of everything it records, and when simulated CI
 * finishes. Tests drive a VirtualClock by hand; the demo runs a ScaledClock where minutes
 * pass in seconds.
 */
export interface Clock {
  /** Milliseconds since the epoch, in the clock's time. */
  now(): number;
  /** Runs `task` once the clock reaches `at`; the returned function cancels it. */
  schedule(at: number, task: () => void): () => void;
}

interface Timer {
  at: number;
  seq: number;
  task: () => void;
}

/** Time moves only when told to; due tasks run in time order (FIFO for equal times). */
export class VirtualClock implements Clock {
  private current: number;
  private seq = 0;
  private timers: Timer[] = [];

  constructor(start: number | Date = Date.UTC(2026, 10, 2, 9, 0, 0)) {
    this.current = typeof start === 'number' ? start : start.getTime();
  }

  now(): number {
    return this.current;
  }

  schedule(at: number, task: () => void): () => void {
    const timer = { at, seq: this.seq++, task };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }

  /** When the next task is due, or null when none is scheduled. */
  nextAt(): number | null {
    return this.timers.reduce<number | null>((min, t) => (min === null || t.at < min ? t.at : min), null);
  }

  get pending(): number {
    return this.timers.length;
  }

  /** Moves time forward by `ms`, running every task that falls due on the way, at its own time. */
  advance(ms: number): void {
    this.advanceTo(this.current + ms);
  }

  advanceTo(target: number): void {
    for (;;) {
      const due = this.timers.filter((t) => t.at <= target).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.current = Math.max(this.current, due.at);
      due.task();
    }
    this.current = Math.max(this.current, target);
  }
}

/**
 * Wall-clock time sped up by `scale` (60: a simulated minute per real second). Time starts at
 * `start` (default: now). With a limit (limitTo), time stops there until the limit is raised: the
 * sandbox keeps its limit on disk ahead of time, so that after a crash the clock resumes past
 * anything anyone read from it and never goes back. `npm start` runs a WallClock (below); tests
 * run faster ones.
 */
export class ScaledClock implements Clock {
  protected readonly realStart = Date.now();
  protected readonly start: number;
  private readonly handles = new Set<ReturnType<typeof setTimeout>>();
  private limit = Number.POSITIVE_INFINITY;
  private last = Number.NEGATIVE_INFINITY;

  constructor(
    readonly scale: number,
    start?: number,
  ) {
    if (!(scale > 0)) throw new Error('the time scale must be positive');
    this.start = start ?? this.realStart;
  }

  now(): number {
    // Never back, whatever the machine's clock does.
    this.last = Math.max(this.last, Math.min(this.reading(), this.limit));
    return this.last;
  }

  /** The time before the limit. */
  protected reading(): number {
    return this.start + (Date.now() - this.realStart) * this.scale;
  }

  /** now() goes no further than `at` (it never goes back: a lower limit only stops it). */
  limitTo(at: number): void {
    this.limit = Math.max(at, this.now());
  }

  /** How far now() may go (Infinity without a limit). */
  get limitAt(): number {
    return this.limit;
  }

  schedule(at: number, task: () => void): () => void {
    let handle: ReturnType<typeof setTimeout>;
    // Node's timers run on the event loop's cached monotonic time, which can be ahead of
    // Date.now() by a millisecond: a task that fires early waits for the rest, so it never
    // sees now() before its own time.
    const arm = () => {
      handle = setTimeout(
        () => {
          this.handles.delete(handle);
          if (this.now() < at) arm();
          else task();
        },
        Math.max(0, Math.ceil((at - this.now()) / this.scale)),
      );
      this.handles.add(handle);
    };
    arm();
    return () => {
      clearTimeout(handle);
      this.handles.delete(handle);
    };
  }

  /** Cancels every scheduled task (on shutdown). */
  stop(): void {
    for (const handle of this.handles) clearTimeout(handle);
    this.handles.clear();
  }
}

/**
 * The sandbox clock of `npm start`: the machine's wall clock, so that every time the sandbox and
 * the app record, and the API serves, is a time that has passed (decision 0030); the demo moves
 * fast because its durations are short, not because its clock runs ahead. It never goes back:
 * resumed with a floor (what a previous run may have shown, from its files), it holds there until
 * the wall clock passes it, and it never goes past its limit (the lease on disk). Time the sandbox
 * was stopped is skipped, not replayed: the clock reads the wall clock again at once.
 */
export class WallClock extends ScaledClock {
  private readonly floor: number;

  constructor(floor?: number) {
    super(1);
    this.floor = floor ?? Number.NEGATIVE_INFINITY;
  }

  protected override reading(): number {
    return Math.max(Date.now(), this.floor);
  }
}
