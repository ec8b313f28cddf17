import fc from 'fast-check';
import { bad, mostly, ok, type Part, shortText, text } from './fuzz-case.ts';
import type { FuzzOperation, FuzzParameter, ParameterKind } from './fuzz-openapi.ts';
import type { FuzzFixtures } from './fuzz-seed.ts';
import {
  extremeWindows,
  hostileDates,
  hostileNumbers,
  hostileRaw,
  hostileTexts,
  type WireValue,
} from './fuzz-values.ts';

export const DAY = 86_400_000;
export const MAX_PERIOD_DAYS = 366;

// Values the seeded history holds, so that filters match something (names come from the document).
export const domainValues: Record<string, string[]> = {
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

export type QueryPair = [string, WireValue];

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

export function queryArb(op: FuzzOperation, fx: FuzzFixtures): fc.Arbitrary<Part<QueryPair[]>> {
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
