import type { CheckState, PullRequestFacts } from './pull-request-facts.ts';

/** What an attribute holds decides which operators it accepts and how it matches. */
export type AttributeKind = 'text' | 'list' | 'flag' | 'number' | 'schedule';

export const TEXT_ATTRIBUTES = ['base', 'head', 'author', 'title', 'body'] as const;
export const CHECK_ATTRIBUTES = [
  'check-success',
  'check-failure',
  'check-pending',
  'check-neutral',
  'check-skipped',
  'check-stale',
] as const;
export const LIST_ATTRIBUTES = [
  'label',
  'files',
  'approved-reviews-by',
  'changes-requested-reviews-by',
  ...CHECK_ATTRIBUTES,
] as const;

export type TextAttribute = (typeof TEXT_ATTRIBUTES)[number];
export type CheckAttribute = (typeof CHECK_ATTRIBUTES)[number];
export type ListAttribute = (typeof LIST_ATTRIBUTES)[number];
export type AttributeName = TextAttribute | ListAttribute | 'draft' | 'number' | 'schedule';

export const ATTRIBUTE_NAMES: readonly AttributeName[] = [
  ...TEXT_ATTRIBUTES,
  ...LIST_ATTRIBUTES,
  'draft',
  'number',
  'schedule',
];

export function attributeKind(name: AttributeName): AttributeKind {
  if (name === 'draft') return 'flag';
  if (name === 'number') return 'number';
  if (name === 'schedule') return 'schedule';
  return isTextAttribute(name) ? 'text' : 'list';
}

export function isAttributeName(name: string): name is AttributeName {
  return (ATTRIBUTE_NAMES as readonly string[]).includes(name);
}

export function isCheckAttribute(name: AttributeName): name is CheckAttribute {
  return (CHECK_ATTRIBUTES as readonly string[]).includes(name);
}

/** GitHub logins and label names are unique regardless of case, so they compare that way. */
export function isCaseInsensitive(name: AttributeName): boolean {
  return (
    name === 'author' ||
    name === 'label' ||
    name === 'approved-reviews-by' ||
    name === 'changes-requested-reviews-by'
  );
}

/**
 * Which check states each check attribute lists. Every "did not succeed and will not change"
 * conclusion counts as a failure, as GitHub's own required checks treat them.
 */
export const CHECK_ATTRIBUTE_STATES: Record<CheckAttribute, readonly CheckState[]> = {
  'check-success': ['success'],
  'check-failure': ['failure', 'error', 'cancelled', 'timed_out', 'action_required'],
  'check-pending': ['pending'],
  'check-neutral': ['neutral'],
  'check-skipped': ['skipped'],
  'check-stale': ['stale'],
};

/** The latest state of each check name: a re-run replaces the earlier run of the same name. */
export function latestCheckStates(facts: PullRequestFacts): Map<string, CheckState> {
  const states = new Map<string, CheckState>();
  for (const run of facts.checkRuns) {
    states.delete(run.name);
    states.set(run.name, run.state);
  }
  return states;
}

export function isTextAttribute(name: AttributeName): name is TextAttribute {
  return (TEXT_ATTRIBUTES as readonly string[]).includes(name);
}

/** The strings a text or list attribute holds: one for a text attribute, any number for a list. */
export function readValues(
  facts: PullRequestFacts,
  name: TextAttribute | ListAttribute,
  checkStates: ReadonlyMap<string, CheckState>,
): readonly string[] {
  return isTextAttribute(name) ? [facts[name]] : readList(facts, name, checkStates);
}

/** `checkStates` is `latestCheckStates(facts)`, computed once per evaluation. */
export function readList(
  facts: PullRequestFacts,
  name: ListAttribute,
  checkStates: ReadonlyMap<string, CheckState>,
): readonly string[] {
  switch (name) {
    case 'label':
      return facts.labels;
    case 'files':
      return facts.files;
    case 'approved-reviews-by':
      return facts.approvedReviewsBy;
    case 'changes-requested-reviews-by':
      return facts.changesRequestedReviewsBy;
    default: {
      const wanted = CHECK_ATTRIBUTE_STATES[name];
      return [...checkStates].filter(([, state]) => wanted.includes(state)).map(([n]) => n);
    }
  }
}
