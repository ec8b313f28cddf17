import fc from 'fast-check';
import { printable } from './fuzz-checks.ts';
import type { WireRequest } from './fuzz-http.ts';
import { malformedCaseArb } from './fuzz-malformed.ts';
import type { FuzzOperation, FuzzParameter, ParameterKind } from './fuzz-openapi.ts';
import type { FuzzFixtures } from './fuzz-seed.ts';
import {
  encodeValue,
  extremeWindows,
  hostileAuthorizations,
  hostileBodies,
  hostileContentTypes,
  hostileDates,
  hostileNumbers,
  hostileRaw,
  hostileRequestIds,
  hostileTexts,
  type WireValue,
} from './fuzz-values.ts';

/** What the generator draws from: the document's operations and the seeded store's facts. */
export interface FuzzContext {
  operations: FuzzOperation[];
  fixtures: FuzzFixtures;
  /** Real `/logs` links (path and query) taken from Link headers. */
  links: string[];
  /** Cursors of another repository's log: well-formed, but not for this one. */
  foreignCursors: string[];
}

/** One generated request and what the fuzzer expects of its answer. */
export interface FuzzCase {
  wire: WireRequest;
  /** The document's operation it aims at (`malformed HTTP` for broken framing). */
  operation: string;
  /**
   * Every part valid per the document, from a credential allowed to do it: the answer must be a
   * success, or 404 (unknown repository, no pause) or 409 (retry), never a refusal.
   */
  valid: boolean;
  /** What was made hostile, for the report. */
  hostile: string[];
  /** The only statuses this request may get, when the generator knows them. */
  expected?: readonly number[];
  /** Closing the connection without an answer is a fair refusal of this request. */
  mayClose?: boolean;
}

/** A drawn part of a request; `hostile` names what is wrong with it (absent: valid). */
interface Part<T> {
  value: T;
  hostile?: string | undefined;
}

const ok = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<Part<T>> => arb.map((value) => ({ value }));
const bad = <T>(label: string, arb: fc.Arbitrary<T>, show: (v: T) => string = String) =>
  arb.map((value): Part<T> => ({ value, hostile: `${label}: ${show(value)}`.slice(0, 120) }));
/** Mostly valid, sometimes hostile: most requests then reach the handlers with one thing wrong. */
const mostly = <T>(valid: fc.Arbitrary<Part<T>>, hostile: fc.Arbitrary<Part<T>>, validWeight = 4) =>
  fc.oneof({ weight: validWeight, arbitrary: valid }, { weight: 1, arbitrary: hostile });

const DAY = 86_400_000;
const MAX_PERIOD_DAYS = 366;
const HUGE = 100_000;

// Values the seeded history holds, so that filters match something (names come from the document).
const domainValues: Record<string, string[]> = {
  base_ref: ['main', 'release/1.x', 'release'],
  branch: ['main', 'release/1.x'],
  queue_name: ['default', 'hotfix'],
  partition_name: ['__default__', 'web', 'api'],
  priority_rule_name: ['urgent', 'hotfix', '__default__'],
  reason: ['release freeze', 'incident 42: CI is down', 'gel des déploiements ❄️'],
};
const windowPairs = [
  ['start_at', 'end_at'],
  ['received_from', 'received_to'],
] as const;

const text = (value: string): WireValue => ({ text: value });
const shortText = (v: WireValue) => ('raw' in v ? `raw ${v.raw}` : JSON.stringify(v.text)).slice(0, 80);

