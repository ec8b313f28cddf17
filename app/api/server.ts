import { randomUUID } from 'node:crypto';
import fastifySwagger from '@fastify/swagger';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
  LogController,
} from 'fastify';
import {
  jsonSchemaTransform,
  jsonSchemaTransformObject,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import type { Store } from '../store/database.ts';
import type { GithubPermissions } from './auth/github-permissions.ts';
import { DEFAULT_KEY_CACHE_TTL_MS, KeyCache } from './auth/key-cache.ts';
import { answerClientError, answerExpectationFailed, refuseConnect } from './client-errors.ts';
import { closeConnectionsOnClose } from './close-connections.ts';
import { sendError } from './errors.ts';
import { registerRepositoryScope } from './repository-scope.ts';
import { requestOrigin } from './request-origin.ts';
import type { RouteContext } from './route-context.ts';
import { registerFreezeRoutes } from './routes/freeze.route.ts';
import { registerLogsRoute } from './routes/logs.route.ts';
import { registerPauseRoutes } from './routes/pause.route.ts';
import { registerPullRoutes } from './routes/pull.route.ts';
import { registerStatsRoutes } from './routes/stats.route.ts';
import { registerStatusRoute } from './routes/status.route.ts';

export interface ApiDependencies {
  store: Store;
  github: GithubPermissions;
  /** The clock; tests pass a fixed one. */
  now?: () => Date;
  /** Base URL for absolute links when behind a proxy; else taken from the request's Host. */
  publicUrl?: string | undefined;
  /**
   * Which proxies' X-Forwarded-For/-Host/-Proto to believe (Fastify's `trustProxy`): true for
   * any, or addresses and CIDR ranges. Default: none.
   */
  trustProxy?: boolean | string[] | undefined;
  /**
   * How long an application key lookup is reused (default 2 s; 0: never): a revoked key is
   * refused at most this long after the revocation.
   */
  keyCacheTtlMs?: number;
  /** How long a client may take to send a request, and its headers (ms); how often that is checked. */
  timeouts?: { requestMs?: number; headersMs?: number; checkEveryMs?: number };
  /** Fastify's logger options, or a pino logger the server logs through (its request ids included). */
  logger?: FastifyServerOptions['logger'] | FastifyBaseLogger;
  /**
   * The level of the two lines logged per request (`incoming request`, `request completed`):
   * `info` (Fastify's, the default) or `debug` (the sandbox, whose webhooks come several a second).
   */
  requestLogLevel?: 'info' | 'debug';
  /**
   * Told of every answered request, with its route's template (`/v1/repos/:owner/:repository/logs`;
   * null when no route matched): the metrics' API latency per route.
   */
  observeRequest?: (method: string, route: string | null, status: number, seconds: number) => void;
}

const requestIdPattern = /^[\w\-.:]{1,128}$/;

export async function buildServer(deps: ApiDependencies): Promise<FastifyInstance> {
  const app = Fastify({
    // Fastify 5 takes a ready logger as `loggerInstance`, options as `logger`.
    ...(isLoggerInstance(deps.logger) ? { loggerInstance: deps.logger } : { logger: deps.logger ?? false }),
    ...(deps.requestLogLevel === 'debug' ? { logController: new DebugRequestLines() } : {}),
    // A caller's own X-Request-Id is kept when it is safe to echo; otherwise one is made.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && requestIdPattern.test(given) ? given : randomUUID();
    },
    bodyLimit: 64 * 1024,
    // Errors Fastify raises before routing (a broken %-escape, an over-long segment) still get
    // the documented 422 body and a request id.
    frameworkErrors: (error, request, rawReply) => {
      const reply = rawReply as FastifyReply;
      reply.header('X-Request-Id', request.id);
      reply
        .code(422)
        .send({ detail: [{ loc: ['path'], msg: error.message, type: error.code ?? 'invalid' }] });
    },
    routerOptions: { maxParamLength: 500 },
    trustProxy: deps.trustProxy ?? false,
    clientErrorHandler: answerClientError,
    // A client has this long to send a whole request (a 25 MB webhook included), and less for
    // its headers, checked every second: a slow sender cannot hold a connection open for long.
    requestTimeout: deps.timeouts?.requestMs ?? 30_000,
    http: {
      // Node would refuse an HTTP/1.1 request without Host with a bare 400; the hook below
      // refuses it with the documented body and a request id.
      requireHostHeader: false,
      headersTimeout: deps.timeouts?.headersMs ?? 10_000,
      connectionsCheckingInterval: deps.timeouts?.checkEveryMs ?? 1_000,
    },
  });
  app.server.on('checkExpectation', answerExpectationFailed);
  app.server.on('connect', refuseConnect);
  closeConnectionsOnClose(app);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler(sendError);
  const observeRequest = deps.observeRequest;
  if (observeRequest) {
    // The template, never the URL: one series per route, whatever the values in the path.
    app.addHook('onResponse', async (request, reply) => {
      observeRequest(
        request.method,
        request.routeOptions.url ?? null,
        reply.statusCode,
        reply.elapsedTime / 1_000,
      );
    });
  }
  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
      return reply.code(400).send({ detail: 'an HTTP/1.1 request needs a Host header' });
    }
  });
  // An empty JSON body is no body: `DELETE …/pause` sent with Content-Type: application/json
  // and nothing after it is a plain DELETE; a body the route needs is then reported missing.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '' || (typeof body === 'string' && body.trim() === '')) done(null, undefined);
    else parseJson(request, body.toString(), done);
  });
  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send({ detail: `no such endpoint: ${request.method} ${request.url.split('?')[0]}` });
  });

  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Trainyard API',
        version: '1.0.0',
        description: 'Merge queue statistics, event log, status and pause control.',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });

  const now = deps.now ?? (() => new Date());
  const keys = new KeyCache({ ttlMs: deps.keyCacheTtlMs ?? DEFAULT_KEY_CACHE_TTL_MS });
  const ctx: RouteContext = {
    store: deps.store,
    now,
    // The path is appended, not resolved: a request target like `//host/…` must not change the host.
    requestUrl: (request) =>
      new URL(`${requestOrigin(request, deps.publicUrl)}${request.url.startsWith('/') ? request.url : '/'}`),
  };

  await app.register(
    async (v1) => {
      const api = v1.withTypeProvider<ZodTypeProvider>();
      api.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
      await api.register(
        async (repoScoped) => {
          registerRepositoryScope(repoScoped, { db: deps.store.db, github: deps.github, keys, now });
          registerLogsRoute(repoScoped.withTypeProvider<ZodTypeProvider>(), ctx);
          registerPauseRoutes(repoScoped.withTypeProvider<ZodTypeProvider>(), ctx);
          registerStatusRoute(repoScoped.withTypeProvider<ZodTypeProvider>(), ctx);
          registerPullRoutes(repoScoped.withTypeProvider<ZodTypeProvider>(), ctx);
          registerFreezeRoutes(repoScoped.withTypeProvider<ZodTypeProvider>(), ctx);
          registerStatsRoutes(repoScoped.withTypeProvider<ZodTypeProvider>(), ctx);
        },
        { prefix: '/repos/:owner/:repository' },
      );
    },
    { prefix: '/v1' },
  );
  return app;
}

/** Fastify's two lines per request, with the same fields, one level down (errors stay at error). */
class DebugRequestLines extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(
    error: Error | null | undefined,
    _request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (error)
      reply.log.error({ res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else reply.log.debug({ res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}

function isLoggerInstance(logger: ApiDependencies['logger']): logger is FastifyBaseLogger {
  return (
    typeof logger === 'object' && logger !== null && typeof (logger as FastifyBaseLogger).child === 'function'
  );
}
