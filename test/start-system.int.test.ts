import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readSettings } from '../app/settings.ts';
import { startSystem, type TrainyardSystem } from '../app/start-system.ts';
import type { Store } from '../app/store/database.ts';
import { GITHUB_API, useGithubNock } from './support/nock/github-nock.ts';
import { openTestStore } from './support/test-store.ts';
import { appPrivateKey, postWebhook, WEBHOOK_SECRET } from './support/trainyard-tester.ts';

const github = useGithubNock();
let dir: string;
let store: Store;
let system: TrainyardSystem | undefined;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'trainyard-start-'));
  store = await openTestStore();
});
afterEach(async () => {
  await system?.stop();
  system = undefined;
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('npm start with GitHub App credentials (production mode)', () => {
  it('talks to the configured GitHub, asks it for the App’s slug, and never starts the sandbox', async () => {
    github.scope().get('/api/v3/app').reply(200, { id: 4242, slug: 'shipit', name: 'Ship it' });
    const settings = readSettings({
      PORT: '0',
      HOST: '127.0.0.1',
      TRAINYARD_DATA_DIR: join(dir, 'db'),
      GITHUB_API_URL: GITHUB_API,
      APP_ID: '4242',
      // As environments often carry a PEM: on one line, with literal \n.
      PRIVATE_KEY: appPrivateKey().replaceAll('\n', '\\n'),
      WEBHOOK_SECRET,
    });
    system = await startSystem({ settings, store, logger: pino({ level: 'silent' }) });

    expect(system.side.mode).toBe('production');
    expect(system.side.sandbox).toBeUndefined();
    expect(system.side.credentials.baseUrl).toBe(GITHUB_API);
    expect(system.app.appSlug).toBe('shipit');
    // The sandbox keeps its state beside the data directory: nothing was made there.
    expect(existsSync(join(dir, 'sandbox'))).toBe(false);
    expect(github.isDone()).toBe(true);

    // The webhook endpoint checks signatures with the configured secret.
    const body = JSON.stringify({ zen: 'Keep it logically awesome.', hook_id: 1 });
    const signed = await postWebhook(system.address, { id: 'ping-1', event: 'ping', body });
    expect(signed.status).toBeLessThan(300);
    const forged = await postWebhook(system.address, { id: 'ping-2', event: 'ping', body, secret: 'other' });
    expect(forged.status).toBe(401);
  });

  it('without credentials it is the sandbox, on loopback, with the sandbox’s own GitHub', async () => {
    const settings = readSettings({ PORT: '0', HOST: '127.0.0.1', TRAINYARD_DATA_DIR: join(dir, 'db') });
    system = await startSystem({ settings, store, logger: pino({ level: 'silent' }) });
    expect(system.side.mode).toBe('sandbox');
    expect(new URL(system.side.credentials.baseUrl).hostname).toBe('127.0.0.1');
    expect(existsSync(join(dir, 'sandbox'))).toBe(true);
  });
});