function validValue(param: FuzzParameter, kind: ParameterKind, fx: FuzzFixtures): fc.Arbitrary<string> {
  switch (kind.kind) {
    case 'date': {
      const start = Date.parse(fx.historyStart);
      const end = Date.parse(fx.now);
      return fc
        .tuple(fc.integer({ min: start, max: end }), fc.constantFrom('Z', '+02:00', 'date'))
        .map(([ms, form]) => {
          const iso = new Date(ms).toISOString();
          if (form === 'date') return iso.slice(0, 10);
          if (form === 'Z') return iso;
          return `${new Date(ms + 2 * 3_600_000).toISOString().slice(0, 19)}+02:00`;
        });
    }
    case 'integer': {
      const upper = param.name === 'pull_request' ? Math.min(kind.max, 25) : kind.max;
      return fc.integer({ min: kind.min, max: Math.max(kind.min, upper) }).map(String);
    }
    case 'enum':
      return fc.constantFrom(...kind.values);
    case 'array':
      return validValue(param, kind.item, fx);
    case 'string': {
      const known = domainValues[param.name];
      const any = fc.string({
        minLength: Math.max(1, kind.minLength),
        maxLength: Math.min(kind.maxLength, 30),
      });
      return known ? fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...known) }, any) : any;
    }
  }
}

function hostileValue(kind: ParameterKind): fc.Arbitrary<WireValue> {
  const texts = fc.constantFrom(...hostileTexts).map(text);
  const raws = fc.constantFrom(...hostileRaw).map((raw): WireValue => ({ raw }));
  switch (kind.kind) {
    case 'date':
      return fc.oneof(fc.constantFrom(...hostileDates).map(text), texts, raws);
    case 'integer':
      return fc.oneof(fc.constantFrom(...hostileNumbers).map(text), texts, raws);
    case 'enum':
      return fc.oneof(
        fc.constantFrom(...kind.values).map((v) => text(v.toUpperCase())),
        fc.constantFrom(...kind.values).map((v) => text(`${v}\u0000`)),
        fc.constant(text('action.queue.*')),
        texts,
        raws,
      );
    case 'array':
      return hostileValue(kind.item);
    case 'string':
      return fc.oneof(texts, raws);
  }
}

type QueryPair = [string, WireValue];

/** One parameter's pairs: absent, once, or repeated (valid only for arrays). */
function parameterPairs(param: FuzzParameter, fx: FuzzFixtures): fc.Arbitrary<Part<QueryPair[]>> {
  const one = mostly(
    ok(validValue(param, param.type, fx).map(text)),
    bad(param.name, hostileValue(param.type), shortText),
  );
  const repeatable = param.type.kind === 'array';
  const present = fc.oneof(
    { weight: 9, arbitrary: one.map((p) => ({ ...p, value: [p.value] })) },
    {
      weight: 1,
      arbitrary: fc.array(one, { minLength: 2, maxLength: 3 }).map((parts) => ({
        value: parts.map((p) => p.value),
        hostile: parts.find((p) => p.hostile)?.hostile ?? (repeatable ? undefined : `${param.name} repeated`),
      })),
    },
  );
  const absent: fc.Arbitrary<Part<WireValue[]>> = fc.constant({ value: [] });
  const values = param.required ? present : fc.oneof(absent, present);
  return values.map((p) => ({ ...p, value: p.value.map((v): QueryPair => [param.name, v]) }));
}

/** A period: recent windows, the extreme ones the API accepts, or one reversed. */
function windowArb(fx: FuzzFixtures, limited: boolean): fc.Arbitrary<Part<[string | null, string | null]>> {
  const end = Date.parse(fx.now);
  const iso = (ms: number) => new Date(ms).toISOString();
  const recent = fc
    .tuple(fc.constantFrom(1, 30, 90), fc.integer({ min: 0, max: 30 }))
    .map(([days, back]): [string, string] => [iso(end - (back + days) * DAY), iso(end - back * DAY)]);
  const oneEnd = fc
    .constantFrom(...hostileDates.slice(0, 13))
    .chain((d) => fc.constantFrom<[string | null, string | null]>([d, null], [null, d]));
  return fc.oneof(
    { weight: 3, arbitrary: ok(recent) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(...extremeWindows).map(([from, to]): Part<[string, string]> => {
        // The statistics' period spans at most 366 days (start_at's description in the document).
        const overAYear = limited && Date.parse(to) - Date.parse(from) > MAX_PERIOD_DAYS * DAY;
        return {
          value: [from, to],
          hostile: overAYear ? `window over ${MAX_PERIOD_DAYS} days: ${from}..${to}` : undefined,
        };
      }),
    },
    {
      weight: 1,
      arbitrary: bad(
        'window reversed',
        recent.map(([a, b]): [string, string] => [b, a]),
        (w) => w.join('..'),
      ),
    },
    { weight: 1, arbitrary: bad('window end', oneEnd, (w) => w.join('..')) },
  );
}

