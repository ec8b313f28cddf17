import { describe, expect, it } from 'vitest';
import { conditionListSchema } from '../../../app/config/conditions/conditions.schema.ts';
import { MAX_CONDITION_DEPTH, parseConditionList } from '../../../app/config/conditions/parse-conditions.ts';

function errorsOf(value: unknown) {
  const result = parseConditionList(value);
  if (result.ok) throw new Error('expected errors');
  return result.errors;
}

describe('parseConditionList — trees', () => {
  it('an empty list has no conditions', () => {
    expect(parseConditionList([])).toEqual({ ok: true, conditions: [] });
  });

  it('a list of strings parses each one, in order', () => {
    const result = parseConditionList(['label=hotfix', '-draft']);
    expect(result.ok && result.conditions.map((c) => ('source' in c ? c.source : c.kind))).toEqual([
      'label=hotfix',
      '-draft',
    ]);
  });

  it('{or: [...]} becomes an or node', () => {
    const result = parseConditionList([{ or: ['label=a', 'label=b'] }]);
    expect(result).toMatchObject({
      ok: true,
      conditions: [{ kind: 'or', conditions: [{ value: 'a' }, { value: 'b' }] }],
    });
  });

  it('{and: [...]} becomes an and node', () => {
    expect(parseConditionList([{ and: ['label=a', 'draft'] }])).toMatchObject({
      ok: true,
      conditions: [{ kind: 'and', conditions: [{ kind: 'equality' }, { kind: 'flag' }] }],
    });
  });

  it('{not: condition} wraps one condition', () => {
    expect(parseConditionList([{ not: 'draft' }])).toMatchObject({
      ok: true,
      conditions: [{ kind: 'not', condition: { kind: 'flag' } }],
    });
  });

  it('operators nest', () => {
    const result = parseConditionList([
      { or: [{ and: ['label=a', { not: { or: ['draft', 'base=dev'] } }] }] },
    ]);
    expect(result).toMatchObject({
      ok: true,
      conditions: [
        {
          kind: 'or',
          conditions: [{ kind: 'and', conditions: [{}, { kind: 'not', condition: { kind: 'or' } }] }],
        },
      ],
    });
  });
});

describe('parseConditionList — errors carry their path', () => {
  it('a bare string is not a list, with a hint', () => {
    expect(errorsOf('check-success=ci')).toEqual([
      {
        path: [],
        message:
          'expected a list of conditions, found "check-success=ci" (write it as a list: [check-success=ci])',
      },
    ]);
  });

  it('a mapping is not a list', () => {
    expect(errorsOf({ and: [] })).toEqual([
      { path: [], message: 'expected a list of conditions, found a mapping' },
    ]);
  });

  it('a bad string names the condition and the reason', () => {
    expect(errorsOf(['label=ok', 'lable=x'])).toEqual([
      {
        path: [1],
        message: 'invalid condition "lable=x": unknown attribute "lable" (did you mean "label"?)',
      },
    ]);
  });

  it('every error is reported, not only the first', () => {
    expect(errorsOf(['lable=x', { or: ['draft', 'title~=('] }]).map((e) => e.path)).toEqual([
      [0],
      [1, 'or', 1],
    ]);
  });

  it.each([
    [42, 'expected a condition (a string, or a mapping with and, or or not), found 42'],
    [true, 'expected a condition (a string, or a mapping with and, or or not), found true'],
    [null, 'expected a condition (a string, or a mapping with and, or or not), found null'],
    [['label=a'], 'expected a condition (a string, or a mapping with and, or or not), found a list'],
    [{}, 'expected exactly one of and, or, not in a condition mapping, found an empty mapping'],
    [
      { and: ['draft'], or: ['draft'] },
      'expected exactly one of and, or, not in a condition mapping, found and, or',
    ],
  ])('item %j: %s', (item, message) => {
    expect(errorsOf([item])).toEqual([{ path: [0], message }]);
  });

  it('an unknown key in a condition mapping is named at its own path', () => {
    expect(errorsOf([{ any: ['draft'] }])).toEqual([
      { path: [0, 'any'], message: 'unknown key "any" (did you mean "or"?); expected and, or or not' },
    ]);
    expect(errorsOf([{ when: ['draft'] }])).toEqual([
      { path: [0, 'when'], message: 'unknown key "when"; expected and, or or not' },
    ]);
    expect(errorsOf([{ nto: 'draft' }])).toEqual([
      { path: [0, 'nto'], message: 'unknown key "nto" (did you mean "not"?); expected and, or or not' },
    ]);
  });

  it.each([
    [{ or: [] }, 'or', 'expected a non-empty list of conditions after or, found an empty list'],
    [{ and: 'draft' }, 'and', 'expected a non-empty list of conditions after and, found "draft"'],
  ])('%j is refused', (item, key, message) => {
    expect(errorsOf([item])).toEqual([{ path: [0, key], message }]);
  });

  it('not takes one condition, not a list', () => {
    expect(errorsOf([{ not: ['draft'] }])).toEqual([
      {
        path: [0, 'not'],
        message:
          'expected one condition after not, found a list (wrap it: not: {and: [...]} or not: {or: [...]})',
      },
    ]);
  });

  it(`nesting deeper than ${MAX_CONDITION_DEPTH} levels is refused instead of overflowing the stack`, () => {
    let deep: unknown = 'draft';
    for (let i = 0; i < 10_000; i++) deep = { not: deep };
    const errors = errorsOf([deep]);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toBe(`expected conditions nested at most ${MAX_CONDITION_DEPTH} levels deep`);
    expect(errors[0]!.path).toHaveLength(1 + MAX_CONDITION_DEPTH);
  });
});

describe('conditionListSchema', () => {
  it('turns each error into an issue at its path', () => {
    const result = conditionListSchema.safeParse(['draft', { or: ['lable=x'] }]);
    expect(result.error?.issues.map(({ path, message }) => ({ path, message }))).toEqual([
      {
        path: [1, 'or', 0],
        message: 'invalid condition "lable=x": unknown attribute "lable" (did you mean "label"?)',
      },
    ]);
  });

  it('outputs condition trees', () => {
    expect(conditionListSchema.parse(['-draft'])).toEqual([
      { kind: 'flag', source: '-draft', negated: true, attribute: 'draft', operator: null },
    ]);
  });
});
