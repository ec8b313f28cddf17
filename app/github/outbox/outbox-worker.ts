import type { Logger } from 'pino';
import type { Effect } from '../../queue/effects.ts';
import type { IdSource } from '../../queue/ids.ts';
import type { QueueInput } from '../../queue/inputs.ts';
import type { Db } from '../../store/database.ts';
import {
  claimOutbox,
  completeOutboxStatement,
  failOutboxStatement,
  findNextOutboxTime,
  type OutboxRow,
  retryOutbox,
} from '../../store/outbox.ts';
import { runStep } from '../../store/step-transaction.ts';
import { describeFailure } from '../client/failure-text.ts';
import { ArrivalSignal } from '../loops/arrival-signal.ts';
import { PollingLoop } from '../loops/polling-loop.ts';
import { defaultRetryBackoff, type RetryBackoff } from '../loops/retry-backoff.ts';
import { EffectFailedError } from './effect-failure.ts';
import { logIntegrityFailure } from './integrity-log.ts';
import { defaultRetryLimit, gaveUpFailure, nextAttemptDelayMs, type RetryLimit } from './retry-limit.ts';

export interface OutboxWorkerOptions {
  store: { db: Db };
  /**
   * Carries the effect out (on GitHub, or the sandbox; `createEffectRunner` in effect-runner.ts)
   * and answers with the inputs its result means. Throwing means "try again later": the row is retried with back-off; throwing an
   * EffectFailedError means "failed for good": the row is recorded failed with its error.
   */
  execute: (repositoryId: string, effect: Effect) => Promise<QueueInput[]>;
  logger: Logger;
  /** Told of each attempt's outcome (the metrics); nothing when absent. */
  observer?: EffectObserver;
  ids: IdSource;
  now?: () => Date;
  /** Jitter of the back-off, in [0, 1). */
  random?: () => number;
  backoff?: RetryBackoff;
  /** Attempts of an effect that keeps failing transiently before it fails for good (retry-limit.ts). */
  retryLimit?: RetryLimit;
  /** How long a claimed row is ours; after that (a crash) another instance runs it again. */
  leaseMs?: number;
  /**
   * Rows run at once (each of another repository: a repository's rows run one at a time). Each
   * is a GitHub write or two; GitHub asks integrators to keep concurrent requests well under a
   * hundred, and the delivery processor reads at the same time.
   */
  concurrency?: number;
  /** Longest sleep of the polling loop: other instances enqueue without waking this one. */
  pollMs?: number;
}

/** What the metrics learn from the worker: an effect done, to be retried, or failed for good. */
export interface EffectObserver {
  effectHandled(effect: string, outcome: 'done' | 'retried' | 'failed'): void;
}

/** The result's step found the row no longer ours: another instance claimed it again. */
class LeaseLostError extends Error {}

/**
 * Runs the outbox: claims rows (the oldest pending one per repository), carries each effect
 * out, then feeds its result to the engine AND marks the row done in one step transaction, so
 * the two commit together. A failure is retried with exponential back-off; a crash leaves the
 * row leased until the lease runs out, then it runs again (effects are idempotent).
 */
export class OutboxWorker {
  private readonly db: Db;
  private readonly now: () => Date;
  private readonly random: () => number;
  private readonly leaseMs: number;
  private readonly concurrency: number;
  private readonly pollMs: number;
  private readonly loop: PollingLoop;
  /** Something was enqueued: a run with room for more looks again. */
  private readonly arrival = new ArrivalSignal();

  constructor(private readonly options: OutboxWorkerOptions) {
    this.db = options.store.db;
    this.now = options.now ?? (() => new Date());
    this.random = options.random ?? Math.random;
    this.leaseMs = options.leaseMs ?? 120_000;
    this.concurrency = options.concurrency ?? 8;
    this.pollMs = options.pollMs ?? 5_000;
    this.loop = new PollingLoop({
      run: () => this.runUntilIdle(),
      computeSleepMs: () => this.computeSleep(),
      onError: (error) => options.logger.error({ error: describeFailure(error) }, 'outbox: polling failed'),
    });
  }

  /**
   * Runs rows until none can be claimed now (or stop() was called); returns how many attempts
   * were made. Up to `concurrency` rows are under way at once, and a free slot is filled as soon
   * as one finishes (which may have made its repository's next row claimable) or something is
   * enqueued, without waiting for the slowest of a claim. Order per repository is the claim's:
   * only a repository's oldest pending row is claimable, and only while it is not leased.
   */
  async runUntilIdle(): Promise<number> {
    const running = new Set<Promise<void>>();
    let attempts = 0;
    try {
      while (!this.loop.isStopping) {
        const arrivals = this.arrival.count;
        const free = this.concurrency - running.size;
        const rows =
          free > 0 ? await claimOutbox(this.db, { limit: free, leaseMs: this.leaseMs, now: this.now() }) : [];
        attempts += rows.length;
        for (const row of rows) {
          const task: Promise<void> = this.run(row).finally(() => running.delete(task));
          running.add(task);
        }
        if (running.size === 0) return attempts;
        // Room left and something was enqueued meanwhile: it may be claimable now.
        if (running.size < this.concurrency && this.arrival.count !== arrivals) continue;
        await Promise.race(running.size < this.concurrency ? [...running, this.arrival.next()] : running);
      }
    } finally {
      await Promise.all(running);
    }
    return attempts;
  }

