import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type CheckResult, OpenApiDescription, type OperationMatch } from '../openapi-validator.ts';

/**
 * GitHub's published descriptions, loaded once per test worker (kept on globalThis, which
 * outlives the module registry vitest renews for each test file): the REST API
 * (`@octokit/openapi`, api.github.com, without its examples) and the webhooks
 * (`@octokit/openapi-webhooks`).
 */
const require = createRequire(import.meta.url);
const cacheKey = Symbol.for('trainyard.test.github-descriptions');

interface Descriptions {
  rest: GithubRestDescription;
  webhooks: GithubWebhookDescription;
}

export function githubDescriptions(): Descriptions {
  const holder = globalThis as { [cacheKey]?: Descriptions };
  holder[cacheKey] ??= {
    rest: new GithubRestDescription(
      withoutNullable(loadWithoutExamples('@octokit/openapi/generated/api.github.com.json')) as Document,
    ),
    webhooks: new GithubWebhookDescription(
      loadWithoutExamples('@octokit/openapi-webhooks/generated/api.github.com.json'),
    ),
  };
  return holder[cacheKey];
}

type Document = {
  paths?: Record<string, Record<string, unknown>>;
  webhooks?: Record<string, { post: WebhookOperation }>;
  components?: Record<string, unknown>;
};
interface WebhookOperation {
  operationId: string;
  requestBody: { content: { 'application/json': { schema: unknown } } };
}

function loadWithoutExamples(specifier: string): Document {
  const document = JSON.parse(readFileSync(require.resolve(specifier), 'utf8')) as Document;
  const { examples: _examples, ...components } = document.components ?? {};
  return { ...document, components };
}

/**
 * OpenAPI 3.0's `nullable: true` as JSON Schema says it (`null` among the types, or beside the
 * schema), since GitHub's REST description writes it where there is no `type` to extend too.
 */
function withoutNullable(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutNullable);
  if (typeof node !== 'object' || node === null) return node;
  const { nullable, ...rest } = node as Record<string, unknown>;
  const converted: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(rest)) converted[key] = withoutNullable(value);
  if (nullable !== true) return converted;
  if (typeof converted['type'] === 'string') {
    converted['type'] = [converted['type'], 'null'];
    if (Array.isArray(converted['enum']) && !converted['enum'].includes(null))
      converted['enum'] = [...converted['enum'], null];
    return converted;
  }
  return { anyOf: [converted, { type: 'null' }] };
}

/**
 * Statuses GitHub answers on any operation without listing them for each: server errors and
 * outages (5xx), rate limits (403 with a rate-limit message, 429), an app's missing permission
 * (403 "Resource not accessible by integration") and bad credentials (401). Their body is
 * GitHub's basic error.
 */
function isGenericStatus(status: number, body: unknown): boolean {
  if (status >= 500 || status === 429 || status === 401) return true;
  const message = typeof body === 'object' && body !== null ? Reflect.get(body, 'message') : undefined;
  return (
    status === 403 && typeof message === 'string' && /rate limit|not accessible by integration/i.test(message)
  );
}

/**
 * What GitHub really sends that ajv-formats' patterns refuse: the noreply address of a bot
 * (`41898282+github-actions[bot]@users.noreply.github.com`, in GitHub's own example payloads).
 */
const githubFormats = { email: /^[^\s@]+@[^\s@]+$/ };

/** GitHub Enterprise's REST root (`/api/v3`) is not part of the paths GitHub describes. */
function describedPath(pathname: string): string {
  return pathname.replace(/^\/api\/v3(?=\/)/, '');
}

export class GithubRestDescription {
  private readonly description: OpenApiDescription;

  constructor(document: Document) {
    this.description = new OpenApiDescription(
      { paths: document.paths ?? {}, components: document.components ?? {} },
      // A ref (`heads/main`: octokit encodes the slash, other clients do not) and a file path.
      { dialect: 'draft-07', formats: githubFormats, multiSegment: ['ref', 'path'] },
    );
  }

  checkRequest(method: string, url: string, body: unknown): CheckResult {
    const parsed = new URL(url, 'http://github.invalid');
    return this.description.checkRequest(method, describedPath(parsed.pathname), parsed.searchParams, body);
  }

  checkResponse(method: string, url: string, status: number, body: unknown): CheckResult {
    const parsed = new URL(url, 'http://github.invalid');
    const { match, problem } = this.description.findOperation(method, describedPath(parsed.pathname));
    if (match === null) return { operation: null, problems: [problem!] };
    return { operation: match, problems: this.checkResponseOf(match, status, body) };
  }

  private checkResponseOf(match: OperationMatch, status: number, body: unknown): string[] {
    const problems = this.description.checkResponseOf(match, status, body);
    if (problems.length !== 1 || !problems[0]!.startsWith(`status ${status} `)) return problems;
    // An error GitHub documents without its body (DELETE a ref: 422), one it answers on any
    // operation, or a refusal its description leaves out (400 "Problems parsing JSON", 403
    // "Invalid app_id" on another app's check run, 422 "No commit found for SHA" on
    // POST /check-runs, all answered by GitHub): GitHub's basic error, nothing else.
    const bodyless = problems[0]!.endsWith('documented without a body') && status >= 400;
    const undocumentedRefusal = status >= 400 && status < 500;
    if (bodyless || undocumentedRefusal || isGenericStatus(status, body))
      return this.description.checkAt('/components/schemas/basic-error', body, 'body');
    return problems;
  }
}

export class GithubWebhookDescription {
  private readonly description: OpenApiDescription;
  /** `check-run/completed` (or `push`) → the pointer of its payload schema. */
  private readonly payloads = new Map<string, string>();

  constructor(document: Document) {
    this.description = new OpenApiDescription(
      { paths: {}, ...document, components: document.components ?? {} } as Document & {
        paths: Record<string, Record<string, unknown>>;
      },
      { dialect: '2020-12', formats: githubFormats },
    );
    for (const [key, webhook] of Object.entries(document.webhooks ?? {})) {
      const schema = webhook.post.requestBody.content['application/json'].schema as { $ref?: string };
      this.payloads.set(
        webhook.post.operationId,
        schema.$ref?.replace(/^#/, '') ??
          `/webhooks/${key}/post/requestBody/content/application~1json/schema`,
      );
    }
  }

  /** `check_run` + `completed` → `check-run/completed`, as GitHub's description names it. */
  static key(event: string, action: string | null): string {
    const name = event.replaceAll('_', '-');
    return action === null ? name : `${name}/${action.replaceAll('_', '-')}`;
  }

  check(event: string, action: string | null, payload: unknown): { key: string; problems: string[] } {
    const key = GithubWebhookDescription.key(event, action);
    const pointer = this.payloads.get(key) ?? this.payloads.get(event.replaceAll('_', '-'));
    if (pointer === undefined) return { key, problems: [`no webhook ${key} in the description`] };
    return { key, problems: this.description.checkAt(pointer, payload, 'payload') };
  }
}
