import type { ConditionNode } from '../config/conditions/condition.ts';

/** The check names `check-…=name` conditions name, anywhere in the tree. */
export function namedChecks(nodes: readonly ConditionNode[], names = new Set<string>()): Set<string> {
  for (const node of nodes) {
    if (node.kind === 'and' || node.kind === 'or') namedChecks(node.conditions, names);
    else if (node.kind === 'not') namedChecks([node.condition], names);
    else if (node.kind === 'equality' && node.attribute.startsWith('check-')) names.add(node.value);
  }
  return names;
}
