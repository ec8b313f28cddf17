import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { closeConnectionsOnClose } from '../../app/api/close-connections.ts';

/** A server whose one route answers when `release` is called. */
async function slowServer(withFix: boolean) {
  const app = Fastify();
  if (withFix) closeConnectionsOnClose(app);
  let release = () => {};
  const arrived = new Promise<void>((resolveArrived) => {
    app.post('/slow', async () => {
      resolveArrived();
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return { ok: true };
    });
  });
  app.post('/fast', async () => ({ ok: true }));
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  // Long enough that a close waiting for it fails the test, short enough that a broken run ends.
  app.server.keepAliveTimeout = 20_000;
  return { app, url, arrived, release: () => release() };
}

const post = (url: string) =>
  fetch(url, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });

describe('closing the server while a keep-alive connection is answering a request', () => {
  it('answers the request with Connection: close and closes as soon as it is answered', async () => {
    const { app, url, arrived, release } = await slowServer(true);
    await (await post(`${url}/fast`)).text(); // a keep-alive connection, idle now
    const inFlight = post(`${url}/slow`);
    await arrived;
    const started = Date.now();
    const closed = app.close().then(() => Date.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 100));
    release();
    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
    expect(response.headers.get('connection')).toBe('close');
    // Not the keep-alive timeout (20 s): close waits only for the answer.
    expect(await closed).toBeLessThan(10_000);
  });

  it('without it, Fastify keeps the answered connection open, so close() waits', async () => {
    const { app, url, arrived, release } = await slowServer(false);
    await (await post(`${url}/fast`)).text();
    const inFlight = post(`${url}/slow`);
    await arrived;
    let done = false;
    const closed = app.close().then(() => {
      done = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    release();
    const response = await inFlight;
    expect(response.headers.get('connection')).toBe('keep-alive');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(done).toBe(false);
    app.server.closeAllConnections();
    await closed;
  });
});
