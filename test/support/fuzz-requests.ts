import fc from 'fast-check';
import { bad, type FuzzCase, type FuzzContext, mostly, ok, type Part, text } from './fuzz-case.ts';
import { printable } from './fuzz-checks.ts';
import { authorizationArb, mayAct } from './fuzz-credentials.ts';
import { linkArb } from './fuzz-cursors.ts';
import type { WireRequest } from './fuzz-http.ts';
import { malformedCaseArb } from './fuzz-malformed.ts';
import type { FuzzOperation } from './fuzz-openapi.ts';
import { hostileHosts, hostileSegments, targetMutations } from './fuzz-paths.ts';
import { domainValues, type QueryPair, queryArb } from './fuzz-query.ts';
import {
  encodeValue,
  extremeWindows,
  hostileBodies,
  hostileContentTypes,
  hostileDates,
  hostileRequestIds,
} from './fuzz-values.ts';

const benignHeaders: fc.Arbitrary<[string, string][]> = fc.subarray([
  ['Accept', 'application/json'] as [string, string],
  ['User-Agent', 'trainyard-fuzz'],
  ['Accept-Encoding', 'gzip, deflate, br'],
  ['X-Request-Id', 'fuzz-request-1'],
]);

/** A request aimed at one operation of the document, mostly valid with one or two parts hostile. */
export function operationCase(ctx: FuzzContext, op: FuzzOperation): fc.Arbitrary<FuzzCase> {
  const fx = ctx.fixtures;
  const need = op.method === 'GET' ? 'read' : 'write';
  const otherMethods = ['GET', 'PUT', 'DELETE', 'POST', 'PATCH', 'HEAD', 'OPTIONS', 'TRACE'].filter(
    (m) => m !== op.method,
  );
  const repoPath: fc.Arbitrary<Part<[string, string]>> = fc.oneof(
    { weight: 12, arbitrary: ok(fc.constant<[string, string]>([fx.owner, fx.repository])) },
    // Known and unknown repositories of the same owner: allowed, so a 200 or a 404.
    { weight: 1, arbitrary: ok(fc.constant<[string, string]>([fx.owner, fx.otherRepository])) },
    { weight: 1, arbitrary: ok(fc.constant<[string, string]>([fx.owner, 'nothing-here'])) },
    {
      weight: 1,
      arbitrary: bad('other owner', fc.constant<[string, string]>([fx.foreignOwner, 'things']), (p) =>
        p.join('/'),
      ),
    },
    {
      weight: 1,
      arbitrary: hostileSegments.map((s) => ({ ...s, value: [s.value, fx.repository] as [string, string] })),
    },
    {
      weight: 1,
      arbitrary: hostileSegments.map((s) => ({ ...s, value: [fx.owner, s.value] as [string, string] })),
    },
  );
  const logs = op.path.endsWith('/logs') && ctx.links.length > 0;
  const hasBody = op.body !== null;
  const validBody = ok(
    fc
      .constantFrom(...(domainValues['reason'] ?? ['x']))
      .chain((reason) => fc.constantFrom(reason, reason.repeat(3).slice(0, 255)))
      .chain((reason) => validBodyOf(op, reason))
      .map((body) => Buffer.from(JSON.stringify(body), 'utf8')),
  );
  const badBodies = hostileBodies();
  const hostileBody = fc
    .constantFrom(...badBodies)
    .map((b): Part<Buffer | null> => ({ value: b.bytes, hostile: `body: ${b.name}` }));
  const body: fc.Arbitrary<Part<Buffer | null>> = hasBody
    ? mostly(validBody, hostileBody, 3)
    : fc.oneof({ weight: 8, arbitrary: ok(fc.constant(null)) }, { weight: 1, arbitrary: hostileBody });
  const contentType: fc.Arbitrary<Part<string | null>> = fc.oneof(
    { weight: 6, arbitrary: ok(fc.constantFrom('application/json', 'application/json; charset=utf-8')) },
    // Without a body a content type says nothing (clients that set it on every call are common).
    { weight: hasBody ? 0 : 6, arbitrary: ok(fc.constant(null)) },
    { weight: 1, arbitrary: bad('content type', fc.constantFrom(...hostileContentTypes)) },
    { weight: hasBody ? 1 : 0, arbitrary: bad('content type', fc.constant(null), () => 'none') },
  );
  const method: fc.Arbitrary<Part<string>> = fc.oneof(
    { weight: 14, arbitrary: ok(fc.constant(op.method)) },
    { weight: 1, arbitrary: bad('method', fc.constantFrom(...otherMethods)) },
  );
  const host: fc.Arbitrary<Part<string | undefined>> = fc.oneof(
    { weight: 14, arbitrary: ok(fc.constant(undefined)) },
    {
      weight: 1,
      arbitrary: bad('host', fc.constantFrom(...hostileHosts), (h) => JSON.stringify(h).slice(0, 40)),
    },
  );
  const requestId: fc.Arbitrary<Part<string | null>> = fc.oneof(
    { weight: 8, arbitrary: ok(fc.constant(null)) },
    { weight: 1, arbitrary: ok(fc.constant('fuzz-abc-123')) },
    { weight: 1, arbitrary: bad('request id', fc.constantFrom(...hostileRequestIds), (h) => h.slice(0, 30)) },
  );
  const mutation: fc.Arbitrary<Part<number | null>> = fc.oneof(
    { weight: 14, arbitrary: ok(fc.constant(null)) },
    {
      weight: 1,
      arbitrary: bad('target', fc.nat(targetMutations.length - 1), (i) => targetMutations[i]![0]),
    },
  );
  const params = pathParamsArb(op);
  const target = logs
    ? fc.oneof(
        {
          weight: 3,
          arbitrary: fc.tuple(repoPath, queryArb(op, fx), params).map(([p, q, n]) => targetOf(op, p, q, n)),
        },
        {
          weight: 2,
          arbitrary: linkArb(ctx).map((l) => ({
            ...l,
            value: { target: l.value, path: [fx.owner, fx.repository] as [string, string] },
          })),
        },
      )
    : fc.tuple(repoPath, queryArb(op, fx), params).map(([p, q, n]) => targetOf(op, p, q, n));

  return fc
    .record({
      method,
      target,
      mutation,
      authorization: authorizationArb(fx),
      contentType,
      body,
      chunked: fc.boolean(),
      host,
      requestId,
      extra: benignHeaders,
    })
    .map((r) => {
      let wireTarget = r.target.value.target;
      if (r.mutation.value !== null) {
        wireTarget = targetMutations[r.mutation.value]![1](wireTarget, r.target.value.path[1]);
      }
      const headers: [string, string][] = [...r.extra];
      const [authorization, credential] = r.authorization.value;
      if (authorization !== null) headers.push(['Authorization', authorization]);
      if (r.contentType.value !== null) headers.push(['Content-Type', r.contentType.value]);
      if (r.requestId.value !== null) headers.push(['X-Request-Id', r.requestId.value]);
      let bodyBytes = r.body.value ?? undefined;
      if (bodyBytes && r.chunked && bodyBytes.length > 0) {
        headers.push(['Transfer-Encoding', 'chunked']);
        bodyBytes = Buffer.concat([
          Buffer.from(`${bodyBytes.length.toString(16)}\r\n`),
          bodyBytes,
          Buffer.from('\r\n0\r\n\r\n'),
        ]);
      }
      const parts = [
        r.method,
        r.target,
        r.mutation,
        r.authorization,
        r.contentType,
        r.body,
        r.host,
        r.requestId,
      ];
      const hostile = parts.map((p) => p.hostile).filter((h): h is string => h !== undefined);
      const wire: WireRequest = {
        method: r.method.value,
        target: wireTarget,
        headers,
        ...(r.host.value === undefined ? {} : { host: r.host.value }),
        ...(bodyBytes ? { body: bodyBytes } : {}),
      };
      const allowed = mayAct(fx, credential, r.target.value.path, need);
      return printable({ wire, operation: op.id, valid: hostile.length === 0 && allowed, hostile });
    });
}

