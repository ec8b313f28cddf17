import { DEFAULT_PARTITION_NAME } from '../../shared/schemas/default-names.ts';
import { evaluateConditions } from '../config/conditions/evaluate-conditions.ts';
import type { PullRequestFacts } from '../config/conditions/pull-request-facts.ts';
import type { TrainyardConfig } from '../config/config.schema.ts';

/**
 * The partitions a pull request belongs to, in partition rule order. No rules ⇒ DEFAULT_PARTITION_NAME.
 * A pull request that matches none of the rules may touch anything, so it is validated in every
 * partition rather than in none.
 */
export function decidePartitions(config: TrainyardConfig, facts: PullRequestFacts, now: Date): string[] {
  const rules = config.partition_rules;
  if (rules.length === 0) return [DEFAULT_PARTITION_NAME];
  const matching = rules.filter((rule) => evaluateConditions(rule.conditions, facts, now).match);
  return (matching.length > 0 ? matching : rules).map((rule) => rule.name);
}
