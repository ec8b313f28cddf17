import type { Logger } from 'pino';
import type { Db } from '../store/database.ts';
import {
  type ClaimedDelivery,
  claimDeliveries,
  completeDelivery,
  type DeliveryLease,
  findNextDeliveryTime,
  retryDelivery,
} from '../store/webhook-deliveries.ts';
import { describeFailure } from './failure-text.ts';
import { PollingLoop } from './polling-loop.ts';
import { computeRetryDelay, defaultRetryBackoff, type RetryBackoff } from './retry-backoff.ts';

export interface DeliveryProcessorOptions {
  db: Db;
  /** Dispatches one delivery to the handlers (Probot's `receive`); throwing means "try again later". */
  dispatch: (delivery: { id: string; name: string; payload: unknown }) => Promise<void>;
  logger: Logger;
  now?: () => Date;
  random?: () => number;
  backoff?: RetryBackoff;
  /** After this many failed attempts a delivery is given up (recorded with its error), so it no longer holds back its repository. */
  maxAttempts?: number;
  leaseMs?: number;
  /** Deliveries processed at once (each of another repository). */
  concurrency?: number;
  pollMs?: number;
}

/**
 * Processes stored deliveries: the oldest unprocessed one per repository at a time, claimed
 * with a lease (so several instances share the inbox and a crashed one's work is taken over),
 * retried with back-off when GitHub or the database fails.
 */
export class DeliveryProcessor {
  private readonly loop: PollingLoop;
  private readonly leases = new Map<string, DeliveryLease>();
  private readonly now: () => Date;
  /** Counts wake() calls, and resolves the wait of a run that has room for more. */
  private arrivals = 0;
  private arrival: { promise: Promise<void>; resolve: () => void } | null = null;

  constructor(private readonly options: DeliveryProcessorOptions) {
    this.now = options.now ?? (() => new Date());
    this.loop = new PollingLoop({
      run: () => this.runUntilIdle(),
      computeSleepMs: () => this.computeSleep(),
      onError: (error) => options.logger.error({ error: describeFailure(error) }, 'webhooks: polling failed'),
    });
  }

  /** The lease held on a delivery being dispatched (the handlers complete it in their step). */
  leaseOf(deliveryId: string): DeliveryLease | undefined {
    return this.leases.get(deliveryId);
  }

  /**
   * Processes until nothing can be claimed now; returns how many attempts were made. Up to
   * `concurrency` deliveries are under way at once, and a free slot is filled as soon as one
   * finishes or a delivery arrives, without waiting for the slowest of a batch.
   */
  async runUntilIdle(): Promise<number> {
    const limit = this.options.concurrency ?? 8;
    const running = new Set<Promise<void>>();
    let attempts = 0;
    try {
      while (!this.loop.isStopping) {
        const arrivals = this.arrivals;
        const free = limit - running.size;
        const claimed =
          free > 0
            ? await claimDeliveries(this.options.db, {
                limit: free,
                leaseMs: this.options.leaseMs ?? 120_000,
                now: this.now(),
              })
            : [];
        attempts += claimed.length;
        for (const delivery of claimed) {
          const task: Promise<void> = this.process(delivery).finally(() => running.delete(task));
          running.add(task);
        }
        if (running.size === 0) return attempts;
        // Room left and something arrived meanwhile: it may be claimable now.
        if (running.size < limit && this.arrivals !== arrivals) continue;
        await Promise.race(running.size < limit ? [...running, this.nextArrival()] : running);
      }
    } finally {
      await Promise.all(running);
    }
    return attempts;
  }

  start(): void {
    this.loop.start();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
  }

  /** A delivery was stored (or the loop should look again): claim it now if there is room. */
  wake(): void {
    this.arrivals++;
    const waiter = this.arrival;
    this.arrival = null;
    waiter?.resolve();
    this.loop.wake();
  }

  private nextArrival(): Promise<void> {
    if (this.arrival === null) {
      let resolve = () => {};
      const promise = new Promise<void>((r) => {
        resolve = r;
      });
      this.arrival = { promise, resolve };
    }
    return this.arrival.promise;
  }

  private async computeSleep(): Promise<number> {
    const pollMs = this.options.pollMs ?? 5_000;
    const next = await findNextDeliveryTime(this.options.db);
    if (next === null) return pollMs;
    return Math.min(pollMs, Math.max(50, next.getTime() - this.now().getTime()));
  }

  private async process(delivery: ClaimedDelivery): Promise<void> {
    const log = this.options.logger.child({
      delivery: delivery.deliveryId,
      event: delivery.event,
      attempt: delivery.attempts,
    });
    const lease: DeliveryLease = { deliveryId: delivery.deliveryId, attempts: delivery.attempts };
    this.leases.set(delivery.deliveryId, lease);
    try {
      await this.options.dispatch({
        id: delivery.deliveryId,
        name: delivery.event,
        payload: JSON.parse(delivery.payload),
      });
      // Handlers that stepped the engine completed it already; the others (an ignored action) now.
      if (!lease.completed) await completeDelivery(this.options.db, lease, { now: this.now() });
      log.debug('webhooks: delivery processed');
    } catch (error) {
      await this.retryLater(delivery, lease, error, log);
    } finally {
      this.leases.delete(delivery.deliveryId);
    }
  }

  private async retryLater(
    delivery: ClaimedDelivery,
    lease: DeliveryLease,
    error: unknown,
    log: Logger,
  ): Promise<void> {
    const failure = describeFailure(error);
    try {
      if (delivery.attempts >= (this.options.maxAttempts ?? 12)) {
        await completeDelivery(this.options.db, lease, { now: this.now(), error: failure });
        log.error({ error: failure }, 'webhooks: delivery given up after repeated failures');
        return;
      }
      const delayMs = computeRetryDelay(
        delivery.attempts,
        this.options.random ?? Math.random,
        this.options.backoff ?? defaultRetryBackoff,
      );
      const kept = await retryDelivery(this.options.db, lease, {
        error: failure,
        availableAt: new Date(this.now().getTime() + delayMs),
      });
      if (kept) log.warn({ error: failure, delayMs }, 'webhooks: delivery failed; retrying later');
    } catch (storeError) {
      log.error(
        { error: failure, storeError: describeFailure(storeError) },
        'webhooks: could not schedule a retry',
      );
    }
  }
}
