import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookInbox } from '../../../app/github/inbox/webhook-inbox.ts';
import type { Store } from '../../../app/store/database.ts';
import { openTestStore } from '../../support/test-store.ts';

let store: Store;
beforeAll(async () => {
  store = await openTestStore();
});
afterAll(async () => {
  await store?.close();
});

describe('webhook inbox under concurrent deliveries', () => {
  it('stores deliveries that arrive together in arrival order, and a redelivery racing its delivery once', async () => {
    let received = 0;
    const inbox = new WebhookInbox({
      db: store.inboxDb,
      handledEvents: new Set(['push']),
      checkPayload: () => ({ ok: true }),
      received: () => received++,
      maxInserts: 1,
    });
    const body = (n: number) => JSON.stringify({ n, repository: { full_name: 'acme/app' } });
    const ids = ['d-1', 'd-2', 'd-3', 'd-2', 'd-4', 'd-1'];
    const outcomes = await Promise.all(
      ids.map((id, n) => inbox.receive({ id, name: 'push', rawBody: body(n) })),
    );
    expect(outcomes.map((o) => o.kind)).toEqual([
      'accepted',
      'accepted',
      'accepted',
      'duplicate',
      'accepted',
      'duplicate',
    ]);
    expect(received).toBe(4);
    const rows = await store.db
      .selectFrom('webhook_deliveries')
      .select(['delivery_id', 'payload'])
      .orderBy('seq')
      .execute();
    expect(rows.map((r) => r.delivery_id)).toEqual(['d-1', 'd-2', 'd-3', 'd-4']);
    // The first of each id is the one kept.
    expect(rows.map((r) => JSON.parse(r.payload!).n)).toEqual([0, 1, 2, 4]);
  });
});
