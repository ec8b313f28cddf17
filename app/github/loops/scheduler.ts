import type { Logger } from 'pino';
import type { IdSource } from '../../queue/ids.ts';
import type { Db } from '../../store/database.ts';
import { runStep } from '../../store/step-transaction.ts';
import { claimDueTimers, findDueRepositories, findNextTimerDue } from '../../store/timers.ts';
import { describeFailure } from '../client/failure-text.ts';
import { PollingLoop } from './polling-loop.ts';

export interface SchedulerOptions {
  store: { db: Db };
  logger: Logger;
  ids: IdSource;
  now?: () => Date;
  /** Longest sleep: another instance may set an earlier wake-up without waking this one. */
  maxSleepMs?: number;
  /** Repositories stepped at once. */
  concurrency?: number;
}

/**
 * Feeds the engine's due wake-ups back as `tick` inputs. The timer is taken in the tick's own
 * step transaction, so a crash either fires it later or has fired it: stored wake-ups survive a
 * restart, and one taken by another instance is not fired twice.
 */
export class Scheduler {
  private readonly db: Db;
  private readonly now: () => Date;
  private readonly maxSleepMs: number;
  private readonly concurrency: number;
  private readonly loop: PollingLoop;

  constructor(private readonly options: SchedulerOptions) {
    this.db = options.store.db;
    this.now = options.now ?? (() => new Date());
    this.maxSleepMs = options.maxSleepMs ?? 30_000;
    this.concurrency = options.concurrency ?? 4;
    this.loop = new PollingLoop({
      run: () => this.runUntilIdle(this.now()),
      computeSleepMs: () => this.computeSleep(),
      onError: (error) =>
        options.logger.error({ error: describeFailure(error) }, 'scheduler: polling failed'),
    });
  }

  /** Fires every wake-up due at `now`; returns how many ticks were stepped. */
  async runUntilIdle(now: Date = this.now()): Promise<number> {
    let ticks = 0;
    for (;;) {
      const due = await findDueRepositories(this.db, { now, limit: this.concurrency });
      if (due.length === 0) return ticks;
      const fired = await Promise.all(due.map((repositoryId) => this.fire(repositoryId, now)));
      const count = fired.filter(Boolean).length;
      // Every due one was taken by another instance meanwhile: done here.
      if (count === 0) return ticks;
      ticks += count;
    }
  }

  /** Runs until stopped, sleeping until the next wake-up (at most maxSleepMs). */
  start(): void {
    this.loop.start();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
  }

  /** Started and not stopped (readiness). */
  get running(): boolean {
    return this.loop.isRunning;
  }

  /** A step set a wake-up: it may be earlier than the one slept towards. */
  wake(): void {
    this.loop.wake();
  }

  private async fire(repositoryId: string, now: Date): Promise<boolean> {
    try {
      const outcome = await runStep({
        db: this.db,
        repositoryId,
        inputs: [],
        now,
        ids: this.options.ids,
        within: async (tx) => {
          const timers = await claimDueTimers(tx, { now, repositoryId });
          return timers.length > 0 ? [{ type: 'tick' }] : [];
        },
      });
      return outcome.state !== null;
    } catch (error) {
      // The timer stays (its transaction rolled back): it fires at the next run.
      this.options.logger.error({ repositoryId, error: describeFailure(error) }, 'scheduler: tick failed');
      return false;
    }
  }

  private async computeSleep(): Promise<number> {
    const next = await findNextTimerDue(this.db);
    if (next === null) return this.maxSleepMs;
    // At least 50 ms: a timer that failed to fire is not spun on.
    return Math.min(this.maxSleepMs, Math.max(50, next.getTime() - this.now().getTime()));
  }
}
