import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { LoopBlock } from './event-loop-watch.ts';
import type { FuzzFixtures, FuzzSeedOptions } from './fuzz-seed.ts';

export interface FuzzServerOptions extends FuzzSeedOptions {
  logLevel?: 'error' | 'warn' | 'info';
  /** Extra node flags of the server process (e.g. production's --max-semi-space-size=64). */
  nodeFlags?: string[];
}

/** A blocked event loop longer than this is reported with the requests then in flight. */
export const BLOCK_REPORT_MS = 100;

/** A block of the server's event loop; `during` holds the requests in flight then (a few). */
export type Block = LoopBlock;

export type FuzzServerMessage =
  | { type: 'ready'; url: string; fixtures: FuzzFixtures; schema: string | null }
  | { type: 'beat'; rss: number; eventLoopMaxMs: number; ownBlockMaxMs: number; blocks: Block[] };

const KEPT_BLOCKS = 5;

// A run that ends abruptly must not leave its servers behind.
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/** What the server process reported since the last reset. */
export interface ServerFigures {
  /** monitorEventLoopDelay's max in the server process. */
  eventLoopMaxMs: number;
  /** The longest block the server itself can have caused (its CPU time then): see event-loop-watch.ts. */
  ownBlockMaxMs: number;
  /** Longest silence between two heartbeats (100 ms apart): a stall the process never recovered from shows here. */
  longestSilenceMs: number;
  rssBaseline: number;
  rssPeak: number;
  /** The longest blocks of the event loop, with the requests in flight then. */
  blocks: Block[];
}

const entry = fileURLToPath(new URL('./fuzz-server-main.ts', import.meta.url));
const TAIL_LINES = 40;

/**
 * The fuzz target as a child process: started seeded, watched through its heartbeats, and
 * killed (by its own pid) when it stops answering.
 */
export class FuzzServer {
  private figures: ServerFigures = FuzzServer.noFigures();
  private lastBeat = performance.now();
  private readonly tail: string[] = [];
  private exited = false;

  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
    readonly fixtures: FuzzFixtures,
    private readonly schema: string | null,
  ) {}

  private static noFigures(): ServerFigures {
    return {
      eventLoopMaxMs: 0,
      ownBlockMaxMs: 0,
      longestSilenceMs: 0,
      rssBaseline: 0,
      rssPeak: 0,
      blocks: [],
    };
  }

  static async start(options: FuzzServerOptions, readyTimeoutMs = 120_000): Promise<FuzzServer> {
    const child = fork(entry, [], {
      execArgv: ['--import', 'tsx', ...(options.nodeFlags ?? [])],
      env: { ...process.env, FUZZ_SERVER_OPTIONS: JSON.stringify(options) },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    const early: string[] = [];
    const keep = (chunk: Buffer) => early.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    const ready = await new Promise<Extract<FuzzServerMessage, { type: 'ready' }>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('fuzz server did not start in time')), readyTimeoutMs);
      child.on('message', (m: FuzzServerMessage) => {
        if (m.type === 'ready') {
          clearTimeout(timer);
          resolve(m);
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(
          new Error(`fuzz server exited (${code}) before it was ready:\n${early.slice(-20).join('\n')}`),
        );
      });
    });
    child.stdout?.off('data', keep);
    child.stderr?.off('data', keep);
    const server = new FuzzServer(child, ready.url, ready.fixtures, ready.schema);
    server.tail.push(...early.slice(-TAIL_LINES));
    server.watch();
    return server;
  }

  private watch(): void {
    const keep = (chunk: Buffer) => {
      this.tail.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      if (this.tail.length > TAIL_LINES) this.tail.splice(0, this.tail.length - TAIL_LINES);
    };
    this.child.stdout?.on('data', keep);
    this.child.stderr?.on('data', keep);
    this.child.on('message', (m: FuzzServerMessage) => {
      if (m.type !== 'beat') return;
      const now = performance.now();
      this.figures.longestSilenceMs = Math.max(this.figures.longestSilenceMs, now - this.lastBeat);
      this.lastBeat = now;
      this.figures.eventLoopMaxMs = Math.max(this.figures.eventLoopMaxMs, m.eventLoopMaxMs);
      this.figures.ownBlockMaxMs = Math.max(this.figures.ownBlockMaxMs, m.ownBlockMaxMs);
      if (this.figures.rssBaseline === 0) this.figures.rssBaseline = m.rss;
      this.figures.rssPeak = Math.max(this.figures.rssPeak, m.rss);
      if (m.blocks.length > 0) {
        const longest = [...this.figures.blocks, ...m.blocks].sort((a, b) => b.lagMs - a.lagMs);
        this.figures.blocks = longest.slice(0, KEPT_BLOCKS);
      }
    });
    this.child.once('exit', () => {
      this.exited = true;
    });
    live.add(this.child);
    this.child.once('exit', () => live.delete(this.child));
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get running(): boolean {
    return !this.exited;
  }

  /** Starts a new measuring period (after warm-up): maxima cleared, RSS baseline taken at the next beat. */
  resetFigures(): void {
    this.child.send({ type: 'reset' });
    this.lastBeat = performance.now();
    this.figures = FuzzServer.noFigures();
  }

  /** Figures so far; a heartbeat silence still going on counts. */
  read(): ServerFigures {
    const silence = this.exited ? 0 : performance.now() - this.lastBeat;
    return { ...this.figures, longestSilenceMs: Math.max(this.figures.longestSilenceMs, silence) };
  }

  /** The last lines the server logged (its error logs name the faults behind 5xx answers). */
  logTail(): string[] {
    return [...this.tail];
  }

  /** Stops the server: cleanly when it still answers, else killed (and its schema dropped here). */
  async stop(timeoutMs = 15_000): Promise<void> {
    if (this.exited) return this.dropSchema();
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.send({ type: 'stop' });
    const timer = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs);
    await exited;
    clearTimeout(timer);
    if (this.child.signalCode === 'SIGKILL') await this.dropSchema();
  }

  /** Kills a server that stopped answering. */
  async kill(): Promise<void> {
    if (!this.exited) {
      const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
      this.child.kill('SIGKILL');
      await exited;
    }
    await this.dropSchema();
  }

  private async dropSchema(): Promise<void> {
    const url = process.env['DATABASE_URL'];
    if (!this.schema || !url) return;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    // A killed server's connections may still hold locks for a moment; do not wait on them forever.
    await admin.query(`SET lock_timeout = '10s'`);
    await admin.query(`DROP SCHEMA IF EXISTS ${this.schema} CASCADE`).catch(() => undefined);
    await admin.end();
  }
}
