import { latestCheckStates } from './attributes.ts';
import type { AttributeCondition, ConditionNode } from './condition.ts';
import { type AttributeContext, evaluateAttribute } from './evaluate-attribute.ts';
import type { PullRequestFacts } from './pull-request-facts.ts';
import { type Instant, nextScheduleChange, type ScheduleEvaluation, toEpochMs } from './schedule.ts';

/** A condition's evaluation as events carry it (`conditionEvaluationSchema` in shared/). */
export interface EvaluationTree {
  match: boolean;
  label: string;
  is_label_user_input: boolean;
  description: string | null;
  attribute_name: string | null;
  operator: string | null;
  schedule: ScheduleEvaluation | null;
  subconditions: EvaluationTree[];
  evaluations: unknown[];
}

/** What merge conditions say about a batch under test. */
export type ConditionsOutcome = 'passes' | 'pending' | 'fails';

/**
 * A judged node: whether it matches now, and whether it still could match / stop matching as
 * checks complete or time passes. Labels, reviews, files… are taken as fixed.
 */
interface Judged {
  tree: EvaluationTree;
  canBeTrue: boolean;
  canBeFalse: boolean;
}

interface Context extends AttributeContext {
  assumeSchedulesOpen: boolean;
}

/** Evaluates a list of conditions (an implicit AND, labelled "all of") on a pull request at `now`. */
export function evaluateConditions(
  conditions: readonly ConditionNode[],
  facts: PullRequestFacts,
  now: Instant,
): EvaluationTree {
  return judgeList(conditions, context(facts, now, false)).tree;
}

/** False once the conditions cannot match whatever the pending checks and the clock do. */
export function canStillMatch(
  conditions: readonly ConditionNode[],
  facts: PullRequestFacts,
  now: Instant,
): boolean {
  return judgeList(conditions, context(facts, now, false)).canBeTrue;
}

/**
 * passes: the conditions hold now; pending: they do not yet, but checks still running (or not
 * reported yet) or a schedule opening later could make them hold; fails: they cannot any more.
 * "fails" is certain. "pending" can be optimistic when branches contradict each other on the
 * same check (`check-success=ci` and `check-failure=ci`); checks_timeout ends such a wait.
 */
export function computeConditionsOutcome(
  conditions: readonly ConditionNode[],
  facts: PullRequestFacts,
  now: Instant,
): { outcome: ConditionsOutcome; evaluation: EvaluationTree } {
  const judged = judgeList(conditions, context(facts, now, false));
  const outcome = judged.tree.match ? 'passes' : judged.canBeTrue ? 'pending' : 'fails';
  return { outcome, evaluation: judged.tree };
}

/** True when the conditions fail now only because a schedule window is closed. */
export function isWaitingForSchedule(
  conditions: readonly ConditionNode[],
  facts: PullRequestFacts,
  now: Instant,
): boolean {
  if (judgeList(conditions, context(facts, now, false)).tree.match) return false;
  return judgeList(conditions, context(facts, now, true)).tree.match;
}

/** The next instant (epoch ms) a schedule in these conditions opens or closes: when to wake up. */
export function nextConditionsChange(conditions: readonly ConditionNode[], now: Instant): number | null {
  const changes = conditions.flatMap((node) => scheduleChanges(node, now));
  return changes.length === 0 ? null : Math.min(...changes);
}

function scheduleChanges(node: ConditionNode, now: Instant): number[] {
  if (node.kind === 'and' || node.kind === 'or')
    return node.conditions.flatMap((n) => scheduleChanges(n, now));
  if (node.kind === 'not') return scheduleChanges(node.condition, now);
  if (node.kind !== 'schedule') return [];
  const next = nextScheduleChange(node.schedule, now);
  return next === null ? [] : [next];
}

function context(facts: PullRequestFacts, now: Instant, assumeSchedulesOpen: boolean): Context {
  return { facts, now: toEpochMs(now), checkStates: latestCheckStates(facts), assumeSchedulesOpen };
}

function judgeList(conditions: readonly ConditionNode[], ctx: Context): Judged {
  return combine(
    'all of',
    conditions.map((node) => judge(node, ctx)),
    'and',
  );
}

function judge(node: ConditionNode, ctx: Context): Judged {
  switch (node.kind) {
    case 'and':
      return combine(
        'all of',
        node.conditions.map((child) => judge(child, ctx)),
        'and',
      );
    case 'or':
      return combine(
        'any of',
        node.conditions.map((child) => judge(child, ctx)),
        'or',
      );
    case 'not': {
      const inner = judge(node.condition, ctx);
      return {
        tree: operatorTree('not', !inner.tree.match, [inner.tree]),
        canBeTrue: inner.canBeFalse,
        canBeFalse: inner.canBeTrue,
      };
    }
    default:
      return judgeLeaf(node, ctx);
  }
}

function combine(label: string, children: Judged[], kind: 'and' | 'or'): Judged {
  const all = kind === 'and';
  const trees = children.map((child) => child.tree);
  return {
    tree: operatorTree(label, all ? trees.every((t) => t.match) : trees.some((t) => t.match), trees),
    canBeTrue: all ? children.every((c) => c.canBeTrue) : children.some((c) => c.canBeTrue),
    canBeFalse: all ? children.some((c) => c.canBeFalse) : children.every((c) => c.canBeFalse),
  };
}

function operatorTree(label: string, match: boolean, subconditions: EvaluationTree[]): EvaluationTree {
  return {
    match,
    label,
    is_label_user_input: false,
    description: null,
    attribute_name: null,
    operator: null,
    schedule: null,
    subconditions,
    evaluations: [],
  };
}

function judgeLeaf(condition: AttributeCondition, ctx: Context): Judged {
  const { raw, canBeTrue, canBeFalse, schedule } = evaluateAttribute(condition, ctx);
  if (condition.kind === 'schedule' && ctx.assumeSchedulesOpen) {
    return { tree: leafTree(condition, true, schedule), canBeTrue: true, canBeFalse: false };
  }
  return condition.negated
    ? { tree: leafTree(condition, !raw, schedule), canBeTrue: canBeFalse, canBeFalse: canBeTrue }
    : { tree: leafTree(condition, raw, schedule), canBeTrue, canBeFalse };
}

function leafTree(
  condition: AttributeCondition,
  match: boolean,
  schedule: ScheduleEvaluation | null,
): EvaluationTree {
  return {
    match,
    label: condition.source,
    is_label_user_input: true,
    description: null,
    attribute_name: condition.attribute,
    operator: condition.operator,
    schedule,
    subconditions: [],
    evaluations: [],
  };
}