  /** Polls until stopped; `wake()` cuts a sleep short when something was enqueued. */
  start(): void {
    this.loop.start();
  }

  /** Stops polling and waits for the rows in progress (the rest stays for the next start). */
  async stop(): Promise<void> {
    await this.loop.stop();
  }

  /** Started and not stopped (readiness). */
  get running(): boolean {
    return this.loop.isRunning;
  }

  /** Something was enqueued: claim it now if there is room (or cut the loop's sleep short). */
  wake(): void {
    this.arrival.notify();
    this.loop.wake();
  }

  /** Until the next row is due, at most pollMs; never 0, so a row locked by a claim elsewhere is not spun on. */
  private async computeSleep(): Promise<number> {
    const next = await findNextOutboxTime(this.db);
    if (next === null) return this.pollMs;
    return Math.min(this.pollMs, Math.max(50, next.getTime() - this.now().getTime()));
  }

  private async run(row: OutboxRow): Promise<void> {
    const log = this.options.logger.child({
      outboxId: row.id,
      repositoryId: row.repositoryId,
      key: row.key,
      attempt: row.attempts,
    });
    let inputs: QueueInput[];
    try {
      inputs = await this.options.execute(row.repositoryId, row.effect);
    } catch (error) {
      const failure =
        error instanceof EffectFailedError
          ? error
          : gaveUpFailure(row, error, {
              limit: this.options.retryLimit ?? defaultRetryLimit,
              now: this.now(),
            });
      if (failure !== null) await this.recordFailure(row, failure, log);
      else await this.retryLater(row, error, log);
      return;
    }
    const now = this.now();
    try {
      const outcome = await runStep({
        db: this.db,
        repositoryId: row.repositoryId,
        inputs,
        now,
        ids: this.options.ids,
        guard: { statement: completeOutboxStatement(row, now), lost: () => new LeaseLostError() },
      });
      logIntegrityFailure(row.effect, outcome.state, log);
      log.debug({ results: inputs.map((i) => i.type) }, 'outbox: effect done');
      this.options.observer?.effectHandled(row.effect.type, 'done');
    } catch (error) {
      if (error instanceof LeaseLostError) {
        log.warn('outbox: lease ran out and the row was claimed again; this result is dropped');
        return;
      }
      // The effect ran but its result did not commit: run it again (effects are idempotent).
      await this.retryLater(row, error, log);
    }
  }

  /**
   * The effect failed for good: the row is marked failed with its error, in the step that gives
   * the engine the failure (effect_failed, and what it waited for), so both commit together.
   */
  private async recordFailure(row: OutboxRow, failure: EffectFailedError, log: Logger): Promise<void> {
    log.error({ error: failure.reason, effect: row.effect.type }, 'outbox: effect failed for good');
    const now = this.now();
    try {
      await runStep({
        db: this.db,
        repositoryId: row.repositoryId,
        inputs: failure.inputs,
        now,
        ids: this.options.ids,
        guard: {
          statement: failOutboxStatement(row, now, failure.reason),
          lost: () => new LeaseLostError(),
        },
      });
      this.options.observer?.effectHandled(row.effect.type, 'failed');
    } catch (error) {
      if (error instanceof LeaseLostError) {
        log.warn('outbox: lease ran out and the row was claimed again; this failure is dropped');
        return;
      }
      // Not recorded: the effect runs again (and fails again, or not), as after any uncommitted result.
      await this.retryLater(row, error, log);
    }
  }

  private async retryLater(row: OutboxRow, error: unknown, log: Logger): Promise<void> {
    const delayMs = nextAttemptDelayMs(
      row.attempts,
      error,
      this.random,
      this.options.backoff ?? defaultRetryBackoff,
    );
    const failure = describeFailure(error);
    try {
      const kept = await retryOutbox(this.db, row, {
        error: failure,
        availableAt: new Date(this.now().getTime() + delayMs),
      });
      if (kept) {
        log.warn({ error: failure, delayMs }, 'outbox: effect failed; retrying later');
        this.options.observer?.effectHandled(row.effect.type, 'retried');
      } else
        log.warn({ error: failure }, 'outbox: effect failed after its lease ran out; the new holder retries');
    } catch (storeError) {
      // The lease runs out and the row is claimed again.
      log.error(
        { error: failure, storeError: describeFailure(storeError) },
        'outbox: could not schedule a retry',
      );
    }
  }
}
