import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, ApiError } from '../../shared/client/api-client.ts';
import { ApiHarness } from '../support/api-harness.ts';
import { makeEvents, seedEvents } from '../support/seed-events.ts';

let api: ApiHarness;
let client: ApiClient;

beforeAll(async () => {
  api = await ApiHarness.start();
  const repo = await api.repository('acme/widgets');
  await seedEvents(api.store, repo, makeEvents(25, 3));
  const key = await api.key({ owner: 'acme', role: 'admin' });
  client = new ApiClient({ baseUrl: api.baseUrl, token: () => key });
}, 60_000);
afterAll(async () => {
  await api?.stop();
});

describe('shared API client against the real server', () => {
  it('pages through the log by its links', async () => {
    const ids: number[] = [];
    let result = await client.logs('acme', 'widgets', { per_page: 10 });
    ids.push(...result.page.events.map((e) => e.id));
    while (result.links.next) {
      result = await client.logs('acme', 'widgets', { url: result.links.next });
      ids.push(...result.page.events.map((e) => e.id));
    }
    expect(ids).toHaveLength(25);
    expect([...ids].sort((a, b) => b - a)).toEqual(ids);
  });

  it('pauses, reads the pause, shows it in the status, and unpauses', async () => {
    expect(await client.readPause('acme', 'widgets')).toBeNull();
    const record = await client.pause('acme', 'widgets', 'release');
    expect(record.reason).toBe('release');
    expect((await client.readPause('acme', 'widgets'))?.reason).toBe('release');
    expect((await client.status('acme', 'widgets')).pause?.reason).toBe('release');
    await client.unpause('acme', 'widgets');
    expect(await client.readPause('acme', 'widgets')).toBeNull();
  });

  it('classifies failures: forbidden, unknown repository, invalid input, unreachable server', async () => {
    const wrong = new ApiClient({ baseUrl: api.baseUrl, token: () => 'ty_wrong' });
    await expect(wrong.status('acme', 'widgets')).rejects.toMatchObject({ kind: 'forbidden', status: 403 });
    await expect(client.status('acme', 'nope')).rejects.toMatchObject({ kind: 'not_found' });
    await expect(client.pause('acme', 'widgets', '  ')).rejects.toMatchObject({
      kind: 'invalid',
      status: 422,
    });
    const down = new ApiClient({ baseUrl: 'http://127.0.0.1:1', token: () => 'ty_x' });
    const error = await down.status('acme', 'widgets').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).kind).toBe('unreachable');
  });
});
