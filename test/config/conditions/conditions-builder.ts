import type { ConditionNode } from '../../../app/config/conditions/condition.ts';
import type { ConditionInput } from '../../../app/config/conditions/conditions.schema.ts';
import { parseConditionList } from '../../../app/config/conditions/parse-conditions.ts';

/** Parses conditions written as in YAML; a test with a typo fails loudly here. */
export function conditions(...items: ConditionInput[]): ConditionNode[] {
  const result = parseConditionList(items);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.conditions;
}
