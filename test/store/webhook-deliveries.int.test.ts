import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../app/store/database.ts';
import {
  claimDeliveries,
  completeDelivery,
  countPendingDeliveries,
  findNextDeliveryTime,
  pruneDeliveries,
  retryDelivery,
  saveDeliveries,
  saveDelivery,
} from '../../app/store/webhook-deliveries.ts';
import { openTestStore } from '../support/test-store.ts';

let store: Store;
const t0 = new Date('2026-11-02T09:00:00.000Z');
const at = (ms: number) => new Date(t0.getTime() + ms);
const days = (n: number) => at(n * 86_400_000);

beforeAll(async () => {
  store = await openTestStore();
});

afterAll(async () => {
  await store?.close();
});

const save = (deliveryId: string, orderingKey = 'repository:acme/app', now = t0) =>
  saveDelivery(store.db, { deliveryId, event: 'push', orderingKey, payload: `{"id":"${deliveryId}"}`, now });

async function drain(now: Date) {
  for (const d of await claimDeliveries(store.db, { limit: 100, leaseMs: 60_000, now })) {
    await completeDelivery(store.db, d, { now });
  }
}

describe('webhook inbox', () => {
  it('stores a delivery id once: a redelivery is recognised', async () => {
    expect(await save('d-1')).toBe(true);
    expect(await save('d-1', 'repository:acme/app', days(1))).toBe(false);
    expect(await save('d-2')).toBe(true);
    await drain(t0);
    expect(await save('d-1')).toBe(false);
  });

  it('stores several deliveries in one statement, in the given order, each id once', async () => {
    await save('m-0', 'repository:m');
    const stored = await saveDeliveries(
      store.db,
      ['m-1', 'm-0', 'm-2', 'm-1'].map((deliveryId) => ({
        deliveryId,
        event: 'push',
        orderingKey: 'repository:m',
        payload: `{"id":"${deliveryId}"}`,
        now: t0,
      })),
    );
    expect([...stored].sort()).toEqual(['m-1', 'm-2']);
    const order: string[] = [];
    for (;;) {
      const [next] = await claimDeliveries(store.db, { limit: 1, leaseMs: 60_000, now: t0 });
      if (next === undefined) break;
      if (next.orderingKey === 'repository:m') order.push(next.deliveryId);
      await completeDelivery(store.db, next, { now: t0 });
    }
    expect(order).toEqual(['m-0', 'm-1', 'm-2']);
  });

  it('stores each body as it came, byte for byte, several in one statement', async () => {
    const bodies = [
      '{"comment":{"body":"say \\"hi\\" \\\\ C:\\\\path"}}',
      '{\n  "title": "caf\u00e9 \u2014 \ud83d\ude80",\n\t"escaped": "\\u00e9 \\ud83d \\u0000 \\n"\n}',
      '{"empty":"","array":[1,{"a":null}],"tail":"}\\""}',
    ];
    const stored = await saveDeliveries(
      store.db,
      bodies.map((payload, i) => ({
        deliveryId: `body-${i}`,
        event: 'issue_comment',
        orderingKey: `repository:bodies-${i}`,
        payload,
        now: t0,
      })),
    );
    expect(stored.size).toBe(3);
    const claimed = await claimDeliveries(store.db, { limit: 100, leaseMs: 60_000, now: t0 });
    const byId = new Map(claimed.map((d) => [d.deliveryId, d.payload]));
    expect(bodies.map((_, i) => byId.get(`body-${i}`))).toEqual(bodies);
    for (const d of claimed) await completeDelivery(store.db, d, { now: t0 });
  });

  it('forgets a delivery stored in a transaction that rolled back', async () => {
    await expect(
      store.db.transaction().execute(async (tx) => {
        expect(
          await saveDelivery(tx, {
            deliveryId: 'd-rolled',
            event: 'push',
            orderingKey: 'x',
            payload: '{}',
            now: t0,
          }),
        ).toBe(true);
        throw new Error('the step failed');
      }),
    ).rejects.toThrow('the step failed');
    expect(await save('d-rolled', 'x')).toBe(true);
    await drain(t0);
  });

  it('claims the oldest delivery per ordering key, in arrival order, and nothing leased', async () => {
    await save('a-1', 'repository:a');
    await save('b-1', 'repository:b');
    await save('a-2', 'repository:a');
    const first = await claimDeliveries(store.db, { limit: 10, leaseMs: 60_000, now: t0 });
    expect(first.map((d) => d.deliveryId)).toEqual(['a-1', 'b-1']);
    expect(first[0]).toMatchObject({ event: 'push', payload: '{"id":"a-1"}', attempts: 1 });
    // a-2 waits behind a-1, which is leased.
    expect(await claimDeliveries(store.db, { limit: 10, leaseMs: 60_000, now: at(1000) })).toEqual([]);
    expect(await completeDelivery(store.db, first[0]!, { now: at(1000) })).toBe(true);
    expect(await completeDelivery(store.db, first[0]!, { now: at(1000) })).toBe(false);
    await completeDelivery(store.db, first[1]!, { now: at(1000) });
    const second = await claimDeliveries(store.db, { limit: 10, leaseMs: 60_000, now: at(2000) });
    expect(second.map((d) => d.deliveryId)).toEqual(['a-2']);
    await completeDelivery(store.db, second[0]!, { now: at(2000) });
    expect(await countPendingDeliveries(store.db)).toBe(0);
  });

  it('retries after a failure at the time asked, and holds later deliveries of the key back meanwhile', async () => {
    await save('r-1', 'repository:r');
    await save('r-2', 'repository:r');
    const [claim] = await claimDeliveries(store.db, { limit: 10, leaseMs: 60_000, now: t0 });
    expect(claim?.deliveryId).toBe('r-1');
    expect(await retryDelivery(store.db, claim!, { error: 'GitHub 502', availableAt: at(30_000) })).toBe(
      true,
    );
    expect(await findNextDeliveryTime(store.db)).toEqual(at(30_000));
    expect(await claimDeliveries(store.db, { limit: 10, leaseMs: 60_000, now: at(10_000) })).toEqual([]);
    const [again] = await claimDeliveries(store.db, { limit: 10, leaseMs: 60_000, now: at(30_000) });
    expect(again).toMatchObject({ deliveryId: 'r-1', attempts: 2 });
    // The first claim's lease is gone: it can neither complete nor retry.
    expect(await completeDelivery(store.db, claim!, { now: at(30_000) })).toBe(false);
    expect(await completeDelivery(store.db, again!, { now: at(30_000) })).toBe(true);
    await drain(at(30_000));
  });

  it('takes over a delivery whose lease ran out (a crashed instance)', async () => {
    await save('c-1', 'repository:c');
    const [claim] = await claimDeliveries(store.db, { limit: 10, leaseMs: 60_000, now: t0 });
    expect(await claimDeliveries(store.db, { limit: 10, leaseMs: 60_000, now: at(59_999) })).toEqual([]);
    const [taken] = await claimDeliveries(store.db, { limit: 10, leaseMs: 60_000, now: at(60_000) });
    expect(taken).toMatchObject({ deliveryId: 'c-1', attempts: 2 });
    expect(await completeDelivery(store.db, claim!, { now: at(60_000) })).toBe(false);
    expect(await completeDelivery(store.db, taken!, { now: at(60_000) })).toBe(true);
  });

  it('prunes processed deliveries older than seven days, and only those', async () => {
    await save('old', 'p', days(-10));
    await save('recent', 'p', days(-6));
    await save('old-unprocessed', 'q', days(-10));
    const [oldClaim] = await claimDeliveries(store.db, { limit: 1, leaseMs: 1, now: days(-10) });
    expect(oldClaim?.deliveryId).toBe('old');
    await completeDelivery(store.db, oldClaim!, { now: days(-10) });
    const [recent] = await claimDeliveries(store.db, { limit: 10, leaseMs: 1, now: days(-6) });
    await completeDelivery(store.db, recent!, { now: days(-6) });
    expect(await pruneDeliveries(store.db, { now: t0 })).toBe(1);
    expect(await save('old', 'p')).toBe(true);
    expect(await save('recent', 'p')).toBe(false);
    expect(await countPendingDeliveries(store.db)).toBe(2);
  });
});
