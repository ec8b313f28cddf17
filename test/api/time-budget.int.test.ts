import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiHarness } from '../support/api-harness.ts';
import { backend } from '../support/test-store.ts';

/*
 * On PostgreSQL every API read runs under statement_timeout: a read that cannot finish in
 * time (here: it waits for a lock another session holds) is cancelled and answered 503 with
 * the contract's body, and the server goes on answering. PGlite has no statement timeout.
 */
describe.skipIf(backend === 'pglite')('the time budget of a request (PostgreSQL)', () => {
  let api: ApiHarness;
  let token: string;
  let locker: pg.Client;

  beforeAll(async () => {
    api = await ApiHarness.start({ store: { readTimeoutMs: 300 } });
    await api.repository('acme/widgets');
    token = await api.key({ owner: 'acme' });
    locker = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await locker.connect();
  });
  afterAll(async () => {
    await locker.end();
    await api.stop();
  });

  it('a read held up past the budget is cancelled: 503 with detail and request id, then service as usual', async () => {
    const [{ schema }] = (await api.store.readDb
      .selectNoFrom((eb) => eb.fn<string>('current_schema', []).as('schema'))
      .execute()) as [{ schema: string }];
    await locker.query('BEGIN');
    await locker.query(`LOCK TABLE ${schema}.events IN ACCESS EXCLUSIVE MODE`);
    const started = performance.now();
    const res = await api.request('/v1/repos/acme/widgets/logs?per_page=5', { token });
    const elapsed = performance.now() - started;
    await locker.query('ROLLBACK');
    expect(res.status).toBe(503);
    expect(res.body.detail).toMatch(/more database time/);
    expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
    expect(res.headers.get('retry-after')).toBe('5');
    expect(elapsed).toBeLessThan(3_000);
    const after = await api.request('/v1/repos/acme/widgets/logs?per_page=5', { token });
    expect(after.status).toBe(200);
  });
});
