import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ConditionInput } from '../../../app/config/conditions/conditions.schema.ts';
import {
  computeConditionsOutcome,
  evaluateConditions,
} from '../../../app/config/conditions/evaluate-conditions.ts';
import { parseCondition } from '../../../app/config/conditions/parse-condition.ts';
import { parseConditionList } from '../../../app/config/conditions/parse-conditions.ts';
import {
  type CheckState,
  checkStateSchema,
  type PullRequestFacts,
} from '../../../app/config/conditions/pull-request-facts.ts';
import { conditions } from './conditions-builder.ts';

const CHECK_NAMES = ['ci', 'lint', 'ci/unit'];
const VALUES = [
  'hotfix',
  'wip',
  'ci',
  'lint',
  'ci/unit',
  'main',
  '^ci',
  '^web/',
  'octocat',
  'feat',
  '.*',
  'Bug',
];
const TEXT_OR_LIST = [
  'label',
  'files',
  'base',
  'head',
  'author',
  'title',
  'body',
  'approved-reviews-by',
  'check-success',
  'check-failure',
  'check-pending',
  'check-neutral',
];
const LISTS = ['label', 'files', 'approved-reviews-by', 'check-success', 'check-failure', 'check-pending'];
const COMPARISONS = ['=', '!=', '>=', '>', '<=', '<'];

/** A valid, un-negated condition string. */
const positiveCondition = fc.oneof(
  fc
    .tuple(fc.constantFrom(...TEXT_OR_LIST), fc.constantFrom('=', '!=', '~='), fc.constantFrom(...VALUES))
    .map(([attribute, operator, value]) => `${attribute}${operator}${value}`),
  fc
    .tuple(fc.constantFrom(...LISTS), fc.constantFrom(...COMPARISONS), fc.integer({ min: 0, max: 3 }))
    .map(([attribute, operator, count]) => `#${attribute}${operator}${count}`),
  fc.constantFrom('draft', 'number>=40', 'number!=42'),
  fc.constantFrom('schedule=Mon-Fri 09:00-17:00[Europe/Paris]', 'schedule!=Sat-Sun', 'schedule=12:00-13:00'),
);

const condition: fc.Arbitrary<string> = fc
  .tuple(fc.boolean(), positiveCondition)
  .map(([negated, text]) => (negated ? `-${text}` : text));

const tree = fc.letrec<{ node: ConditionInput }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    condition,
    fc.record({ and: fc.array(tie('node'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ or: fc.array(tie('node'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ not: tie('node') }),
  ),
})).node;

const checkRun = fc.record({
  name: fc.constantFrom(...CHECK_NAMES),
  state: fc.constantFrom(...checkStateSchema.options),
});

const pullRequest: fc.Arbitrary<PullRequestFacts> = fc.record({
  number: fc.integer({ min: 1, max: 100 }),
  base: fc.constantFrom('main', 'dev'),
  head: fc.constantFrom('feat', 'wip'),
  author: fc.constantFrom('octocat', 'OctoCat', 'bot'),
  labels: fc.subarray(['hotfix', 'wip', 'bug', 'Bug']),
  title: fc.constantFrom('feat: x', 'fix: y', 'WIP'),
  body: fc.constantFrom('', 'hotfix please'),
  draft: fc.boolean(),
  files: fc.subarray(['web/a.ts', 'api/b.ts', 'README.md']),
  checkRuns: fc.array(checkRun, { maxLength: 5 }),
  approvedReviewsBy: fc.subarray(['octocat', 'alice']),
  changesRequestedReviewsBy: fc.subarray(['bob']),
});

const now = fc.integer({ min: Date.parse('2024-01-01T00:00:00Z'), max: Date.parse('2026-01-01T00:00:00Z') });

describe('conditions — properties', () => {
  it('parseCondition never throws, whatever the string', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.string({ unit: 'grapheme' }),
          condition.map((c) => `${c}(`),
        ),
        (text) => {
          const result = parseCondition(text);
          expect(typeof result.ok).toBe('boolean');
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('parseConditionList never throws, whatever the value', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.anything({ maxDepth: 3 }), fc.jsonValue({ maxDepth: 3 }), fc.array(tree)),
        (value) => {
          const result = parseConditionList(value);
          expect(result.ok ? result.conditions : result.errors.length).toBeTruthy();
        },
      ),
      { numRuns: 500 },
    );
  });

  it('every generated condition parses, and its label is the text as written', () => {
    fc.assert(
      fc.property(condition, (text) => {
        expect(parseCondition(text)).toMatchObject({ ok: true, condition: { source: text } });
      }),
    );
  });

  it('-cond is the negation of cond', () => {
    fc.assert(
      fc.property(positiveCondition, pullRequest, now, (text, pr, at) => {
        const plain = evaluateConditions(conditions(text), pr, at).match;
        expect(evaluateConditions(conditions(`-${text}`), pr, at).match).toBe(!plain);
        expect(evaluateConditions(conditions({ not: text }), pr, at).match).toBe(!plain);
      }),
      { numRuns: 500 },
    );
  });

  it('a list matches when every condition matches; or when some does', () => {
    fc.assert(
      fc.property(fc.array(tree, { maxLength: 4 }), pullRequest, now, (items, pr, at) => {
        const each = items.map((item) => evaluateConditions(conditions(item), pr, at).match);
        const all = evaluateConditions(conditions(...items), pr, at);
        expect(all.match).toBe(each.every(Boolean));
        expect(all.subconditions.map((s) => s.match)).toEqual(each);
        if (items.length > 0)
          expect(evaluateConditions(conditions({ or: items }), pr, at).match).toBe(each.some(Boolean));
      }),
      { numRuns: 200 },
    );
  });

  it('"fails" is final: however pending or missing checks end, the conditions never match', () => {
    const ending = fc.array(
      fc.record({ name: fc.constantFrom(...CHECK_NAMES), state: fc.constantFrom(...FINAL) }),
      {
        maxLength: 4,
      },
    );
    fc.assert(
      fc.property(
        fc.array(tree, { minLength: 1, maxLength: 3 }),
        pullRequest,
        now,
        ending,
        (items, pr, at, later) => {
          const list = conditions(...items);
          if (computeConditionsOutcome(list, pr, at).outcome !== 'fails') return;
          const settled = pr.checkRuns.filter((run) => run.state !== 'pending');
          const finished = {
            ...pr,
            checkRuns: [...settled, ...later.filter((run) => !isSettled(settled, run.name))],
          };
          expect(evaluateConditions(list, finished, at).match).toBe(false);
        },
      ),
      { numRuns: 1_000 },
    );
  });
});

const FINAL: CheckState[] = checkStateSchema.options.filter((state) => state !== 'pending');

function isSettled(runs: readonly { name: string }[], name: string): boolean {
  return runs.some((run) => run.name === name);
}
