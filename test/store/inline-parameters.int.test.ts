import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../app/store/database.ts';
import { inlineParameters } from '../../app/store/inline-parameters.ts';
import { openTestStore } from '../support/test-store.ts';

let store: Store;

beforeAll(async () => {
  store = await openTestStore();
});

afterAll(async () => {
  await store?.close();
});

/** The row a statement gives with its parameters bound (extended protocol) and written in (simple query). */
async function bothWays(text: string, values: unknown[]) {
  const bound = await store.pool.query(text, values);
  const inlined = await store.pool.query(inlineParameters(text, values));
  return { bound: bound.rows[0], inlined: inlined.rows[0] };
}

describe('inlineParameters', () => {
  const awkward = `it's a "quote", a \\ backslash, \\' both, {braces}, a,comma, NULL, 'x'' and ünïcödé\nnew line $1`;

  it.each([
    ['text', 'SELECT $1::text AS v', [awkward]],
    ['empty text', 'SELECT $1::text AS v', ['']],
    ['null', 'SELECT $1::text AS v', [null]],
    ['integer', 'SELECT $1::int4 AS v', [-42]],
    ['bigint as text', 'SELECT $1::bigint AS v', ['9007199254740993']],
    ['boolean', 'SELECT $1::bool AS v', [false]],
    ['fraction', 'SELECT $1::float8 AS v', [0.1]],
    ['timestamptz', 'SELECT $1::timestamptz AS v', [new Date('2026-11-02T09:00:00.123Z')]],
    ['text array', 'SELECT $1::text[] AS v', [[awkward, null, 'NULL', '', '"', '\\', 'a,b', '{x}']]],
    ['int array with nulls', 'SELECT $1::int4[] AS v', [[1, null, 3]]],
    ['empty array', 'SELECT $1::text[] AS v', [[]]],
    ['json text', 'SELECT $1::jsonb AS v', [JSON.stringify({ a: awkward, b: [1, null, '\\"'] })]],
    ['json object', 'SELECT $1::jsonb AS v', [{ a: awkward, n: 1.5 }]],
    ['jsonb array of json texts', 'SELECT $1::jsonb[] AS v', [[JSON.stringify({ q: awkward }), '[1,2]']]],
  ])('gives the same value as a bound parameter: %s', async (_name, text, values) => {
    const { bound, inlined } = await bothWays(text, values);
    expect(inlined).toEqual(bound);
    expect(bound).toBeDefined();
  });

  it('escapes any text exactly as libpq does (pg.escapeLiteral)', () => {
    const awkwardText = fc.string({ unit: fc.constantFrom("'", '\\', '"', 'a', 'é', ' ', '$', '1', '\n') });
    fc.assert(
      fc.property(fc.oneof(awkwardText, fc.string()), (text) => {
        expect(inlineParameters('SELECT $1', [text])).toBe(`SELECT ${pg.escapeLiteral(text)}`);
      }),
      { numRuns: 500 },
    );
  });

  it('replaces $10 with the tenth value, not $1 followed by a 0', async () => {
    const values = Array.from({ length: 10 }, (_, i) => `v${i + 1}`);
    const text = `SELECT ${values.map((_, i) => `$${i + 1}::text AS c${i + 1}`).join(', ')}`;
    const { bound, inlined } = await bothWays(text, values);
    expect(inlined).toEqual(bound);
    expect(inlined.c10).toBe('v10');
  });

  it('leaves placeholders inside quoted literals and identifiers alone', async () => {
    const text = `SELECT '$1 and it''s $2' AS "col $1", $1::text AS "a""$2"`;
    expect(inlineParameters(text, ['x'])).toBe(`SELECT '$1 and it''s $2' AS "col $1", 'x'::text AS "a""$2"`);
    const { rows } = await store.pool.query(inlineParameters(text, ['x']));
    expect(rows[0]).toEqual({ 'col $1': "$1 and it's $2", 'a"$2': 'x' });
  });

  it('refuses what it cannot write faithfully', () => {
    expect(() => inlineParameters('SELECT $2', ['only one'])).toThrow('$2 has no value');
    expect(() => inlineParameters('SELECT $1', [Number.NaN])).toThrow('NaN');
    expect(() => inlineParameters('SELECT $1', [[['nested']]])).toThrow('nested arrays');
    expect(() => inlineParameters("SELECT 'open", [])).toThrow('unterminated');
    expect(() => inlineParameters('SELECT $1', [() => 1])).toThrow('function');
  });

  it('cannot be escaped from: a value that looks like SQL stays a value', async () => {
    const attack = "'); DROP TABLE events; --";
    const { rows } = await store.pool.query(
      inlineParameters('SELECT $1::text AS v, $2::text[] AS a', [attack, [attack]]),
    );
    expect(rows[0]).toEqual({ v: attack, a: [attack] });
    expect(
      (await store.pool.query('SELECT count(*)::int AS n FROM events')).rows[0].n,
    ).toBeGreaterThanOrEqual(0);
  });
});