/** A body the operation accepts, around a valid reason. */
function validBodyOf(op: FuzzOperation, reason: string): fc.Arbitrary<Record<string, unknown>> {
  if (op.path.endsWith('/scheduled_freeze') && op.method === 'POST') {
    return fc.record({
      reason: fc.constant(reason),
      timezone: fc.constantFrom('UTC', 'Europe/Paris', 'America/New_York'),
      start: fc.constantFrom(null, '2098-06-01T08:00:00'),
      end: fc.constantFrom(null, '2099-01-01T00:00:00'),
      matching_conditions: fc.constantFrom([], ['label=hotfix'], ['base=main', '-draft']),
    });
  }
  if (op.path.endsWith('/delete')) return fc.constant({ delete_reason: reason });
  return fc.constant({ reason });
}

function targetOf(
  op: FuzzOperation,
  path: Part<[string, string]>,
  query: Part<QueryPair[]>,
  params: Part<Record<string, string>> = { value: {} },
): Part<{ target: string; path: [string, string] }> {
  const [owner, repository] = path.value;
  let base = op.path.replace('{owner}', owner).replace('{repository}', repository);
  for (const [name, value] of Object.entries(params.value)) base = base.replace(`{${name}}`, value);
  const qs = query.value.map(([k, v]) => `${encodeValue(text(k))}=${encodeValue(v)}`).join('&');
  return {
    value: { target: qs ? `${base}?${qs}` : base, path: path.value },
    hostile: path.hostile ?? params.hostile ?? query.hostile,
  };
}