function queryArb(op: FuzzOperation, fx: FuzzFixtures): fc.Arbitrary<Part<QueryPair[]>> {
  const query = op.parameters.filter((p) => p.in === 'query' && p.name !== 'cursor');
  const names = new Set(query.map((p) => p.name));
  const pair = windowPairs.find(([a, b]) => names.has(a) && names.has(b));
  const singles = query.filter((p) => !pair?.includes(p.name as never));
  const unknownKeys = fc.constantFrom(
    '__proto__',
    'constructor',
    'toString',
    'per_page[]',
    'a[b]',
    'x'.repeat(1000),
  );
  return fc
    .record({
      singles: fc.tuple(...singles.map((p) => parameterPairs(p, fx))),
      window: pair ? fc.option(windowArb(fx, pair[0] === 'start_at'), { freq: 2 }) : fc.constant(null),
      unknown: fc.option(unknownKeys, { freq: 9 }),
    })
    .map(({ singles: parts, window, unknown }) => {
      const pairs = parts.flatMap((p) => p.value);
      let hostile = parts.find((p) => p.hostile)?.hostile;
      if (pair && window) {
        const [from, to] = window.value;
        // The period's two ends come from the window alone (the singles leave them out).
        if (from !== null) pairs.push([pair[0], text(from)]);
        if (to !== null) pairs.push([pair[1], text(to)]);
        hostile ??= window.hostile;
      }
      if (unknown !== null) pairs.push([unknown, text('1')]);
      return { value: pairs, hostile };
    });
}

/** Cursors that are not this query's: bytes flipped, truncated, re-encoded, foreign, junk. */
function tamperedCursor(ctx: FuzzContext): fc.Arbitrary<string> {
  const real = ctx.links
    .map((l) => new URL(l, 'http://x').searchParams.get('cursor'))
    .filter(Boolean) as string[];
  const source = fc.constantFrom(...(real.length > 0 ? real : ['eyJ2IjoxfQ']));
  const flipByte = fc.tuple(source, fc.nat(), fc.integer({ min: 0, max: 7 })).map(([cursor, at, bit]) => {
    const bytes = Buffer.from(cursor, 'base64url');
    const i = at % bytes.length;
    bytes[i] = bytes[i]! ^ (1 << bit);
    return bytes.toString('base64url');
  });
  const flipChar = fc.tuple(source, fc.nat()).map(([cursor, at]) => {
    const i = at % cursor.length;
    return `${cursor.slice(0, i)}${cursor[i] === 'A' ? 'B' : 'A'}${cursor.slice(i + 1)}`;
  });
  const rewritten = fc
    .tuple(
      source,
      fc.constantFrom<[string, unknown]>(
        ['id', '0'],
        ['id', '-1'],
        ['id', '9223372036854775808'],
        ['id', 'abc'],
        ['id', 1e308],
        ['id', null],
        ['k', 'x'],
        ['v', 2],
        ['q', ''],
        ['q', 0],
      ),
    )
    .map(([cursor, [field, value]]) => {
      let payload: Record<string, unknown>;
      try {
        payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
      } catch {
        payload = {};
      }
      return Buffer.from(JSON.stringify({ ...payload, [field]: value })).toString('base64url');
    });
  const junk = fc.constantFrom(
    '',
    '=',
    'A'.repeat(1000),
    'A'.repeat(1001),
    Buffer.from('[]').toString('base64url'),
    Buffer.from('null').toString('base64url'),
    Buffer.from('{"v":1,"k":"o"}').toString('base64url'),
    'eyJ2IjoxfQ==',
  );
  const foreign = fc.constantFrom(...(ctx.foreignCursors.length > 0 ? ctx.foreignCursors : ['x']));
  return fc.oneof(
    flipByte,
    flipChar,
    rewritten,
    junk,
    foreign,
    source.map((c) => c.slice(0, -3)),
    source.map((c) => `${c}AA`),
  );
}

