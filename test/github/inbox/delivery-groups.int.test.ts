import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DeliveryProcessor } from '../../../app/github/inbox/delivery-processor.ts';
import type { GroupEntry } from '../../../app/github/inbox/delivery-step.ts';
import type { Store } from '../../../app/store/database.ts';
import {
  claimDeliveries,
  completeDeliveries,
  DeliveryLeaseLostError,
  saveDelivery,
} from '../../../app/store/webhook-deliveries.ts';
import { openTestStore } from '../../support/test-store.ts';

/*
 * Group commit (delivery-processor.ts): a repository's pending deliveries are claimed together,
 * translated, and their steps committed in one transaction. The translation and the engine are
 * stand-ins here: a translation answers with the delivery's id as its input, and a commit marks
 * the group processed in a transaction (as runStep does) and records what it applied.
 */

let store: Store;
const t0 = new Date('2026-11-02T09:00:00.000Z');
let clock = t0;
const at = (ms: number) => new Date(t0.getTime() + ms);

beforeAll(async () => {
  store = await openTestStore();
});
afterAll(async () => {
  await store?.close();
});
beforeEach(async () => {
  clock = t0;
  await store.db.deleteFrom('webhook_deliveries').execute();
});

const save = (deliveryId: string, key: string) =>
  saveDelivery(store.db, {
    deliveryId,
    event: 'check_run',
    orderingKey: `repository:${key}`,
    payload: '{}',
    now: clock,
  });

async function row(deliveryId: string) {
  return store.db
    .selectFrom('webhook_deliveries')
    .select(['processed_at', 'attempts', 'leased_until', 'last_error'])
    .where('delivery_id', '=', deliveryId)
    .executeTakeFirstOrThrow();
}

interface Harness {
  processor: DeliveryProcessor;
  /** Delivery ids in the order their steps committed (a delivery applied twice shows twice). */
  applied: string[];
  /** Each commit's delivery ids. */
  commits: string[][];
  /** Delivery ids in the order their translations began. */
  translated: string[];
}

function harness(params: {
  failTranslation?: (id: string) => boolean;
  failCommit?: (ids: string[]) => boolean;
  beforeCommit?: (ids: string[]) => Promise<void>;
  leaseMs?: number;
}): Harness {
  const applied: string[] = [];
  const translated: string[] = [];
  const commits: string[][] = [];
  const processor: DeliveryProcessor = new DeliveryProcessor({
    db: store.db,
    logger: pino({ level: 'silent' }),
    now: () => clock,
    random: () => 0,
    backoff: { baseMs: 1_000, maxMs: 1_000 },
    ...(params.leaseMs === undefined ? {} : { leaseMs: params.leaseMs }),
    groupable: () => true,
    translate: async ({ id }) => {
      translated.push(id);
      if (params.failTranslation?.(id)) throw new Error(`GitHub 502 for ${id}`);
      return {
        kind: 'inputs',
        repositoryId: '1',
        bootstrap: [],
        inputs: [{ type: 'tick', key: id } as never],
      };
    },
    commit: async (entries: readonly GroupEntry[]) => {
      const ids = entries.map((e) => e.lease.deliveryId);
      await params.beforeCommit?.(ids);
      if (params.failCommit?.(ids)) throw new Error(`the engine refused ${ids.join(',')}`);
      await store.db.transaction().execute(async (tx) => {
        const marked = await completeDeliveries(
          tx,
          entries.map((e) => e.lease),
          { now: clock },
        );
        const lost = ids.find((id) => !marked.has(id));
        if (lost !== undefined) throw new DeliveryLeaseLostError(lost);
      });
      for (const e of entries) {
        const key = (e.step?.kind === 'inputs' ? (e.step.inputs[0] as { key?: string }) : undefined)?.key;
        expect(key).toBe(e.lease.deliveryId);
        applied.push(e.lease.deliveryId);
      }
      commits.push(ids);
    },
  });
  return { processor, applied, commits, translated };
}

describe('claiming a repository’s deliveries together', () => {
  it('claims each key’s run of claimable deliveries in arrival order, up to perKey', async () => {
    for (const id of ['a-1', 'b-1', 'a-2', 'a-3', 'b-2', 'a-4']) await save(id, id.slice(0, 1));
    const claimed = await claimDeliveries(store.db, { limit: 10, leaseMs: 60_000, now: t0, perKey: 3 });
    expect(claimed.map((d) => d.deliveryId)).toEqual(['a-1', 'b-1', 'a-2', 'a-3', 'b-2']);
    // a-4 waits behind the leased run; nothing else can be claimed.
    expect(await claimDeliveries(store.db, { limit: 10, leaseMs: 60_000, now: t0, perKey: 3 })).toEqual([]);
  });

  it('a run stops at a delivery that is not claimable; the ones after it stay unclaimed', async () => {
    for (const id of ['a-1', 'a-2', 'a-3']) await save(id, 'a');
    // a-2 leased by someone (an instance that claimed it before a-1 was stored cannot exist, but
    // a lease on it must still end the run).
    await store.db
      .updateTable('webhook_deliveries')
      .set({ leased_until: at(60_000), attempts: 1 })
      .where('delivery_id', '=', 'a-2')
      .execute();
    const claimed = await claimDeliveries(store.db, { limit: 10, leaseMs: 60_000, now: t0, perKey: 10 });
    expect(claimed.map((d) => d.deliveryId)).toEqual(['a-1']);
    expect((await row('a-3')).attempts).toBe(0);
    expect((await row('a-3')).leased_until).toBeNull();
  });
});

