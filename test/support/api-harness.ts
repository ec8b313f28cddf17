import type { FastifyInstance } from 'fastify';
import { GithubPermissions, type GithubPermissionsOptions } from '../../app/api/auth/github-permissions.ts';
import { buildServer } from '../../app/api/server.ts';
import { createApiKey, type KeyRole } from '../../app/store/api-keys.ts';
import type { Store, StoreOptions } from '../../app/store/database.ts';
import { ensureRepository, type Repository } from '../../app/store/repositories.ts';
import { OpenApiResponseValidator } from './openapi-validator.ts';
import { openTestStore } from './test-store.ts';

export const FAKE_GITHUB_API = 'https://github.test/api/v3';

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

/**
 * The real server on loopback HTTP with a fresh store. Every response is checked against the
 * OpenAPI document the server itself publishes; a mismatch fails the test that made it.
 */
export class ApiHarness {
  private validator!: OpenApiResponseValidator;
  baseUrl = '';
  readonly contractProblems: string[] = [];

  private constructor(
    readonly store: Store,
    readonly app: FastifyInstance,
  ) {}

  static async start(
    options: {
      now?: () => Date;
      store?: Pick<StoreOptions, 'readTimeoutMs'>;
      github?: Omit<GithubPermissionsOptions, 'apiBaseUrl'>;
    } = {},
  ): Promise<ApiHarness> {
    const store = await openTestStore(options.store);
    const app = await buildServer({
      store,
      github: new GithubPermissions({ apiBaseUrl: FAKE_GITHUB_API, ...options.github }),
      ...(options.now ? { now: options.now } : {}),
    });
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    const harness = new ApiHarness(store, app);
    harness.baseUrl = address;
    const doc = (await fetch(`${address}/v1/openapi.json`).then((r) => r.json())) as ConstructorParameters<
      typeof OpenApiResponseValidator
    >[0];
    harness.validator = new OpenApiResponseValidator(doc);
    return harness;
  }

  async stop(): Promise<void> {
    await this.app.close();
    await this.store.close();
  }

  repository(fullName: string): Promise<Repository> {
    const [owner, name] = fullName.split('/') as [string, string];
    return ensureRepository(this.store.db, { owner, name });
  }

  async key(options: { owner: string; repository?: string; role?: KeyRole; name?: string }): Promise<string> {
    const { secret } = await createApiKey(this.store.db, {
      name: options.name ?? 'test',
      owner: options.owner,
      repository: options.repository ?? null,
      role: options.role ?? 'admin',
      now: new Date(),
    });
    return secret;
  }

  /** A request over loopback HTTP; `path` is relative to the server or an absolute URL. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read loosely-typed JSON bodies
  async request<T = any>(
    path: string,
    options: {
      token?: string | null;
      method?: string;
      body?: unknown;
      rawBody?: string;
      headers?: Record<string, string>;
    } = {},
  ): Promise<ApiResponse<T>> {
    const url = path.startsWith('http') ? path : `${this.baseUrl}${path}`;
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers['authorization'] = `Bearer ${options.token}`;
    let body: string | undefined;
    if (options.rawBody !== undefined) body = options.rawBody;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    const response = await fetch(url, { method: options.method ?? 'GET', headers, body: body ?? null });
    const text = await response.text();
    const parsed = text === '' ? undefined : JSON.parse(text);
    const pathname = new URL(url).pathname;
    if (pathname.startsWith('/v1/repos/')) {
      const problems = this.validator.check(options.method ?? 'GET', pathname, response.status, parsed);
      if (problems.length > 0) {
        throw new Error(
          `response of ${options.method ?? 'GET'} ${pathname} (${response.status}) breaks the OpenAPI document:\n${problems.join('\n')}\n${text.slice(0, 500)}`,
        );
      }
    }
    return { status: response.status, headers: response.headers, body: parsed as T };
  }
}