/** A real link with its cursor replaced by a tampered one. */
function tamperedLink(ctx: FuzzContext): fc.Arbitrary<string> {
  return fc.tuple(fc.constantFrom(...ctx.links), tamperedCursor(ctx)).map(([l, cursor]) => {
    const url = new URL(l, 'http://x');
    url.searchParams.set('cursor', cursor);
    return `${url.pathname}${url.search}`;
  });
}

/** A real link, followed as it is (valid) or with its cursor tampered with. */
function linkArb(ctx: FuzzContext): fc.Arbitrary<Part<string>> {
  return mostly(
    ok(fc.constantFrom(...ctx.links)),
    bad('cursor', tamperedLink(ctx), (t) => t.slice(-60)),
    1,
  );
}

/**
 * Reads of a real log link whose cursor was tampered with: refused as a 422, or, when the
 * change happens to leave another cursor of the same query, a page (200).
 */
export function tamperedCursorCaseArb(ctx: FuzzContext): fc.Arbitrary<FuzzCase> {
  const { fixtures: fx } = ctx;
  return fc
    .tuple(tamperedLink(ctx), fc.constantFrom(fx.tokens.admin, fx.tokens.reader, fx.tokens.githubReader))
    .map(([target, token]) =>
      printable({
        wire: { method: 'GET', target, headers: [['Authorization', `Bearer ${token}`]] },
        operation: 'GET /v1/repos/{owner}/{repository}/logs',
        valid: false,
        hostile: [`cursor: ${target.slice(-60)}`],
        expected: [200, 422],
      }),
    );
}

type Credential = keyof FuzzFixtures['tokens'] | null;

/** Whether a credential may do `need` on owner/repository (how seedFuzzStore made each one). */
function mayAct(
  fx: FuzzFixtures,
  credential: Credential,
  [owner, repository]: [string, string],
  need: 'read' | 'write',
) {
  if (owner !== fx.owner) return false;
  switch (credential) {
    case 'admin':
    case 'githubWriter':
      return true;
    case 'reader':
    case 'githubReader':
      return need === 'read';
    case 'scoped':
      return repository === fx.repository;
    default:
      return false;
  }
}

/** Credentials: the seeded ones (allowed or not: decided with the path) and hostile headers. */
function authorizationArb(fx: FuzzFixtures): fc.Arbitrary<Part<[string | null, Credential]>> {
  const names = Object.keys(fx.tokens) as (keyof FuzzFixtures['tokens'])[];
  const usual = names.filter((n) => !['otherRepository', 'foreignOwner', 'revoked'].includes(n));
  const seeded = (list: (keyof FuzzFixtures['tokens'])[], form: (token: string) => string) =>
    fc.constantFrom(...list).map((n): [string, Credential] => [form(fx.tokens[n]), n]);
  return fc.oneof(
    { weight: 10, arbitrary: ok(seeded(usual, (t) => `Bearer ${t}`)) },
    // The scheme is case-insensitive and spaces around the token are allowed.
    { weight: 1, arbitrary: ok(seeded(usual, (t) => `bearer   ${t}  `)) },
    {
      weight: 2,
      arbitrary: ok(seeded(['otherRepository', 'foreignOwner', 'revoked'], (t) => `Bearer ${t}`)),
    },
    { weight: 1, arbitrary: bad('no credential', fc.constant<[null, Credential]>([null, null]), () => '') },
    {
      weight: 2,
      arbitrary: bad(
        'authorization',
        fc.constantFrom(...hostileAuthorizations).map((h): [string, Credential] => [h, null]),
        ([h]) => h.slice(0, 40),
      ),
    },
  );
}

