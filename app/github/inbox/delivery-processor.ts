import type { Logger } from 'pino';
import type { Db } from '../../store/database.ts';
import {
  type ClaimedDelivery,
  claimDeliveries,
  completeDelivery,
  type DeliveryLease,
  findNextDeliveryTime,
  releaseDeliveries,
  retryDelivery,
} from '../../store/webhook-deliveries.ts';
import { describeFailure } from '../client/failure-text.ts';
import { ArrivalSignal } from '../loops/arrival-signal.ts';
import { PollingLoop } from '../loops/polling-loop.ts';
import { computeRetryDelay, defaultRetryBackoff, type RetryBackoff } from '../loops/retry-backoff.ts';
import { isPoisonFailure } from './delivery-failure.ts';
import type { Delivery, DeliveryStep, GroupEntry, SharedContexts } from './delivery-step.ts';
import { StaleRepositoryError } from './stale-repository.ts';

export interface DeliveryProcessorOptions {
  db: Db;
  /**
   * What a delivery comes to (`translateDelivery` in delivery-step.ts): GitHub is read here,
   * outside any transaction. Throwing means "try again later". `shared` is given to the
   * deliveries of one group, translated side by side.
   */
  translate: (delivery: Delivery, shared: SharedContexts | undefined) => Promise<DeliveryStep | null>;
  /**
   * Applies the steps of a group's deliveries, in order, and marks each of them processed, in
   * one transaction (`commitDeliveries` in delivery-step.ts).
   */
  commit: (entries: readonly GroupEntry[]) => Promise<void>;
  /**
   * Whether an event's deliveries may be translated side by side and committed together
   * (`isGroupable`); any other is translated and committed on its own.
   */
  groupable: (event: string) => boolean;
  logger: Logger;
  /** Told of each delivery processed or failed (the metrics); nothing when absent. */
  observer?: DeliveryObserver;
  now?: () => Date;
  random?: () => number;
  backoff?: RetryBackoff;
  leaseMs?: number;
  pollMs?: number;
}

/** What the metrics learn from the processor. */
export interface DeliveryObserver {
  /** A delivery's step committed, `lagSeconds` after the delivery was stored. */
  processed(event: string, lagSeconds: number): void;
  /** An attempt failed: the delivery is retried later, given up, or parked. */
  failed(event: string, outcome: 'retried' | 'given_up' | 'parked'): void;
}

/**
 * After this many failed attempts a delivery is given up (recorded with its error), so it no
 * longer holds back its repository. A failure that cannot pass (delivery-failure.ts) parks it
 * at the first.
 */
const MAX_ATTEMPTS = 12;
/**
 * Ordering keys (repositories) processed at once. Enough for every busy repository to have a
 * group under way: a repository waiting for a slot waits with its whole backlog.
 */
const CONCURRENCY = 64;
/** The most deliveries of one ordering key claimed and committed together. */
const GROUP_SIZE = 32;
/**
 * Deliveries translated at once, over all groups: each reads from GitHub, which asks
 * integrators to keep concurrent requests well under a hundred.
 */
const MAX_TRANSLATIONS = 64;

/**
 * Processes stored deliveries: per repository the oldest unprocessed one and those queued
 * right behind it, claimed with a lease (so several instances share the inbox and a crashed
 * one's work is taken over), translated, then applied in one step transaction (group commit: a
 * busy repository's backlog costs one transaction, not one per delivery); retried with
 * back-off when GitHub or the database fails.
 */
export class DeliveryProcessor {
  private readonly loop: PollingLoop;
  private readonly now: () => Date;
  /** A delivery stored: a run with room for more looks again. */
  private readonly arrival = new ArrivalSignal();
  /** Translations under way, and those waiting for one to finish. */
  private translating = 0;
  private readonly translationQueue: (() => void)[] = [];

  constructor(private readonly options: DeliveryProcessorOptions) {
    this.now = options.now ?? (() => new Date());
    this.loop = new PollingLoop({
      run: () => this.runUntilIdle(),
      computeSleepMs: () => this.computeSleep(),
      onError: (error) => options.logger.error({ error: describeFailure(error) }, 'webhooks: polling failed'),
    });
  }

