import { didYouMean } from '../closest-name.ts';
import { describeValue, isMapping } from '../describe-value.ts';
import type { ConditionNode } from './condition.ts';
import { parseCondition } from './parse-condition.ts';

/** Where in the list a problem is (`[1, 'or', 0]`) and what it is. */
export interface ConditionError {
  path: (string | number)[];
  message: string;
}

export type ConditionListResult =
  | { ok: true; conditions: ConditionNode[] }
  | { ok: false; errors: ConditionError[] };

const OPERATOR_KEYS = ['and', 'or', 'not'] as const;
/** Deep enough for any real configuration, shallow enough that evaluation cannot exhaust the stack. */
export const MAX_CONDITION_DEPTH = 32;
/** Words other tools use for the same operators, so the hint names ours rather than a near spelling. */
const SYNONYMS: Record<string, string> = { any: 'or', all: 'and', none: 'not' };
const EXPECTED_CONDITION = 'expected a condition (a string, or a mapping with and, or or not)';

/**
 * Parses a list of conditions as written in YAML: strings, and mappings `{and: [...]}`,
 * `{or: [...]}`, `{not: condition}` that nest. Reports every error, each with its path.
 */
export function parseConditionList(value: unknown): ConditionListResult {
  const errors: ConditionError[] = [];
  if (!Array.isArray(value)) {
    const hint = typeof value === 'string' ? ` (write it as a list: [${value}])` : '';
    return {
      ok: false,
      errors: [{ path: [], message: `expected a list of conditions, found ${describeValue(value)}${hint}` }],
    };
  }
  const conditions = parseItems(value, [], 1, errors);
  return errors.length === 0 ? { ok: true, conditions } : { ok: false, errors };
}

function parseItems(
  items: readonly unknown[],
  path: (string | number)[],
  depth: number,
  errors: ConditionError[],
): ConditionNode[] {
  const nodes: ConditionNode[] = [];
  items.forEach((item, index) => {
    const node = parseNode(item, [...path, index], depth, errors);
    if (node !== undefined) nodes.push(node);
  });
  return nodes;
}

function parseNode(
  value: unknown,
  path: (string | number)[],
  depth: number,
  errors: ConditionError[],
): ConditionNode | undefined {
  if (typeof value === 'string') {
    const parsed = parseCondition(value);
    if (parsed.ok) return parsed.condition;
    errors.push({ path, message: `invalid condition ${JSON.stringify(value.trim())}: ${parsed.message}` });
    return undefined;
  }
  if (!isMapping(value)) {
    errors.push({ path, message: `${EXPECTED_CONDITION}, found ${describeValue(value)}` });
    return undefined;
  }
  if (depth > MAX_CONDITION_DEPTH) {
    errors.push({ path, message: `expected conditions nested at most ${MAX_CONDITION_DEPTH} levels deep` });
    return undefined;
  }
  const keys = Object.keys(value);
  const unknown = keys.filter((key) => !(OPERATOR_KEYS as readonly string[]).includes(key));
  for (const key of unknown) {
    errors.push({
      path: [...path, key],
      message: `unknown key "${key}"${hintFor(key)}; expected and, or or not`,
    });
  }
  if (unknown.length > 0) return undefined;
  const [operator, ...others] = keys as (typeof OPERATOR_KEYS)[number][];
  if (operator === undefined || others.length > 0) {
    const found = keys.length === 0 ? 'an empty mapping' : keys.join(', ');
    errors.push({
      path,
      message: `expected exactly one of and, or, not in a condition mapping, found ${found}`,
    });
    return undefined;
  }
  const operand = value[operator];
  const operandPath = [...path, operator];
  if (operator === 'not') {
    if (Array.isArray(operand)) {
      errors.push({
        path: operandPath,
        message:
          'expected one condition after not, found a list (wrap it: not: {and: [...]} or not: {or: [...]})',
      });
      return undefined;
    }
    const condition = parseNode(operand, operandPath, depth + 1, errors);
    return condition === undefined ? undefined : { kind: 'not', condition };
  }
  if (!Array.isArray(operand) || operand.length === 0) {
    errors.push({
      path: operandPath,
      message: `expected a non-empty list of conditions after ${operator}, found ${describeValue(operand)}`,
    });
    return undefined;
  }
  const before = errors.length;
  const conditions = parseItems(operand, operandPath, depth + 1, errors);
  return errors.length === before ? { kind: operator, conditions } : undefined;
}

function hintFor(key: string): string {
  const synonym = Object.hasOwn(SYNONYMS, key) ? SYNONYMS[key] : undefined;
  return synonym === undefined ? didYouMean(key, OPERATOR_KEYS) : ` (did you mean "${synonym}"?)`;
}
