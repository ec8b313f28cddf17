import { z } from 'zod';
import type { ConditionNode } from './condition.ts';
import { parseConditionList } from './parse-conditions.ts';

/** A condition as written in `.github/trainyard.yml`. */
export type ConditionInput =
  | string
  | { and: ConditionInput[] }
  | { or: ConditionInput[] }
  | { not: ConditionInput };

/**
 * A list of conditions (an implicit AND), parsed into condition trees. Every problem becomes
 * its own issue at its own path (`[1, 'or', 0]`), with a message saying what was expected.
 */
export const conditionListSchema = z
  .custom<ConditionInput[]>(() => true)
  .transform((value, ctx): readonly ConditionNode[] => {
    const parsed = parseConditionList(value);
    if (parsed.ok) return parsed.conditions;
    for (const error of parsed.errors) {
      ctx.issues.push({ code: 'custom', message: error.message, path: error.path, input: value });
    }
    return z.NEVER;
  })
  .describe('Conditions, all of which must hold: strings like `label=hotfix`, or {and|or|not} mappings');
