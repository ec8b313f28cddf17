import type { FastifyInstance } from 'fastify';
import { decideMetricsAccess, type MetricsAccess } from './metrics-access.ts';
import type { ReadinessReport } from './readiness.ts';

export interface OpsRoutesOptions {
  readiness: { check(): Promise<ReadinessReport> };
  /** Serves /metrics with this access; null: not here (a metrics port of its own serves them). */
  metrics: { scrape(): Promise<string>; contentType: string; access: MetricsAccess } | null;
}

/** Probes and scrapes come every few seconds: their request lines would drown the rest. */
const quiet = { logLevel: 'warn' as const, schema: { hide: true } };

/**
 * GET /healthz (the process answers), GET /readyz (it can do its work; 503 naming what is not
 * ready), and GET /metrics (Prometheus' text format), outside the v1 API: no API key, not in
 * the OpenAPI document.
 */
export function registerOpsRoutes(app: FastifyInstance, options: OpsRoutesOptions): void {
  app.get('/healthz', quiet, async (_request, reply) => {
    reply.header('Cache-Control', 'no-store');
    return { status: 'ok' };
  });

  app.get('/readyz', quiet, async (_request, reply) => {
    const report = await options.readiness.check();
    reply.header('Cache-Control', 'no-store');
    if (report.ready) return { status: 'ready', checks: report.checks };
    const notReady = Object.entries(report.checks)
      .filter(([, check]) => !check.ok)
      .map(([name]) => name);
    return reply.code(503).send({ status: 'not_ready', not_ready: notReady, checks: report.checks });
  });

  const metrics = options.metrics;
  if (metrics === null) return;
  app.get('/metrics', quiet, async (request, reply) => {
    const decision = decideMetricsAccess(metrics.access, {
      authorization: request.headers.authorization,
      clientIp: request.ip,
    });
    if (!decision.allowed) {
      if (decision.status === 401) reply.header('WWW-Authenticate', 'Bearer realm="trainyard-metrics"');
      return reply.code(decision.status).send({ detail: decision.detail });
    }
    const text = await metrics.scrape();
    return reply.header('Content-Type', metrics.contentType).header('Cache-Control', 'no-store').send(text);
  });
}
