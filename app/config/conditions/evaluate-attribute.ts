import { isCaseInsensitive, isCheckAttribute, readList, readValues } from './attributes.ts';
import type { AttributeCondition, ComparisonOperator } from './condition.ts';
import type { CheckState, PullRequestFacts } from './pull-request-facts.ts';
import {
  describeSchedule,
  isWithinSchedule,
  nextScheduleChange,
  type ScheduleEvaluation,
} from './schedule.ts';

export interface AttributeContext {
  facts: PullRequestFacts;
  now: number;
  checkStates: ReadonlyMap<string, CheckState>;
}

/**
 * The value of one condition before its `-` negation, and the values it can still take while
 * the pull request stays as it is: check runs may still finish and new ones may still appear
 * (a CI reports its jobs over time), and the clock moves. A check that finished is final, and
 * labels, reviews, files… are fixed for the purpose of this outlook.
 */
export interface AttributeOutlook {
  raw: boolean;
  canBeTrue: boolean;
  canBeFalse: boolean;
  schedule: ScheduleEvaluation | null;
}

export function evaluateAttribute(condition: AttributeCondition, ctx: AttributeContext): AttributeOutlook {
  const { facts, checkStates } = ctx;
  switch (condition.kind) {
    case 'flag':
      return fixed(facts.draft);
    case 'number':
      return fixed(compare(facts.number, condition.operator, condition.value));
    case 'count': {
      const count = readList(facts, condition.attribute, checkStates).length;
      const raw = compare(count, condition.operator, condition.value);
      if (!isCheckAttribute(condition.attribute)) return fixed(raw);
      // Lists of finished states only grow; the pending list can also empty as checks finish.
      const lowest = condition.attribute === 'check-pending' ? 0 : count;
      const reachable = [
        count,
        lowest,
        Math.max(lowest, condition.value),
        Math.max(lowest, condition.value + 1),
      ];
      return outlook(
        raw,
        reachable.map((n) => compare(n, condition.operator, condition.value)),
      );
    }
    case 'equality': {
      const fold = isCaseInsensitive(condition.attribute) ? (s: string) => s.toLowerCase() : (s: string) => s;
      const wanted = fold(condition.value);
      const found = readValues(facts, condition.attribute, checkStates).some(
        (value) => fold(value) === wanted,
      );
      const raw = condition.operator === '=' ? found : !found;
      const state = checkStates.get(condition.value);
      const final = state !== undefined && state !== 'pending';
      return isCheckAttribute(condition.attribute) && !final ? open(raw) : fixed(raw);
    }
    case 'regex': {
      const regex = compile(condition.pattern, condition.flags);
      const raw = readValues(facts, condition.attribute, checkStates).some((value) => regex.test(value));
      if (!isCheckAttribute(condition.attribute)) return fixed(raw);
      // A matching name, once in a list of finished states, stays there; one may still arrive.
      return raw && condition.attribute !== 'check-pending' ? fixed(true) : open(raw);
    }
    case 'schedule': {
      const inside = isWithinSchedule(condition.schedule, ctx.now);
      const next = nextScheduleChange(condition.schedule, ctx.now);
      const raw = condition.operator === '=' ? inside : !inside;
      return {
        ...(next === null ? fixed(raw) : open(raw)),
        schedule: describeSchedule(condition.schedule, inside, next),
      };
    }
  }
}

function fixed(raw: boolean): AttributeOutlook {
  return { raw, canBeTrue: raw, canBeFalse: !raw, schedule: null };
}

function open(raw: boolean): AttributeOutlook {
  return { raw, canBeTrue: true, canBeFalse: true, schedule: null };
}

function outlook(raw: boolean, reachable: boolean[]): AttributeOutlook {
  return { raw, canBeTrue: reachable.includes(true), canBeFalse: reachable.includes(false), schedule: null };
}

function compare(actual: number, operator: ComparisonOperator, expected: number): boolean {
  switch (operator) {
    case '=':
      return actual === expected;
    case '!=':
      return actual !== expected;
    case '>=':
      return actual >= expected;
    case '>':
      return actual > expected;
    case '<=':
      return actual <= expected;
    case '<':
      return actual < expected;
  }
}

const compiled = new Map<string, RegExp>();

/** Patterns were validated when the configuration was parsed; compile each once. */
function compile(pattern: string, flags: string): RegExp {
  const key = `${flags}/${pattern}`;
  let regex = compiled.get(key);
  if (regex === undefined) {
    if (compiled.size > 1_000) compiled.clear();
    regex = new RegExp(pattern, flags);
    compiled.set(key, regex);
  }
  return regex;
}