describe('group commit', () => {
  it('applies a repository’s pending deliveries in arrival order, in one commit, each once', async () => {
    for (const id of ['a-1', 'a-2', 'b-1', 'a-3', 'a-4', 'b-2']) await save(id, id.slice(0, 1));
    const h = harness({});
    await h.processor.runUntilIdle();
    expect(h.applied.filter((id) => id.startsWith('a'))).toEqual(['a-1', 'a-2', 'a-3', 'a-4']);
    expect(h.applied.filter((id) => id.startsWith('b'))).toEqual(['b-1', 'b-2']);
    expect(h.commits).toContainEqual(['a-1', 'a-2', 'a-3', 'a-4']);
    expect(h.commits).toContainEqual(['b-1', 'b-2']);
    for (const id of h.applied) expect((await row(id)).processed_at).not.toBeNull();
  });

  it('a delivery that fails to translate: the ones before it apply, it is retried, the ones after it wait unapplied', async () => {
    for (const id of ['a-1', 'a-2', 'a-3', 'a-4', 'a-5']) await save(id, 'a');
    let failing = true;
    const h = harness({ failTranslation: (id) => failing && id === 'a-3' });
    await h.processor.runUntilIdle();
    expect(h.applied).toEqual(['a-1', 'a-2']);
    expect(await row('a-3')).toMatchObject({ processed_at: null, attempts: 1, leased_until: null });
    expect((await row('a-3')).last_error).toContain('GitHub 502 for a-3');
    // Given back: not leased, and the claim did not count as an attempt.
    expect(await row('a-4')).toMatchObject({ processed_at: null, attempts: 0, leased_until: null });
    expect(await row('a-5')).toMatchObject({ processed_at: null, attempts: 0, leased_until: null });

    failing = false;
    clock = at(1_000);
    await h.processor.runUntilIdle();
    expect(h.applied).toEqual(['a-1', 'a-2', 'a-3', 'a-4', 'a-5']);
    expect(h.commits.at(-1)).toEqual(['a-3', 'a-4', 'a-5']);
    expect((await row('a-3')).attempts).toBe(2);
  });

  it('a group whose commit fails is applied one by one: the others apply once, the failing one is retried', async () => {
    for (const id of ['a-1', 'a-2', 'a-3', 'a-4']) await save(id, 'a');
    let failing = true;
    const h = harness({ failCommit: (ids) => failing && ids.includes('a-3') });
    await h.processor.runUntilIdle();
    expect(h.applied).toEqual(['a-1', 'a-2']);
    expect(h.commits).toEqual([['a-1'], ['a-2']]);
    expect(await row('a-3')).toMatchObject({ processed_at: null, attempts: 1 });
    expect((await row('a-3')).last_error).toContain('the engine refused a-3');
    expect(await row('a-4')).toMatchObject({ processed_at: null, attempts: 0, leased_until: null });

    failing = false;
    clock = at(1_000);
    await h.processor.runUntilIdle();
    expect(h.applied).toEqual(['a-1', 'a-2', 'a-3', 'a-4']);
  });

  it('a group whose lease ran out and was claimed elsewhere applies nothing; the other claim applies it once', async () => {
    for (const id of ['a-1', 'a-2', 'a-3']) await save(id, 'a');
    let taken: Awaited<ReturnType<typeof claimDeliveries>> = [];
    const h = harness({
      leaseMs: 10_000,
      beforeCommit: async () => {
        if (taken.length > 0) return;
        // Translating took longer than the lease: another instance claims the group meanwhile.
        taken = await claimDeliveries(store.db, { limit: 10, leaseMs: 60_000, now: at(10_000), perKey: 10 });
      },
    });
    await h.processor.runUntilIdle();
    expect(taken.map((d) => d.deliveryId)).toEqual(['a-1', 'a-2', 'a-3']);
    expect(h.applied).toEqual([]);
    // The other claim's leases are untouched: neither completed, retried nor given back by the first.
    for (const d of taken) {
      expect(await row(d.deliveryId)).toMatchObject({ processed_at: null, attempts: 2, last_error: null });
      expect((await row(d.deliveryId)).leased_until).toEqual(at(70_000));
    }
    const marked = await completeDeliveries(store.db, taken, { now: at(10_000) });
    expect([...marked].sort()).toEqual(['a-1', 'a-2', 'a-3']);
  });
});
