import { createHmac, randomUUID } from 'node:crypto';
import { type SandboxWebhook, sandboxWebhookChannel } from '../contract-channels.ts';
import type { Delivery } from '../hook-delivery.ts';
import type { SandboxGithub } from '../model.ts';
import type { SandboxUrls } from '../rest/urls.ts';
import { renderWebhook } from './payloads.ts';

export interface WebhookTarget {
  /** The app's webhook endpoint, on loopback. */
  url: string;
  secret: string;
}

export interface WebhookDeliveryOptions {
  github: SandboxGithub;
  urls: SandboxUrls;
  target?: WebhookTarget;
  /** Delivery ids; random UUIDs by default (an app that restarts must not take new deliveries for duplicates). */
  deliveryIds?: () => string;
  /** Waits between attempts of one delivery; its length + 1 is the number of attempts. */
  retryDelaysMs?: readonly number[];
  /** GitHub gives an endpoint 10 s to answer. */
  timeoutMs?: number;
  /**
   * How many past deliveries deliveries() keeps (default: all). A long-running demo sends
   * thousands of bodies of tens of kilobytes each; tests want them all.
   */
  logLimit?: number;
  /**
   * Resolves once every change made so far is on disk (the sandbox's journal): a webhook goes
   * out only after the change it tells of, as GitHub's do. Absent: nothing is kept on disk.
   */
  durable?: () => Promise<void>;
}

/** GitHub's hook id for the app's webhook (any stable number). */
const hookId = '420100';

/**
 * Turns every sandbox event into the webhook GitHub would send, signed with the app's secret,
 * and POSTs it to the app: in order per repository (a delivery waits for the previous one of
 * its repository), retried on failure, each one recorded for tests and redelivery.
 */
export class WebhookDelivery {
  private target: WebhookTarget | undefined;
  private readonly log: Delivery[] = [];
  private readonly renderFailures: Error[] = [];
  private readonly queues = new Map<string, Delivery[]>();
  /** Enqueue order across repositories, so pending() keeps the order events happened in. */
  private readonly sequence = new WeakMap<Delivery, number>();
  private enqueued = 0;
  private readonly running = new Set<string>();
  private idleWaiters: (() => void)[] = [];
  private readonly unsubscribe: () => void;
  private closed = false;
  private held = false;
  private readonly retryDelaysMs: readonly number[];
  private readonly nextId: () => string;

  constructor(private readonly options: WebhookDeliveryOptions) {
    this.target = options.target;
    this.retryDelaysMs = options.retryDelaysMs ?? [200, 1000, 5000];
    this.nextId = options.deliveryIds ?? randomUUID;
    this.unsubscribe = options.github.on((event) => {
      // Rendered now: the payload shows the state as of the event, not as of the delivery.
      let webhook: ReturnType<typeof renderWebhook>;
      try {
        webhook = renderWebhook(options.github, options.urls, event);
      } catch (error) {
        // A sandbox bug must not fail the REST call that caused the event; flush() reports it.
        this.renderFailures.push(error as Error);
        return;
      }
      if (!webhook) return;
      const action = webhook.payload['action'];
      const body = JSON.stringify(webhook.payload);
      if (sandboxWebhookChannel.hasSubscribers) {
        const published: SandboxWebhook = {
          event: webhook.name,
          action: typeof action === 'string' ? action : null,
          body,
        };
        sandboxWebhookChannel.publish(published);
      }
      this.enqueue({
        id: this.nextId(),
        event: webhook.name,
        action: typeof action === 'string' ? action : null,
        body,
        repositoryId: webhook.repositoryId,
        installationId: webhook.installationId,
        redelivery: false,
        status: 'pending',
        attempts: [],
      });
    });
  }

  /** Deliveries wait, as during a GitHub webhook outage, until release(). */
  hold(): void {
    this.held = true;
  }

  /**
   * Sends what was held. `newest-first` sends each repository's held deliveries in the reverse
   * order of their events, as GitHub may when it redelivers after an outage: the app must not
   * take a late payload for the current state.
   */
  release(order: 'in-order' | 'newest-first' = 'in-order'): void {
    this.held = false;
    // A repository whose delivery is still in flight keeps its order (its worker shifts the head).
    if (order === 'newest-first')
      for (const [key, queue] of this.queues) if (!this.running.has(key)) queue.reverse();
    for (const key of this.queues.keys()) this.drain(key);
  }

  /** Where deliveries go; deliveries made before a target is set wait for one. */
  configure(target: WebhookTarget): void {
    this.target = target;
    for (const key of this.queues.keys()) this.drain(key);
  }

  /** Every delivery so far (the newest `logLimit` of them), oldest first. */
  deliveries(): readonly Delivery[] {
    return this.log;
  }

  /** Deliveries not yet delivered nor given up on, oldest first: what a stopping sandbox keeps. */
  pending(): Delivery[] {
    return [...this.queues.values()].flat().sort((a, b) => this.order(a) - this.order(b));
  }

