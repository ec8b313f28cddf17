/*
 * Watches a server process's event loop from inside it, for the benchmarks that promise a bound
 * on how long one request may block it (bench:fuzz, bench:load). monitorEventLoopDelay alone
 * cannot tell a request that computes for 150 ms from a process the operating system did not
 * schedule for 150 ms because other processes had the machine's two cores. So every tick also
 * reads the process's CPU time (process.cpuUsage: every thread of the process, so an upper
 * bound on what the event loop's thread ran): a block is the process's own doing for at most
 * min(lag, CPU time used meanwhile), and the verdict is taken on that.
 */
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';

export interface LoopBlock {
  /** How late the tick came, in ms. */
  lagMs: number;
  /** CPU time the process used over the tick (all threads), in ms. */
  cpuMs: number;
  /** Of the lag, time spent in garbage collection. */
  gcMs: number;
  /** What the process was doing then (e.g. the requests in flight). */
  during: string[];
}

export interface LoopFigures {
  /** monitorEventLoopDelay's max, in ms: wall time, whatever the cause. */
  maxDelayMs: number;
  p99DelayMs: number;
  /** The longest block the process itself can have caused: max over ticks of min(lag, CPU). */
  maxOwnBlockMs: number;
}

const TICK_MS = 20;

export class EventLoopWatch {
  private readonly delay = monitorEventLoopDelay({ resolution: 10 });
  private readonly gc: PerformanceObserver;
  private collections: { start: number; end: number }[] = [];
  private pending: (LoopBlock & { from: number; to: number })[] = [];
  private maxOwnBlockMs = 0;
  private lastTick = performance.now();
  private lastCpu = process.cpuUsage();
  private readonly timer: NodeJS.Timeout;

  /**
   * @param reportMs blocks (wall time) longer than this are kept with what `during` said.
   * @param during what the process is busy with, read when a block is seen.
   */
  constructor(
    private readonly reportMs: number,
    private readonly during: () => string[] = () => [],
  ) {
    this.delay.enable();
    this.gc = new PerformanceObserver((list) => {
      for (const e of list.getEntries())
        this.collections.push({ start: e.startTime, end: e.startTime + e.duration });
    });
    this.gc.observe({ entryTypes: ['gc'] });
    this.timer = setInterval(() => this.tick(), TICK_MS);
    this.timer.unref();
  }

  private tick(): void {
    const now = performance.now();
    const cpu = process.cpuUsage(this.lastCpu);
    const cpuMs = (cpu.user + cpu.system) / 1_000;
    const lagMs = now - this.lastTick - TICK_MS;
    this.maxOwnBlockMs = Math.max(this.maxOwnBlockMs, Math.min(lagMs, cpuMs));
    if (lagMs > this.reportMs)
      this.pending.push({ lagMs, cpuMs, gcMs: 0, during: this.during(), from: this.lastTick, to: now });
    this.lastTick = now;
    this.lastCpu = process.cpuUsage();
  }

  /** The blocks seen since the last call, with their garbage collection time. */
  takeBlocks(): LoopBlock[] {
    const overlap = (b: { from: number; to: number }) =>
      this.collections.reduce(
        (ms, c) => ms + Math.max(0, Math.min(b.to, c.end) - Math.max(b.from, c.start)),
        0,
      );
    const blocks = this.pending.map(({ from, to, ...b }) => ({ ...b, gcMs: overlap({ from, to }) }));
    this.pending = [];
    this.collections = this.collections.filter((c) => c.end > performance.now() - 1_000);
    return blocks;
  }

  figures(): LoopFigures {
    return {
      maxDelayMs: this.delay.max / 1e6,
      p99DelayMs: this.delay.percentile(99) / 1e6,
      maxOwnBlockMs: this.maxOwnBlockMs,
    };
  }

  reset(): void {
    this.delay.reset();
    this.maxOwnBlockMs = 0;
    this.pending = [];
  }

  stop(): void {
    clearInterval(this.timer);
    this.gc.disconnect();
    this.delay.disable();
  }
}

/**
 * The requests a server has in flight, as `METHOD target` (the target cut at `width`): the
 * suspects a block's report names.
 */
export function trackRequests(
  server: {
    on(
      e: 'request',
      f: (req: { method?: string; url?: string }, res: { once(e: 'close', f: () => void): void }) => void,
    ): unknown;
  },
  width: number,
): (count: number) => string[] {
  const inFlight = new Set<string>();
  server.on('request', (req, res) => {
    const label = `${req.method} ${(req.url ?? '').slice(0, width)}`;
    inFlight.add(label);
    res.once('close', () => inFlight.delete(label));
  });
  return (count) => [...inFlight].slice(0, count);
}

/** The blocks of a run as report lines. */
export function describeBlocks(blocks: readonly LoopBlock[]): string {
  return blocks
    .map(
      (b) =>
        `  blocked ${b.lagMs.toFixed(0)} ms (CPU ${b.cpuMs.toFixed(0)} ms, GC ${b.gcMs.toFixed(0)} ms) while serving: ${b.during.join(' | ') || '(no request)'}`,
    )
    .join('\n');
}
