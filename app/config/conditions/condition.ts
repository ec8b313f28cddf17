import type { ListAttribute, TextAttribute } from './attributes.ts';
import type { Schedule } from './schedule.ts';

export type ComparisonOperator = '=' | '!=' | '>=' | '>' | '<=' | '<';
export type Operator = ComparisonOperator | '~=';

/** `source` is the condition as the user wrote it: it is the label shown back to them. */
interface Leaf {
  source: string;
  negated: boolean;
}

/**
 * One parsed string condition. Plain data (no RegExp, no Date) so a configuration can be stored
 * and compared as JSON.
 */
export type AttributeCondition =
  | (Leaf & { kind: 'flag'; attribute: 'draft'; operator: null })
  | (Leaf & {
      kind: 'equality';
      attribute: TextAttribute | ListAttribute;
      operator: '=' | '!=';
      value: string;
    })
  | (Leaf & {
      kind: 'regex';
      attribute: TextAttribute | ListAttribute;
      operator: '~=';
      pattern: string;
      flags: string;
    })
  | (Leaf & { kind: 'count'; attribute: ListAttribute; operator: ComparisonOperator; value: number })
  | (Leaf & { kind: 'number'; attribute: 'number'; operator: ComparisonOperator; value: number })
  | (Leaf & { kind: 'schedule'; attribute: 'schedule'; operator: '=' | '!='; schedule: Schedule });

/** A condition tree; a list of conditions (queue_conditions, …) is an implicit `and`. */
export type ConditionNode =
  | AttributeCondition
  | { kind: 'and'; conditions: readonly ConditionNode[] }
  | { kind: 'or'; conditions: readonly ConditionNode[] }
  | { kind: 'not'; condition: ConditionNode };
