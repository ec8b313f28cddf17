import { didYouMean } from '../closest-name.ts';
import {
  ATTRIBUTE_NAMES,
  type AttributeName,
  attributeKind,
  isAttributeName,
  type ListAttribute,
  type TextAttribute,
} from './attributes.ts';
import type { AttributeCondition, Operator } from './condition.ts';
import { parseSchedule } from './schedule.ts';

export type ConditionResult = { ok: true; condition: AttributeCondition } | { ok: false; message: string };

/** Longest first, so `>=` is not read as `>` followed by a value starting with `=`. */
const OPERATORS: readonly Operator[] = ['!=', '~=', '>=', '<=', '=', '>', '<'];
const OPERATOR_LIST = '=, !=, ~=, >=, >, <=, <';
const ATTRIBUTE = /^[A-Za-z][A-Za-z0-9_-]*/;
const CASE_INSENSITIVE_PREFIX = '(?i)';

interface Parts {
  source: string;
  negated: boolean;
  count: boolean;
  attribute: AttributeName;
  operator: Operator | null;
  value: string;
}

/**
 * Parses one string condition: `[-][#]attribute[ operator value]`, e.g. `label=hotfix`,
 * `-draft`, `#approved-reviews-by>=2`, `files~=^web/`. The message of a failure says what was
 * expected and what was found; it does not repeat the condition (callers add where it is).
 */
export function parseCondition(text: string): ConditionResult {
  const parts = splitCondition(text);
  if (typeof parts === 'string') return fail(parts);
  const { attribute, count, operator } = parts;
  if (count) return parseCount(parts);
  switch (attributeKind(attribute)) {
    case 'flag':
      if (operator !== null)
        return fail(`${attribute} takes no operator or value; write ${attribute} or -${attribute}`);
      return ok({
        kind: 'flag',
        source: parts.source,
        negated: parts.negated,
        attribute: 'draft',
        operator: null,
      });
    case 'number':
      return parseNumber(parts);
    case 'schedule':
      return parseScheduleCondition(parts);
    default:
      return parseText(parts, attribute as TextAttribute | ListAttribute);
  }
}

function splitCondition(text: string): Parts | string {
  const source = text.trim();
  if (source === '') return 'expected a condition such as label=hotfix, found an empty string';
  let rest = source;
  const negated = rest.startsWith('-');
  if (negated) rest = rest.slice(1);
  const count = rest.startsWith('#');
  if (count) rest = rest.slice(1);
  if (count && rest.startsWith('-')) return `write the negation before the count (-#${rest.slice(1)})`;
  const name = ATTRIBUTE.exec(rest)?.[0];
  if (name === undefined) {
    return `expected an attribute such as label or check-success, found ${JSON.stringify(rest)}`;
  }
  if (!isAttributeName(name)) return `unknown attribute "${name}"${didYouMean(name, ATTRIBUTE_NAMES)}`;
  rest = rest.slice(name.length).trimStart();
  if (rest === '') return { source, negated, count, attribute: name, operator: null, value: '' };
  const operator = OPERATORS.find((candidate) => rest.startsWith(candidate));
  if (operator === undefined) {
    return `expected an operator (${OPERATOR_LIST}) after "${name}", found ${JSON.stringify(rest)}`;
  }
  const value = rest.slice(operator.length).trimStart();
  if (operator === '=' && value.startsWith('=')) return 'expected =, found == (there is no double equals)';
  if (value === '') return `expected a value after "${operator}", found nothing`;
  return { source, negated, count, attribute: name, operator, value };
}

function parseCount(parts: Parts): ConditionResult {
  const { attribute, operator, value } = parts;
  const kind = attributeKind(attribute);
  if (kind !== 'list')
    return fail(`#${attribute}: only list attributes can be counted, and ${attribute} is not one`);
  if (operator === null) return fail(`#${attribute} needs a comparison, e.g. #${attribute}>=1`);
  if (operator === '~=') return fail(`#${attribute} is a number; compare it with =, !=, >=, >, <= or <`);
  if (!/^\d+$/.test(value))
    return fail(`expected a whole number after "${operator}", found ${JSON.stringify(value)}`);
  return ok({
    kind: 'count',
    source: parts.source,
    negated: parts.negated,
    attribute: attribute as ListAttribute,
    operator,
    value: Number(value),
  });
}

function parseNumber(parts: Parts): ConditionResult {
  const { operator, value } = parts;
  if (operator === null) return fail('number needs a comparison, e.g. number>=100');
  if (operator === '~=') return fail('number is a number; compare it with =, !=, >=, >, <= or <');
  if (!/^\d+$/.test(value))
    return fail(`expected a whole number after "${operator}", found ${JSON.stringify(value)}`);
  return ok({
    kind: 'number',
    source: parts.source,
    negated: parts.negated,
    attribute: 'number',
    operator,
    value: Number(value),
  });
}

function parseScheduleCondition(parts: Parts): ConditionResult {
  const { operator, value } = parts;
  if (operator !== '=' && operator !== '!=') {
    const found = operator === null ? 'nothing' : `"${operator}"`;
    return fail(
      `schedule takes = or != and a window, e.g. schedule=Mon-Fri 09:00-17:00[Europe/Paris]; found ${found}`,
    );
  }
  const parsed = parseSchedule(value);
  if (!parsed.ok) return fail(parsed.message);
  return ok({
    kind: 'schedule',
    source: parts.source,
    negated: parts.negated,
    attribute: 'schedule',
    operator,
    schedule: parsed.schedule,
  });
}

function parseText(parts: Parts, attribute: TextAttribute | ListAttribute): ConditionResult {
  const { operator, value, source, negated } = parts;
  if (operator === null)
    return fail(`${attribute} needs an operator and a value, e.g. ${attribute}=${example(attribute)}`);
  if (operator === '~=') return parseRegex(parts, attribute);
  if (operator !== '=' && operator !== '!=') {
    return attributeKind(attribute) === 'list'
      ? fail(`"${operator}" compares numbers; to count ${attribute} values write #${attribute}${operator}N`)
      : fail(`${attribute} compares with =, != or ~=, found "${operator}"`);
  }
  return ok({ kind: 'equality', source, negated, attribute, operator, value });
}

function parseRegex(parts: Parts, attribute: TextAttribute | ListAttribute): ConditionResult {
  // Python-style inline flag, common in configurations written for other merge queues.
  const insensitive = parts.value.startsWith(CASE_INSENSITIVE_PREFIX);
  const pattern = insensitive ? parts.value.slice(CASE_INSENSITIVE_PREFIX.length) : parts.value;
  const flags = insensitive ? 'i' : '';
  try {
    new RegExp(pattern, flags);
  } catch (error) {
    const reason = (error as Error).message.split(': ').at(-1);
    return fail(`invalid regular expression ${JSON.stringify(pattern)}: ${reason}`);
  }
  return ok({
    kind: 'regex',
    source: parts.source,
    negated: parts.negated,
    attribute,
    operator: '~=',
    pattern,
    flags,
  });
}

function example(attribute: TextAttribute | ListAttribute): string {
  if (attribute === 'base' || attribute === 'head') return 'main';
  if (attribute === 'label') return 'hotfix';
  if (attribute === 'files') return 'README.md';
  if (attribute.startsWith('check-')) return 'ci';
  if (attribute === 'title' || attribute === 'body') return 'text';
  return 'octocat';
}

function ok(condition: AttributeCondition): ConditionResult {
  return { ok: true, condition };
}

function fail(message: string): ConditionResult {
  return { ok: false, message };
}