/**
 * The path parameters besides owner and repository (a pull request number, a freeze id):
 * mostly valid values of their kind (which may name nothing: a 404), sometimes hostile ones.
 */
function pathParamsArb(op: FuzzOperation): fc.Arbitrary<Part<Record<string, string>>> {
  const params = op.parameters.filter(
    (p) => p.in === 'path' && p.name !== 'owner' && p.name !== 'repository',
  );
  const one = (p: (typeof params)[number]): fc.Arbitrary<Part<[string, string]>> => {
    const valid: fc.Arbitrary<string> =
      p.type.kind === 'integer'
        ? fc.integer({ min: p.type.min, max: Math.min(p.type.max, p.type.min + 20) }).map(String)
        : fc.uuid();
    const hostile =
      p.type.kind === 'integer'
        ? ['0', '-1', 'abc', '1.5', '1e3', '99999999999999999999', '%20', 'nul%00']
        : ['not-a-uuid', '..', '%2F', 'nul%00', 'x'.repeat(300)];
    return mostly(
      ok(valid.map((v): [string, string] => [p.name, v])),
      bad(
        p.name,
        fc.constantFrom(...hostile).map((v): [string, string] => [p.name, v]),
        ([, v]) => v,
      ),
      6,
    );
  };
  if (params.length === 0) return ok(fc.constant({}));
  return fc.tuple(...params.map(one)).map((parts) => ({
    value: Object.fromEntries(parts.map((part) => part.value)),
    hostile: parts.find((part) => part.hostile !== undefined)?.hostile,
  }));
}

/** Requests over every operation of the document, each equally likely. */
export function fuzzCaseArb(ctx: FuzzContext): fc.Arbitrary<FuzzCase> {
  return fc.oneof(...ctx.operations.map((op) => operationCase(ctx, op)));
}

/** The operations' requests, and one in `1 + operationWeight` with broken HTTP framing. */
export function anyCaseArb(ctx: FuzzContext, operationWeight = 19): fc.Arbitrary<FuzzCase> {
  return fc.oneof(
    { weight: operationWeight, arbitrary: fuzzCaseArb(ctx) },
    { weight: 1, arbitrary: malformedCaseArb(ctx.fixtures) },
  );
}

/**
 * Reads of every operation with date parameters over extreme periods: the API's first and
 * last instants, spans of a year at either end, centuries, one end alone. A statistic must
 * answer these (a page or a 422) as fast as any other.
 */
export function extremePeriodCaseArb(ctx: FuzzContext): fc.Arbitrary<FuzzCase> {
  const fx = ctx.fixtures;
  const dated = ctx.operations.filter(
    (op) => op.method === 'GET' && op.parameters.some((p) => p.type.kind === 'date'),
  );
  const edges = hostileDates.slice(0, 13);
  const period = fc.oneof(
    fc.constantFrom(...extremeWindows),
    fc.tuple(fc.constantFrom(...edges), fc.constantFrom(...edges)),
    fc.constantFrom(...edges).map((d) => [d] as const),
  );
  return fc.tuple(fc.constantFrom(...dated), period).map(([op, dates]) => {
    const names = op.parameters.filter((p) => p.type.kind === 'date').map((p) => p.name);
    const query = dates.map((d, i) => `${names[i % names.length]}=${encodeValue(text(d))}`).join('&');
    const path = op.path.replace('{owner}', fx.owner).replace('{repository}', fx.repository);
    return printable({
      wire: {
        method: 'GET',
        target: `${path}?${query}`,
        headers: [['Authorization', `Bearer ${fx.tokens.reader}`]],
      },
      operation: op.id,
      valid: false,
      hostile: [`period: ${dates.join('..')}`],
      expected: [200, 422],
    });
  });
}
