import type { Db } from '../../store/database.ts';
import { type NewDelivery, saveDeliveries } from '../../store/webhook-deliveries.ts';
import type { DeliveryOutcome, WebhookReceiver } from './webhook-endpoint.ts';

export interface WebhookInboxOptions {
  db: Db;
  /** Events worth storing; the rest is acknowledged and dropped. */
  handledEvents: ReadonlySet<string>;
  /**
   * Whether a handled event's payload has what its processing reads (translation/webhooks/payload.schema.ts):
   * one that has not is refused at the door rather than stored, accepted and failing later.
   */
  checkPayload: (event: string, payload: object) => { ok: true } | { ok: false; problem: string };
  now?: () => Date;
  /** A delivery of this event was stored: the processor has work (and the metrics count it). */
  received: (event: string) => void;
  /** Inserts under way at once; deliveries arriving meanwhile are stored together by the next. */
  maxInserts?: number;
}

/**
 * The receiving half of the webhook path, once the endpoint has verified the signature: check
 * the payload, store the delivery durably (a redelivery of a stored id is recognised) and
 * acknowledge. Processing happens in delivery-processor.ts, so a slow GitHub or a
 * crash never loses a delivery.
 */
export class WebhookInbox implements WebhookReceiver {
  /** Deliveries waiting for an insert, each with its requester's answer. */
  private waiting: {
    delivery: NewDelivery;
    resolve: (stored: boolean) => void;
    reject: (error: unknown) => void;
  }[] = [];
  private inserts = 0;

  constructor(private readonly options: WebhookInboxOptions) {}

  async receive(delivery: { id: string; name: string; rawBody: string }): Promise<DeliveryOutcome> {
    let payload: unknown;
    try {
      payload = JSON.parse(delivery.rawBody);
    } catch {
      return { kind: 'invalid_payload', message: 'the body is not JSON' };
    }
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
      return { kind: 'invalid_payload', message: 'the body is not a JSON object' };
    }
    if (!this.options.handledEvents.has(delivery.name)) return { kind: 'ignored' };
    const check = this.options.checkPayload(delivery.name, payload);
    if (!check.ok) return { kind: 'invalid_payload', message: check.problem };
    const saved = await this.store({
      deliveryId: delivery.id,
      event: delivery.name,
      orderingKey: computeOrderingKey(payload as Record<string, unknown>),
      payload: delivery.rawBody,
      now: this.options.now?.() ?? new Date(),
    });
    if (!saved) return { kind: 'duplicate' };
    this.options.received(delivery.name);
    return { kind: 'accepted' };
  }

  /**
   * Stores a delivery durably before it is acknowledged. Deliveries that arrive while the inserts
   * allowed are under way wait and are stored together by the next one, in arrival order (group
   * commit: under load one round trip stores many; alone, a delivery is stored at once).
   */
  private store(delivery: NewDelivery): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ delivery, resolve, reject });
      this.flush();
    });
  }

  private flush(): void {
    if (this.waiting.length === 0 || this.inserts >= (this.options.maxInserts ?? 2)) return;
    const batch = this.waiting;
    this.waiting = [];
    this.inserts++;
    saveDeliveries(
      this.options.db,
      batch.map((w) => w.delivery),
    )
      .then(
        (stored) => {
          for (const w of batch) {
            // An id twice in one batch (a redelivery racing the delivery): the first is the one stored.
            const first = stored.delete(w.delivery.deliveryId);
            w.resolve(first);
          }
        },
        (error: unknown) => {
          for (const w of batch) w.reject(error);
        },
      )
      .finally(() => {
        this.inserts--;
        this.flush();
      });
  }
}

/** A repository's deliveries apply in arrival order; installation events in theirs. */
function computeOrderingKey(payload: Record<string, unknown>): string {
  const repository = payload.repository as { full_name?: unknown } | undefined;
  if (typeof repository?.full_name === 'string') return `repository:${repository.full_name.toLowerCase()}`;
  const installation = payload.installation as { id?: unknown } | undefined;
  if (typeof installation?.id === 'number') return `installation:${installation.id}`;
  return 'other';
}
