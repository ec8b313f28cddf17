import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { type OpsRoutesOptions, registerOpsRoutes } from './ops-routes.ts';

/**
 * The HTTP server of TRAINYARD_METRICS_PORT: /metrics, /healthz and /readyz only, apart from the
 * API's port, so the network can let Prometheus reach the one and the world the other.
 */
export async function startMetricsServer(params: {
  port: number;
  host: string;
  routes: OpsRoutesOptions;
  logger?: FastifyBaseLogger;
}): Promise<{ server: FastifyInstance; address: string }> {
  const server = Fastify({
    ...(params.logger ? { loggerInstance: params.logger } : { logger: false }),
    // Nothing here takes a body, and a scraper sends its request at once.
    bodyLimit: 1024,
    requestTimeout: 10_000,
    http: { headersTimeout: 5_000 },
  });
  server.setNotFoundHandler((request, reply) => {
    reply.code(404).send({ detail: `no such endpoint here: ${request.method} ${request.url.split('?')[0]}` });
  });
  registerOpsRoutes(server, params.routes);
  const address = await server.listen({ port: params.port, host: params.host });
  return { server, address };
}