  /**
   * Processes until nothing can be claimed now; returns how many attempts were made. Up to
   * CONCURRENCY ordering keys are under way at once, and a free slot is filled as soon as one
   * finishes or a delivery arrives, without waiting for the slowest of a batch.
   */
  async runUntilIdle(): Promise<number> {
    const leaseMs = this.options.leaseMs ?? 120_000;
    const running = new Set<Promise<void>>();
    const start = (work: Promise<unknown>) => {
      const task: Promise<void> = work.then(() => undefined).finally(() => running.delete(task));
      running.add(task);
    };
    let attempts = 0;
    try {
      while (!this.loop.isStopping) {
        const arrivals = this.arrival.count;
        const free = CONCURRENCY - running.size;
        const claimed =
          free > 0
            ? await claimDeliveries(this.options.db, {
                limit: free,
                leaseMs,
                now: this.now(),
                perKey: GROUP_SIZE,
              })
            : [];
        attempts += claimed.length;
        for (const group of groupByKey(claimed)) start(this.processGroup(group));
        if (running.size === 0) return attempts;
        // Room left and something arrived meanwhile: look again.
        if (running.size < CONCURRENCY && this.arrival.count !== arrivals) continue;
        await Promise.race(running.size < CONCURRENCY ? [...running, this.arrival.next()] : running);
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

  /** Started and not stopped (readiness). */
  get running(): boolean {
    return this.loop.isRunning;
  }

  /** A delivery was stored (or the loop should look again): claim it now if there is room. */
  wake(): void {
    // Ends a run's wait for a finished group: there may be something to claim.
    this.arrival.notify();
    this.loop.wake();
  }

  private async computeSleep(): Promise<number> {
    const pollMs = this.options.pollMs ?? 5_000;
    const next = await findNextDeliveryTime(this.options.db);
    if (next === null) return pollMs;
    return Math.min(pollMs, Math.max(50, next.getTime() - this.now().getTime()));
  }

  /** Translates a delivery once fewer than MAX_TRANSLATIONS are under way. */
  private async translate(delivery: ClaimedDelivery, shared: SharedContexts | undefined) {
    if (this.translating >= MAX_TRANSLATIONS) {
      await new Promise<void>((resolve) => this.translationQueue.push(resolve));
    } else {
      this.translating++;
    }
    try {
      return await this.options.translate(
        { id: delivery.deliveryId, name: delivery.event, payload: JSON.parse(delivery.payload) },
        shared,
      );
    } finally {
      // The slot passes to the next waiting translation, if any.
      const next = this.translationQueue.shift();
      if (next === undefined) this.translating--;
      else next();
    }
  }

  /**
   * Deliveries of one ordering key, claimed together, applied in arrival order: each run of
   * groupable ones is translated side by side (sharing the repository's lookup and GitHub
   * reads) and committed in one transaction, in arrival order; any other delivery on its own.
   * A delivery that fails is retried later and the ones behind it are given back unapplied, so
   * each applies exactly once, in order.
   */
  private async processGroup(deliveries: readonly ClaimedDelivery[]): Promise<void> {
    const items: GroupItem[] = deliveries.map((delivery) => ({
      delivery,
      lease: { deliveryId: delivery.deliveryId, attempts: delivery.attempts },
      log: this.childLog(delivery),
    }));
    const giveBack = (from: number) =>
      releaseDeliveries(
        this.options.db,
        items.slice(from).map((i) => i.lease),
      ).catch((error: unknown) =>
        this.options.logger.error(
          { error: describeFailure(error) },
          'webhooks: could not give back deliveries; their leases run out',
        ),
      );
    const { groupable } = this.options;
    let at = 0;
    while (at < items.length) {
      let end = at + 1;
      if (groupable(items[at]!.delivery.event)) {
        while (end < items.length && groupable(items[end]!.delivery.event)) end++;
      }
      const failure = await this.applyRun(items.slice(at, end));
      if (failure !== null) {
        await this.retryLater(failure.item.delivery, failure.item.lease, failure.error, failure.item.log);
        await giveBack(items.indexOf(failure.item) + 1);
        return;
      }
      at = end;
    }
  }

  /** Translates a run of a key's deliveries and commits them together; returns the first failure. */
  private async applyRun(run: readonly GroupItem[]): Promise<{ item: GroupItem; error: unknown } | null> {
    // Side by side, sharing the repository's lookup and GitHub reads (a delivery alone shares nothing).
    const shared: SharedContexts | undefined = run.length > 1 ? new Map() : undefined;
    const outcomes = await Promise.allSettled(run.map((item) => this.translate(item.delivery, shared)));
    const failedAt = outcomes.findIndex((o) => o.status === 'rejected');
    const ready = (failedAt < 0 ? run : run.slice(0, failedAt)).map((item, i) => ({
      item,
      entry: { lease: item.lease, step: (outcomes[i] as PromiseFulfilledResult<DeliveryStep | null>).value },
    }));
    try {
      await this.commit(ready.map((r) => r.entry));
      for (const { item } of ready) this.processed(item);
    } catch (error) {
      if (ready.length === 1) return { item: ready[0]!.item, error };
      // The one transaction for all failed: apply them one by one, to find the one at fault.
      for (const { item, entry } of ready) {
        try {
          await this.commit([entry]);
          this.processed(item);
        } catch (single) {
          return { item, error: single };
        }
      }
    }
    if (failedAt < 0) return null;
    return { item: run[failedAt]!, error: (outcomes[failedAt] as PromiseRejectedResult).reason };
  }

  private processed(item: GroupItem): void {
    item.log.debug('webhooks: delivery processed');
    const lagMs = this.now().getTime() - item.delivery.receivedAt.getTime();
    this.options.observer?.processed(item.delivery.event, Math.max(0, lagMs) / 1_000);
  }

  /** Commits the entries not committed yet (some are, when a group is applied one by one). */
  private async commit(entries: readonly GroupEntry[]): Promise<void> {
    const pending = entries.filter((e) => !e.lease.completed);
    if (pending.length > 0) await this.options.commit(pending);
  }

  /** The delivery's logger; made as soon as it is claimed (the benchmark reads the claim off it). */
  private childLog(delivery: ClaimedDelivery): Logger {
    return this.options.logger.child({
      delivery: delivery.deliveryId,
      event: delivery.event,
      attempt: delivery.attempts,
    });
  }

  private async retryLater(
    delivery: ClaimedDelivery,
    lease: DeliveryLease,
    error: unknown,
    log: Logger,
  ): Promise<void> {
    const failure = describeFailure(error);
    try {
      if (isPoisonFailure(error)) {
        const parked = await completeDelivery(this.options.db, lease, { now: this.now(), error: failure });
        if (parked) {
          log.error({ error: failure }, 'webhooks: delivery parked: it fails the same way on every attempt');
          this.options.observer?.failed(delivery.event, 'parked');
        }
        return;
      }
      if (delivery.attempts >= MAX_ATTEMPTS) {
        await completeDelivery(this.options.db, lease, { now: this.now(), error: failure });
        log.error({ error: failure }, 'webhooks: delivery given up after repeated failures');
        this.options.observer?.failed(delivery.event, 'given_up');
        return;
      }
      // A stale repository id was this process's own fault, repaired already: no reason to wait.
      const delayMs =
        error instanceof StaleRepositoryError
          ? 0
          : computeRetryDelay(
              delivery.attempts,
              this.options.random ?? Math.random,
              this.options.backoff ?? defaultRetryBackoff,
            );
      const kept = await retryDelivery(this.options.db, lease, {
        error: failure,
        availableAt: new Date(this.now().getTime() + delayMs),
      });
      if (kept) {
        log.warn({ error: failure, delayMs }, 'webhooks: delivery failed; retrying later');
        this.options.observer?.failed(delivery.event, 'retried');
      }
    } catch (storeError) {
      log.error(
        { error: failure, storeError: describeFailure(storeError) },
        'webhooks: could not schedule a retry',
      );
    }
  }
}

/** Claimed deliveries by ordering key, each key's in arrival order, keys by their first delivery. */
function groupByKey(claimed: readonly ClaimedDelivery[]): ClaimedDelivery[][] {
  const groups = new Map<string, ClaimedDelivery[]>();
  for (const delivery of claimed) {
    const group = groups.get(delivery.orderingKey);
    if (group === undefined) groups.set(delivery.orderingKey, [delivery]);
    else group.push(delivery);
  }
  return [...groups.values()];
}

interface GroupItem {
  delivery: ClaimedDelivery;
  lease: DeliveryLease;
  log: Logger;
}
