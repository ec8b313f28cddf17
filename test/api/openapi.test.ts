import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiHarness } from '../support/api-harness.ts';

// biome-ignore lint/suspicious/noExplicitAny: the document is walked by key, as a client reads it
type Json = any;

let api: ApiHarness;
let doc: Json;
let status: number;
let contentType: string | null;

const REPO = '/v1/repos/{owner}/{repository}';

/** The event types of Mergify's v1 event log, with its placeholder `vcs` spelled `github` on the wire. */
const MERGIFY_EVENT_TYPES = `action.assign, action.backport, action.close, action.comment, action.copy,
  action.delete_head_branch, action.dismiss_reviews, action.edit, action.github_actions, action.label,
  action.merge, action.post_check, action.queue.batch_bisection_end, action.queue.batch_bisection_start,
  action.queue.change, action.queue.checks.change, action.queue.checks_end, action.queue.checks_not_started,
  action.queue.checks_start, action.queue.enter, action.queue.leave, action.queue.merged, action.rebase,
  action.refresh, action.request_reviews, action.requeue, action.review, action.squash, action.unqueue,
  action.update, ci_insights.job_retried, ci_issue.created, ci_issue.linked, ci_issue.merged, ci_issue.renamed,
  ci_issue.reopened, ci_issue.resolved, ci_issue.unresolved, command.dequeue, command.queue, command.requeue,
  queue.pause.create, queue.pause.delete, queue.pause.update, scheduled_freeze.create, scheduled_freeze.delete,
  scheduled_freeze.update`
  .split(',')
  .map((s) => s.trim());

/** Follows a local `$ref` (`#/a/b`) to what it names, or undefined. */
function resolve(ref: string): unknown {
  return ref
    .replace(/^#\//, '')
    .split('/')
    .map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce<Json>((node, key) => node?.[key], doc);
}

function refsIn(node: unknown, found: string[] = []): string[] {
  if (Array.isArray(node)) for (const item of node) refsIn(item, found);
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') found.push(value);
      else refsIn(value, found);
    }
  }
  return found;
}

beforeAll(async () => {
  api = await ApiHarness.start();
  const res = await fetch(`${api.baseUrl}/v1/openapi.json`);
  status = res.status;
  contentType = res.headers.get('content-type');
  doc = await res.json();
});

afterAll(async () => {
  await api?.stop();
});