  /**
   * Sends deliveries a previous sandbox could not, with their ids and bodies: the app saw none
   * of them, or at worst the one in flight when it stopped, which its delivery id lets it
   * recognise, as it would a GitHub redelivery.
   */
  resume(deliveries: readonly Delivery[]): void {
    // Already on disk: they are not journalled again.
    for (const delivery of deliveries)
      this.enqueue({ ...delivery, status: 'pending', attempts: [] }, { stored: true });
  }

  find(id: string): Delivery | undefined {
    return this.log.find((d) => d.id === id);
  }

  /** Sends a past delivery again, with the same id and body (GitHub's "Redeliver"). */
  redeliver(id: string): Delivery {
    const original = this.find(id);
    if (!original) throw new Error(`no delivery ${id}`);
    const again: Delivery = { ...original, redelivery: true, status: 'pending', attempts: [] };
    this.enqueue(again);
    return again;
  }

  /**
   * Resolves once every delivery made so far was delivered or given up on; rejects when an
   * event could not be rendered as a webhook (a sandbox bug that would otherwise go unseen).
   */
  async flush(): Promise<void> {
    while (this.pendingCount() > 0 && !this.closed) {
      if (!this.target) throw new Error('webhooks are waiting for a target: call configure() first');
      if (this.held) throw new Error('webhooks are held: call release() first');
      await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    }
    const [failure] = this.renderFailures.splice(0);
    if (failure)
      throw new Error(`the sandbox could not render a webhook: ${failure.message}`, { cause: failure });
  }

  pendingCount(): number {
    let n = 0;
    for (const queue of this.queues.values()) n += queue.length;
    return n;
  }

  close(): void {
    this.closed = true;
    this.unsubscribe();
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  private order(delivery: Delivery): number {
    return this.sequence.get(delivery) ?? 0;
  }

  private enqueue(delivery: Delivery, options: { stored?: boolean } = {}): void {
    if (!options.stored) this.options.github.changes.deliveryQueued(delivery);
    this.sequence.set(delivery, this.enqueued++);
    this.log.push(delivery);
    if (this.options.logLimit !== undefined && this.log.length > this.options.logLimit)
      this.log.splice(0, this.log.length - this.options.logLimit);
    const key = delivery.repositoryId === null ? 'account' : `repo:${delivery.repositoryId}`;
    const queue = this.queues.get(key) ?? [];
    queue.push(delivery);
    this.queues.set(key, queue);
    this.drain(key);
  }

  /** One worker per repository sends its deliveries one after the other. */
  private drain(key: string): void {
    if (this.running.has(key) || !this.target || this.closed || this.held) return;
    this.running.add(key);
    void (async () => {
      try {
        const queue = this.queues.get(key)!;
        while (queue.length > 0 && !this.closed && !this.held && this.target) {
          await this.send(queue[0]!);
          queue.shift();
        }
      } finally {
        this.running.delete(key);
        // Waiters re-check what is left; a new delivery since then has started its own worker.
        for (const resolve of this.idleWaiters.splice(0)) resolve();
      }
    })();
  }

  private async send(delivery: Delivery): Promise<void> {
    for (let attempt = 0; attempt <= this.retryDelaysMs.length; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, this.retryDelaysMs[attempt - 1]));
      const target = this.target;
      if (!target || this.closed) return;
      const stored = await this.durable();
      const outcome = stored ?? (await this.post(target, delivery));
      delivery.attempts.push(outcome);
      if (outcome.status !== null && outcome.status >= 200 && outcome.status < 300) {
        delivery.status = 'delivered';
        this.options.github.changes.deliveryDone(delivery.id);
        return;
      }
    }
    delivery.status = 'failed';
    this.options.github.changes.deliveryDone(delivery.id);
  }

  /** Waits until the change this delivery tells of is on disk; a failed attempt when it cannot be. */
  private async durable(): Promise<Delivery['attempts'][number] | null> {
    if (!this.options.durable) return null;
    try {
      await this.options.durable();
      return null;
    } catch (error) {
      return { status: null, error: `not sent: the change is not on disk (${(error as Error).message})` };
    }
  }

  private async post(target: WebhookTarget, delivery: Delivery): Promise<Delivery['attempts'][number]> {
    const sign = (algorithm: 'sha1' | 'sha256') =>
      `${algorithm}=${createHmac(algorithm, target.secret).update(delivery.body).digest('hex')}`;
    try {
      const response = await fetch(target.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'GitHub-Hookshot/sandbox',
          'x-github-event': delivery.event,
          'x-github-delivery': delivery.id,
          'x-github-hook-id': hookId,
          'x-github-hook-installation-target-id': String(this.options.github.app.id),
          'x-github-hook-installation-target-type': 'integration',
          'x-hub-signature': sign('sha1'),
          'x-hub-signature-256': sign('sha256'),
        },
        body: delivery.body,
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
      });
      await response.body?.cancel();
      return { status: response.status, error: null };
    } catch (error) {
      return { status: null, error: (error as Error).message };
    }
  }
}