const hostileHosts = [
  'exa mple',
  'a/b',
  '[::1',
  '%',
  'localhost:99999',
  '',
  'x'.repeat(300),
  '@evil',
  'h:1:2',
  '\u00ff',
  'a\\b',
  '?x',
];

/** Path segments for {owner}/{repository}: traversal, encoded slashes, sizes, bad escapes. */
const hostileSegments: fc.Arbitrary<Part<string>> = fc.oneof(
  bad(
    'segment',
    fc.constantFrom(
      '..',
      '.',
      '%2e%2e',
      '..%2F..',
      'acme%2Fwidgets',
      '%2F',
      '%00',
      '%',
      '%zz',
      '%E0%A4%A',
      '%C0%AF',
      '%ED%A0%80',
      '\u00e9',
      'o'.repeat(41),
      'r'.repeat(101),
      'w'.repeat(600),
      'w'.repeat(HUGE),
    ),
  ),
  bad(
    'segment',
    fc.constantFrom(...hostileTexts.slice(0, 30)).map((s) => encodeValue(text(s))),
    (s) => s.slice(0, 40),
  ),
);

/** Rewrites of the whole target: traversal, doubled or trailing slashes, matrix and absolute forms. */
const targetMutations: readonly [string, (target: string, repo: string) => string][] = [
  ['../ into another repository', (t, repo) => t.replace(`/${repo}/`, `/${repo}/../other/`)],
  ['%2F between segments', (t, repo) => t.replace(`/${repo}/`, `%2F${repo}%2F`)],
  ['%2e%2e segment', (t, repo) => t.replace(`/${repo}/`, `/${repo}/%2e%2e/${repo}/`)],
  ['trailing slash', (t) => t.replace(/(\?|$)/, '/$1')],
  ['doubled slash', (t) => `/${t}`],
  ['dot segment', (t) => t.replace('/v1/', '/v1/./')],
  ['matrix parameter', (t) => t.replace(/(\?|$)/, ';x=1$1')],
  ['fragment', (t) => `${t}#frag`],
  ['absolute form', (t) => `http://127.0.0.1${t}`],
  ['no leading slash', (t) => t.slice(1)],
  ['backslash', (t) => t.replace('/v1/', '\\v1\\')],
];

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
      .map((reason) => Buffer.from(JSON.stringify({ reason }), 'utf8')),
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
  const target = logs
    ? fc.oneof(
        { weight: 3, arbitrary: fc.tuple(repoPath, queryArb(op, fx)).map(([p, q]) => targetOf(op, p, q)) },
        {
          weight: 2,
          arbitrary: linkArb(ctx).map((l) => ({
            ...l,
            value: { target: l.value, path: [fx.owner, fx.repository] as [string, string] },
          })),
        },
      )
    : fc.tuple(repoPath, queryArb(op, fx)).map(([p, q]) => targetOf(op, p, q));

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

function targetOf(
  op: FuzzOperation,
  path: Part<[string, string]>,
  query: Part<QueryPair[]>,
): Part<{ target: string; path: [string, string] }> {
  const [owner, repository] = path.value;
  const base = op.path.replace('{owner}', owner).replace('{repository}', repository);
  const qs = query.value.map(([k, v]) => `${encodeValue(text(k))}=${encodeValue(v)}`).join('&');
  return {
    value: { target: qs ? `${base}?${qs}` : base, path: path.value },
    hostile: path.hostile ?? query.hostile,
  };
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