describe('GET /v1/openapi.json', () => {
  it('answers 200 with JSON to a caller without credentials', () => {
    expect(status).toBe(200);
    expect(contentType).toMatch(/^application\/json/);
    expect(doc).toBeTypeOf('object');
  });

  it('is an OpenAPI 3.1 document that passes the schema validator', async () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('resolves every $ref it contains', () => {
    const refs = [...new Set(refsIn(doc))];
    const dangling = refs.filter((ref) => !ref.startsWith('#/') || resolve(ref) === undefined);
    expect(dangling).toEqual([]);
  });

  it('declares bearer authentication for the API', () => {
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.security).toContainEqual({ bearer: [] });
  });

  it.each([
    ['get', `${REPO}/logs`, '200'],
    ['get', `${REPO}/merge-queue/status`, '200'],
    ['get', `${REPO}/merge-queue/pause`, '200'],
    ['put', `${REPO}/merge-queue/pause`, '200'],
    ['delete', `${REPO}/merge-queue/pause`, '204'],
  ])('lists %s %s with its %s answer and 403, 404, 409 and 422', (method, path, success) => {
    const operation = doc.paths[path]?.[method];
    expect(operation).toBeDefined();
    for (const code of [success, '403', '404', '409', '422']) expect(operation.responses[code]).toBeDefined();
    const ok = operation.responses[success];
    if (success === '204') expect(ok.content).toBeUndefined();
    else expect(ok.content['application/json'].schema).toBeDefined();
    const params = operation.parameters.filter((p: Json) => p.in === 'path').map((p: Json) => p.name);
    expect(params.sort()).toEqual(['owner', 'repository']);
  });

  it.each([
    ['get', `${REPO}/merge-queue/pull/{pr_number}`, '200', ['owner', 'pr_number', 'repository']],
    [
      'get',
      `${REPO}/merge-queue/pull/{pr_number}/dequeue-impact`,
      '200',
      ['owner', 'pr_number', 'repository'],
    ],
    ['post', `${REPO}/merge-queue/pull/{pr_number}/dequeue`, '204', ['owner', 'pr_number', 'repository']],
    ['get', `${REPO}/scheduled_freeze`, '200', ['owner', 'repository']],
    ['post', `${REPO}/scheduled_freeze`, '201', ['owner', 'repository']],
    ['patch', `${REPO}/scheduled_freeze/{freeze_id}`, '200', ['freeze_id', 'owner', 'repository']],
    ['delete', `${REPO}/scheduled_freeze/{freeze_id}`, '204', ['freeze_id', 'owner', 'repository']],
    ['post', `${REPO}/scheduled_freeze/{freeze_id}/delete`, '204', ['freeze_id', 'owner', 'repository']],
  ])(
    'lists %s %s (Mergify-shaped) with its %s answer, 403, 404, 409 and 422',
    (method, path, success, names) => {
      const operation = doc.paths[path]?.[method];
      expect(operation).toBeDefined();
      for (const code of [success, '403', '404', '409', '422'])
        expect(operation.responses[code]).toBeDefined();
      const params = operation.parameters.filter((p: Json) => p.in === 'path').map((p: Json) => p.name);
      expect(params.sort()).toEqual(names);
    },
  );

  it('answers 400 only where Mergify does: changing the start of a freeze that has started', () => {
    const with400 = Object.entries<Json>(doc.paths).flatMap(([path, item]) =>
      Object.entries<Json>(item)
        .filter(([, operation]) => operation.responses?.['400'] !== undefined)
        .map(([method]) => `${method} ${path}`),
    );
    expect(with400).toEqual([`patch ${REPO}/scheduled_freeze/{freeze_id}`]);
  });

  it('describes 403, 404 and 409 as {detail} and 422 as a list of {loc, msg, type}', () => {
    const responses = doc.paths[`${REPO}/merge-queue/pause`].get.responses;
    const schemaOf = (code: string) => {
      const s = responses[code].content['application/json'].schema;
      return (s.$ref ? resolve(s.$ref) : s) as Json;
    };
    for (const code of ['403', '404', '409']) {
      expect(schemaOf(code).properties.detail.type).toBe('string');
      expect(schemaOf(code).required).toEqual(['detail']);
    }
    const item = schemaOf('422').properties.detail.items;
    expect(Object.keys(item.properties).sort()).toEqual(['loc', 'msg', 'type']);
  });

  it('constrains owner to 1–40 characters and repository to 1–100, each with its own pattern', () => {
    const params = doc.paths[`${REPO}/logs`].get.parameters;
    const owner = params.find((p: Json) => p.name === 'owner').schema;
    const repository = params.find((p: Json) => p.name === 'repository').schema;
    expect(owner).toMatchObject({ type: 'string', minLength: 1, maxLength: 40 });
    expect(new RegExp(owner.pattern).test('a_b')).toBe(false);
    expect(new RegExp(owner.pattern).test('Acme-42')).toBe(true);
    expect(repository).toMatchObject({ type: 'string', minLength: 1, maxLength: 100 });
    expect(new RegExp(repository.pattern).test('my_repo.js-2')).toBe(true);
    expect(new RegExp(repository.pattern).test('a b')).toBe(false);
  });

  it('requires a reason of 1 to 255 characters, and nothing else, in the PUT pause body', () => {
    const body = doc.paths[`${REPO}/merge-queue/pause`].put.requestBody;
    expect(body.required).toBe(true);
    const schema = body.content['application/json'].schema;
    expect(schema.required).toEqual(['reason']);
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.reason).toMatchObject({ type: 'string', minLength: 1, maxLength: 255 });
  });

  it("makes event_type a repeated (form, exploded) array query parameter over Mergify's 47 event types and ours", () => {
    expect(MERGIFY_EVENT_TYPES).toHaveLength(47);
    const param = doc.paths[`${REPO}/logs`].get.parameters.find((p: Json) => p.name === 'event_type');
    expect(param).toMatchObject({ in: 'query', required: false });
    // OpenAPI's defaults for a query parameter are style form and explode true.
    expect(param.style ?? 'form').toBe('form');
    expect(param.explode ?? true).toBe(true);
    expect(param.schema.type).toBe('array');
    // Ours beyond Mergify's: the stall doctor's event (docs/api.md, "Reasons") and merge integrity's.
    expect([...param.schema.items.enum].sort()).toEqual(
      [...MERGIFY_EVENT_TYPES, 'action.queue.checks_stalled', 'action.queue.merge_verified'].sort(),
    );
  });

  it("documents the pause record as paused (Mergify's field), reason and paused_at", () => {
    const s = doc.paths[`${REPO}/merge-queue/pause`].get.responses['200'].content['application/json'].schema;
    const schema = (s.$ref ? resolve(s.$ref) : s) as Json;
    expect(schema.required.sort()).toEqual(['paused', 'paused_at', 'reason']);
    expect(schema.properties.paused).toMatchObject({ type: 'boolean', enum: [true] });
    expect(schema.properties.paused_at.format).toBe('date-time');
  });
});
