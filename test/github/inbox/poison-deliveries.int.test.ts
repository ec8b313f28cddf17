import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { GithubPermissions } from '../../../app/api/auth/github-permissions.ts';
import { buildServer } from '../../../app/api/server.ts';
import { productionRequestPolicy } from '../../../app/github/client/octokit.ts';
import { createGithubApp, type GithubApp } from '../../../app/github/github-app.ts';
import { DeliveryProcessor } from '../../../app/github/inbox/delivery-processor.ts';
import type { Store } from '../../../app/store/database.ts';
import { saveDelivery } from '../../../app/store/webhook-deliveries.ts';
import { installationRepositoriesEvent } from '../../support/payloads.ts';
import { openTestStore } from '../../support/test-store.ts';
import { appPrivateKey } from '../../support/trainyard-tester.ts';

/*
 * A delivery that fails the same way on every attempt (a TypeError in a translator, a schema
 * error) is parked at its first failure with one error line; one that fails for a while (GitHub
 * unreachable, the database) is retried. The poison deliveries here are stored straight into the
 * inbox, as one stored before the door checked payloads would be, and processed by the real
 * GitHub App (delivery-step.ts's translators).
 */

let store: Store;
beforeAll(async () => {
  store = await openTestStore();
});
afterAll(async () => {
  await store?.close();
});
beforeEach(async () => {
  await store.db.deleteFrom('webhook_deliveries').execute();
});

const t0 = new Date('2026-11-02T09:00:00.000Z');

/** Log lines, as JSON, at info level and above. */
function capturingLogger() {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines, at: (level: number) => lines.filter((l) => l['level'] === level) };
}
const WARN = 40;
const ERROR = 50;

async function row(deliveryId: string) {
  return store.db
    .selectFrom('webhook_deliveries')
    .select(['processed_at', 'attempts', 'last_error', 'available_at'])
    .where('delivery_id', '=', deliveryId)
    .executeTakeFirstOrThrow();
}

const save = (deliveryId: string, event: string, payload: unknown, orderingKey = 'other') =>
  saveDelivery(store.db, { deliveryId, event, orderingKey, payload: JSON.stringify(payload), now: t0 });

describe('through the GitHub App', () => {
  let app: GithubApp;
  let log: ReturnType<typeof capturingLogger>;
  let close: () => Promise<void>;
  beforeAll(async () => {
    log = capturingLogger();
    const server = await buildServer({
      store,
      github: new GithubPermissions({ apiBaseUrl: 'http://127.0.0.1:9' }),
    });
    app = await createGithubApp({
      store,
      server,
      // Nothing listens on port 9: any request to GitHub fails to connect.
      credentials: {
        appId: 1,
        privateKey: appPrivateKey(),
        baseUrl: 'http://127.0.0.1:9',
        webhookSecret: 's',
      },
      logger: log.logger,
      appSlug: 'trainyard',
      // Production's transport, without its retries: one attempt fails at once.
      policy: { ...productionRequestPolicy, retries: 0, throttle: false },
      now: () => t0,
    });
    close = () => server.close();
  });
  afterAll(async () => {
    await app?.stop();
    await close?.();
  });
  beforeEach(() => {
    log.lines.length = 0;
  });

  it('a repository event whose body is a ping: a TypeError ⇒ parked at once, one error line naming the delivery, event and reason', async () => {
    await save('poison-1', 'repository', { zen: 'ping' });
    expect(await app.processor.runUntilIdle()).toBe(1);
    const parked = await row('poison-1');
    expect(parked).toMatchObject({
      attempts: 1,
      last_error: expect.stringMatching(/^TypeError: Cannot read/),
    });
    expect(parked.processed_at).not.toBeNull();
    expect(log.at(WARN)).toEqual([]);
    expect(log.at(ERROR)).toEqual([
      expect.objectContaining({
        delivery: 'poison-1',
        event: 'repository',
        error: parked.last_error,
        msg: 'webhooks: delivery parked: it fails the same way on every attempt',
      }),
    ]);
    // Nothing is left to retry.
    expect(await app.processor.runUntilIdle()).toBe(0);
  });

  it('GitHub unreachable while reading an added repository: retried later, not parked', async () => {
    const payload = installationRepositoriesEvent('added');
    await save(
      'transient-1',
      'installation_repositories',
      payload,
      `installation:${payload.installation.id}`,
    );
    expect(await app.processor.runUntilIdle()).toBe(1);
    const retried = await row('transient-1');
    expect(retried).toMatchObject({ attempts: 1, processed_at: null });
    expect(new Date(retried.available_at!).getTime()).toBeGreaterThan(t0.getTime());
    expect(log.at(ERROR)).toEqual([]);
    expect(log.at(WARN)).toEqual([
      expect.objectContaining({ delivery: 'transient-1', msg: 'webhooks: delivery failed; retrying later' }),
    ]);
  });
});

describe('the processor tells failures that pass from those that do not', () => {
  const processorThrowing = (error: () => unknown) => {
    const log = capturingLogger();
    const processor = new DeliveryProcessor({
      db: store.db,
      translate: async () => {
        throw error();
      },
      commit: async () => {},
      groupable: () => true,
      logger: log.logger,
      now: () => t0,
      random: () => 0,
    });
    return { processor, log };
  };

  it.each([
    ['a database connection lost', () => new Error('Connection terminated unexpectedly')],
    [
      'a serialization failure',
      () => Object.assign(new Error('could not serialize access'), { code: '40001' }),
    ],
    [
      'fetch failing to connect',
      () => new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED') }),
    ],
  ])('%s ⇒ retried', async (_, error) => {
    await save('d-1', 'push', {});
    const { processor, log } = processorThrowing(error);
    await processor.runUntilIdle();
    expect(await row('d-1')).toMatchObject({ attempts: 1, processed_at: null });
    expect(log.at(ERROR)).toEqual([]);
  });

  it.each([
    ['a TypeError', () => new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['a schema error', () => z.object({ id: z.number() }).safeParse({}).error],
    ['a ReferenceError', () => new ReferenceError('x is not defined')],
  ])('%s ⇒ parked', async (_, error) => {
    await save('d-1', 'push', {});
    const { processor, log } = processorThrowing(error);
    await processor.runUntilIdle();
    const parked = await row('d-1');
    expect(parked.processed_at).not.toBeNull();
    expect(log.at(ERROR)).toHaveLength(1);
  });
});
