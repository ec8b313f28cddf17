import { randomBytes } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { closeConnectionsOnClose } from '../api/close-connections.ts';
import { type SandboxResponse, sandboxResponseChannel } from './contract-channels.ts';
import { GithubError } from './github-error.ts';
import { RouteContext } from './http/route-context.ts';
import type { SandboxGithub } from './model.ts';
import type { SandboxUrls } from './rest/urls.ts';
import { registerActionsRoutes } from './routes/actions.route.ts';
import { registerAppRoutes } from './routes/app.route.ts';
import { registerCheckRoutes } from './routes/checks.route.ts';
import { registerGitRoutes } from './routes/git.route.ts';
import { registerIssueRoutes } from './routes/issues.route.ts';
import { registerPullRoutes } from './routes/pulls.route.ts';
import { registerRepositoryRoutes } from './routes/repos.route.ts';
import { registerWebRoutes } from './routes/web.route.ts';
import { WebhookDelivery, type WebhookDeliveryOptions, type WebhookTarget } from './webhooks/delivery.ts';

export interface SandboxServerOptions {
  github: SandboxGithub;
  /** A loopback address only: the sandbox hands out tokens to anyone who asks with a JWT. */
  host?: string;
  /** 0 (default) picks a free port. */
  port?: number;
  webhook?: WebhookTarget;
  deliveryIds?: WebhookDeliveryOptions['deliveryIds'];
  retryDelaysMs?: WebhookDeliveryOptions['retryDelaysMs'];
  deliveryLogLimit?: WebhookDeliveryOptions['logLimit'];
  /**
   * Resolves once every change made so far is on disk (the sandbox's journal). Every answer
   * waits for it, and so does every webhook: what GitHub acknowledged, it keeps. Absent (tests,
   * benchmarks): nothing is kept on disk and nothing waits.
   */
  durable?: () => Promise<void>;
}

export interface SandboxServer {
  /** The REST API's base URL (what GITHUB_API_URL points at). */
  url: string;
  urls: SandboxUrls;
  github: SandboxGithub;
  webhooks: WebhookDelivery;
  close(): Promise<void>;
}

const loopbackHosts = new Set(['127.0.0.1', '::1', 'localhost']);

/** Whether the sandbox may listen on `host`: loopback addresses only. */
export function isLoopbackHost(host: string): boolean {
  return loopbackHosts.has(host);
}
const documentationUrl = 'https://docs.github.com/rest';

/** GitHub's error body: message, documentation URL, status as a string, and 422's `errors`. */
function errorBody(status: number, message: string, errors?: GithubError['errors']) {
  return {
    message,
    ...(errors ? { errors } : {}),
    documentation_url: documentationUrl,
    status: String(status),
  };
}

/**
 * The simulated GitHub's REST API on loopback: the subset of endpoints the app uses, with
 * GitHub's status codes and response shapes, and its webhooks delivered to the app.
 */
export async function startSandboxServer(options: SandboxServerOptions): Promise<SandboxServer> {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopbackHost(host))
    throw new Error(`the sandbox code host listens on loopback only, not on ${host}`);
  const app = Fastify({ logger: false });
  closeConnectionsOnClose(app);
  const urls: SandboxUrls = { api: '', web: '' };
  const ctx = new RouteContext(options.github, urls);
  configureHttp(app);
  const { durable } = options;
  if (durable) {
    // After the handler, before the answer: a write is acknowledged only once it is on disk,
    // and a read never shows what a crash could take back.
    app.addHook('onSend', async () => {
      await durable();
    });
  }
  registerAppRoutes(app, ctx);
  registerRepositoryRoutes(app, ctx);
  registerGitRoutes(app, ctx);
  registerPullRoutes(app, ctx);
  registerCheckRoutes(app, ctx);
  registerIssueRoutes(app, ctx);
  registerActionsRoutes(app, ctx);
  // github.com's pages of the same things, for people: where html_url points (`…/web/…`).
  registerWebRoutes(app, ctx);

  await app.listen({ host, port: options.port ?? 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string')
    throw new Error('the sandbox server has no TCP address');
  const base = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
  // Filled in place: the routes' context already holds this object.
  urls.api = base;
  urls.web = `${base}/web`;

  const webhooks = new WebhookDelivery({
    github: options.github,
    urls,
    target: options.webhook,
    deliveryIds: options.deliveryIds,
    retryDelaysMs: options.retryDelaysMs,
    logLimit: options.deliveryLogLimit,
    ...(durable ? { durable } : {}),
  });
  return {
    url: base,
    urls,
    github: options.github,
    webhooks,
    async close() {
      webhooks.close();
      await app.close();
    },
  };
}

/** GitHub's conventions for every request: JSON bodies (empty allowed), error bodies, headers. */
function configureHttp(app: FastifyInstance): void {
  // Octokit sends `PUT` without parameters as an empty body with a JSON content type.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, {});
    try {
      done(null, JSON.parse(text));
    } catch {
      done(new GithubError(400, 'Problems parsing JSON'), undefined);
    }
  });

  app.addHook('onSend', async (_request, reply) => {
    reply.header('x-github-api-version-selected', '2022-11-28');
    reply.header('x-github-media-type', 'github.v3; format=json');
    reply.header('x-github-request-id', randomBytes(8).toString('hex').toUpperCase());
    reply.header('x-ratelimit-limit', '5000');
    reply.header('x-ratelimit-remaining', '4999');
    reply.header('x-ratelimit-used', '1');
    reply.header('x-ratelimit-resource', 'core');
    reply.header('x-ratelimit-reset', String(Math.floor(Date.now() / 1000) + 3600));
  });

  app.addHook('onSend', async (request, reply, payload) => {
    // The REST API only: the web pages (`/web/…`) are not part of GitHub's REST description.
    if (!sandboxResponseChannel.hasSubscribers || request.url.startsWith('/web/')) return payload;
    const response: SandboxResponse = {
      method: request.method,
      url: request.url,
      status: reply.statusCode,
      contentType: String(reply.getHeader('content-type') ?? ''),
      body: typeof payload === 'string' ? payload : payload == null ? '' : String(payload),
    };
    sandboxResponseChannel.publish(response);
    return payload;
  });

  // The web pages' comment form (routes/web.route.ts).
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 256 * 1024 },
    (_request, body, done) => {
      done(
        null,
        Object.fromEntries(new URLSearchParams(typeof body === 'string' ? body : body.toString('utf8'))),
      );
    },
  );

  app.setErrorHandler(async (error, _request, reply) => {
    if (error instanceof GithubError) {
      if (error.headers) reply.headers(error.headers);
      return reply.code(error.status).send(errorBody(error.status, error.message, error.errors));
    }
    const status = (error as { statusCode?: number }).statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      return reply.code(status).send(errorBody(status, (error as Error).message));
    }
    return reply.code(500).send(errorBody(500, `Server Error: ${(error as Error).message}`));
  });

  app.setNotFoundHandler(async (_request, reply) => reply.code(404).send(errorBody(404, 'Not Found')));
}
