import type { Logger } from 'pino';
import type { Db } from '../store/database.ts';
import {
  type ClaimedDelivery,
  claimDeliveries,
  completeDelivery,
  type DeliveryLease,
  findNextDeliveryTime,
  releaseDeliveries,
  retryDelivery,
} from '../store/webhook-deliveries.ts';
import { ArrivalSignal } from './arrival-signal.ts';
import { isPoisonFailure, unwrapHandlerFailure } from './delivery-failure.ts';
import type { DeferredStep, GroupEntry, SharedContexts, ShellLease } from './delivery-shell.ts';
import { describeFailure } from './failure-text.ts';
import { PollingLoop } from './polling-loop.ts';
import { computeRetryDelay, defaultRetryBackoff, type RetryBackoff } from './retry-backoff.ts';
import { StaleRepositoryError } from './stale-repository.ts';

export interface DeliveryProcessorOptions {
  db: Db;
  /** Dispatches one delivery to the handlers (Probot's `receive`); throwing means "try again later". */
  dispatch: (delivery: { id: string; name: string; payload: unknown }) => Promise<void>;
  logger: Logger;
  now?: () => Date;
  random?: () => number;
  backoff?: RetryBackoff;
  /**
   * After this many failed attempts a delivery is given up (recorded with its error), so it no
   * longer holds back its repository. A failure that cannot pass (delivery-failure.ts) parks it
   * at the first.
   */
  maxAttempts?: number;
  leaseMs?: number;
  /**
   * Ordering keys (repositories) processed at once. Enough for every busy repository to have a
   * group under way: a repository waiting for a slot waits with its whole backlog.
   */
  concurrency?: number;
  pollMs?: number;
  /**
   * Group commit: applies the steps of several dispatched deliveries of one repository, in
   * order, in one step transaction that also marks each of them processed (delivery-shell.ts's
   * `commitDeliveryGroup`). Without it every delivery steps on its own.
   */
  commitGroup?: (entries: readonly GroupEntry[]) => Promise<void>;
  /** With `commitGroup`: the most deliveries of one ordering key claimed and committed together. */
  groupSize?: number;
  /**
   * Deliveries dispatched at once, over all groups: each reads from GitHub, which asks
   * integrators to keep concurrent requests well under a hundred.
   */
  maxDispatches?: number;
  /**
   * Events whose handlers hand their step to the group (`ShellLease.defer`) rather than write
   * on their own: only runs of these are dispatched side by side and committed together.
   */
  groupable?: (event: string) => boolean;
}

/**
 * Processes stored deliveries: per repository the oldest unprocessed one — with `commitGroup`,
 * it and those queued right behind it, applied in one step transaction (group commit: a busy
 * repository's backlog costs one transaction, not one per delivery) — claimed with a lease (so
 * several instances share the inbox and a crashed one's work is taken over), retried with
 * back-off when GitHub or the database fails.
 */
export class DeliveryProcessor {
  private readonly loop: PollingLoop;
  private readonly leases = new Map<string, ShellLease>();
  private readonly now: () => Date;
  /** A delivery stored: a run with room for more looks again. */
  private readonly arrival = new ArrivalSignal();
  /** Dispatches under way, and those waiting for one to finish. */
  private dispatching = 0;
  private readonly dispatchQueue: (() => void)[] = [];

  constructor(private readonly options: DeliveryProcessorOptions) {
    this.now = options.now ?? (() => new Date());
    this.loop = new PollingLoop({
      run: () => this.runUntilIdle(),
      computeSleepMs: () => this.computeSleep(),
      onError: (error) => options.logger.error({ error: describeFailure(error) }, 'webhooks: polling failed'),
    });
  }

  /** The lease held on a delivery being dispatched (the handlers complete it in their step). */
  leaseOf(deliveryId: string): ShellLease | undefined {
    return this.leases.get(deliveryId);
  }

