import type { FastifyInstance } from 'fastify';

/** How often, while the server closes, connections that have fallen idle are closed. */
const SWEEP_MS = 25;

/**
 * Lets close() end as soon as the requests in flight are answered. Fastify closes the
 * keep-alive connections that are idle when close() begins, but one answering a request then
 * (a webhook delivery being stored) would stay open after its answer until the keep-alive
 * timeout (Fastify's default, 72 s), and a restart or SIGTERM would wait that long. Answers
 * given while closing say `Connection: close`, and connections that fall idle meanwhile are
 * closed.
 */
export function closeConnectionsOnClose(app: FastifyInstance): void {
  let sweeper: NodeJS.Timeout | null = null;
  app.addHook('preClose', async () => {
    sweeper ??= setInterval(() => app.server.closeIdleConnections(), SWEEP_MS);
    sweeper.unref();
  });
  app.addHook('onSend', async (_request, reply) => {
    if (sweeper !== null) reply.header('connection', 'close');
  });
  app.addHook('onClose', async () => {
    if (sweeper !== null) clearInterval(sweeper);
    sweeper = null;
  });
}