  /**
   * Processes until nothing can be claimed now; returns how many attempts were made. Up to
   * `concurrency` deliveries are under way at once, and a free slot is filled as soon as one
   * finishes or a delivery arrives, without waiting for the slowest of a batch.
   */
  async runUntilIdle(): Promise<number> {
    const limit = this.options.concurrency ?? 64;
    const leaseMs = this.options.leaseMs ?? 120_000;
    const grouped = this.options.commitGroup !== undefined;
    const perKey = grouped ? (this.options.groupSize ?? 32) : 1;
    const running = new Set<Promise<void>>();
    const start = (work: Promise<unknown>) => {
      const task: Promise<void> = work.then(() => undefined).finally(() => running.delete(task));
      running.add(task);
    };
    let attempts = 0;
    try {
      while (!this.loop.isStopping) {
        const arrivals = this.arrival.count;
        const free = limit - running.size;
        const claimed =
          free > 0
            ? await claimDeliveries(this.options.db, { limit: free, leaseMs, now: this.now(), perKey })
            : [];
        attempts += claimed.length;
        for (const group of groupByKey(claimed)) {
          start(group.length === 1 && !grouped ? this.process(group[0]!) : this.processGroup(group));
        }
        if (running.size === 0) return attempts;
        // Room left and something arrived meanwhile: look again.
        if (running.size < limit && this.arrival.count !== arrivals) continue;
        await Promise.race(running.size < limit ? [...running, this.arrival.next()] : running);
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

  /** Dispatches a delivery to the handlers once fewer than `maxDispatches` are under way. */
  private async dispatch(delivery: ClaimedDelivery): Promise<void> {
    if (this.dispatching >= (this.options.maxDispatches ?? 64)) {
      await new Promise<void>((resolve) => this.dispatchQueue.push(resolve));
    } else {
      this.dispatching++;
    }
    try {
      await this.options.dispatch({
        id: delivery.deliveryId,
        name: delivery.event,
        payload: JSON.parse(delivery.payload),
      });
    } finally {
      // The slot passes to the next waiting dispatch, if any.
      const next = this.dispatchQueue.shift();
      if (next === undefined) this.dispatching--;
      else next();
    }
  }

  private async process(delivery: ClaimedDelivery): Promise<void> {
    const log = this.childLog(delivery);
    const lease: ShellLease = { deliveryId: delivery.deliveryId, attempts: delivery.attempts };
    this.leases.set(delivery.deliveryId, lease);
    try {
      await this.dispatch(delivery);
      // Handlers that stepped the engine completed it already; the others (an ignored action) now.
      if (!lease.completed) await completeDelivery(this.options.db, lease, { now: this.now() });
      log.debug('webhooks: delivery processed');
    } catch (error) {
      await this.retryLater(delivery, lease, error, log);
    } finally {
      this.leases.delete(delivery.deliveryId);
    }
  }

  /**
   * Several deliveries of one ordering key, claimed together, applied in arrival order: each run
   * of groupable ones is dispatched side by side (sharing the repository's lookup and GitHub
   * reads) and their steps committed in one transaction, in arrival order; any other delivery
   * is processed on its own. A delivery that fails is retried later and the
   * ones behind it are given back unapplied, so each applies exactly once, in order.
   */
  private async processGroup(deliveries: readonly ClaimedDelivery[]): Promise<void> {
    const groupable = this.options.groupable ?? (() => true);
    const items: GroupItem[] = deliveries.map((delivery) => {
      const lease: ShellLease = { deliveryId: delivery.deliveryId, attempts: delivery.attempts };
      const item: GroupItem = { delivery, lease, log: this.childLog(delivery), step: null };
      lease.defer = (step) => {
        item.step = step;
      };
      this.leases.set(delivery.deliveryId, lease);
      return item;
    });
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
    try {
      let at = 0;
      while (at < items.length) {
        let end = at + 1;
        const deferred = groupable(items[at]!.delivery.event);
        if (deferred) {
          while (end < items.length && groupable(items[end]!.delivery.event)) end++;
        }
        const run = items.slice(at, end);
        const shared: SharedContexts = new Map();
        for (const item of run) item.lease.shared = shared;
        const failure = await this.applyRun(run);
        if (failure !== null) {
          await this.retryLater(failure.item.delivery, failure.item.lease, failure.error, failure.item.log);
          await giveBack(items.indexOf(failure.item) + 1);
          return;
        }
        at = end;
      }
    } finally {
      for (const item of items) this.leases.delete(item.delivery.deliveryId);
    }
  }

  /** Dispatches a run of a key's deliveries and commits them together; returns the first failure. */
  private async applyRun(run: readonly GroupItem[]): Promise<{ item: GroupItem; error: unknown } | null> {
    const dispatch = async (item: GroupItem) => {
      if (run.length === 1) {
        item.lease.defer = undefined;
        item.lease.shared = undefined;
      }
      await this.dispatch(item.delivery);
    };
    // Side by side: the group shares its repository's lookup and GitHub reads (SharedContexts).
    const outcomes = await Promise.allSettled(run.map(dispatch));
    const failedAt = outcomes.findIndex((o) => o.status === 'rejected');
    const ready = failedAt < 0 ? run : run.slice(0, failedAt);
    const entry = (item: GroupItem): GroupEntry => ({ lease: item.lease, step: item.step });
    try {
      await this.commit(ready.map(entry));
      for (const item of ready) item.log.debug('webhooks: delivery processed');
    } catch (error) {
      if (ready.length === 1) return { item: ready[0]!, error };
      // The one transaction for all failed: apply them one by one, to find the one at fault.
      for (const item of ready) {
        try {
          await this.commit([entry(item)]);
          item.log.debug('webhooks: delivery processed');
        } catch (single) {
          return { item, error: single };
        }
      }
    }
    if (failedAt < 0) return null;
    return { item: run[failedAt]!, error: (outcomes[failedAt] as PromiseRejectedResult).reason };
  }

  private async commit(entries: readonly GroupEntry[]): Promise<void> {
    const pending = entries.filter((e) => !e.lease.completed);
    if (pending.length === 0) return;
    if (this.options.commitGroup !== undefined) {
      await this.options.commitGroup(pending);
      return;
    }
    for (const e of pending) await completeDelivery(this.options.db, e.lease, { now: this.now() });
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
    const failure = describeFailure(unwrapHandlerFailure(error));
    try {
      if (isPoisonFailure(error)) {
        const parked = await completeDelivery(this.options.db, lease, { now: this.now(), error: failure });
        if (parked)
          log.error({ error: failure }, 'webhooks: delivery parked: it fails the same way on every attempt');
        return;
      }
      if (delivery.attempts >= (this.options.maxAttempts ?? 12)) {
        await completeDelivery(this.options.db, lease, { now: this.now(), error: failure });
        log.error({ error: failure }, 'webhooks: delivery given up after repeated failures');
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
      if (kept) log.warn({ error: failure, delayMs }, 'webhooks: delivery failed; retrying later');
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
  lease: ShellLease;
  log: Logger;
  /** What the handler deferred (null: nothing to step, only to mark processed). */
  step: DeferredStep | null;
}
