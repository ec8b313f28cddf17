import { evaluateConditions } from '../config/conditions/evaluate-conditions.ts';
import type { PullRequestFacts } from '../config/conditions/pull-request-facts.ts';
import { DEFAULT_PRIORITY, type TrainyardConfig } from '../config/config.schema.ts';
import { abortBatchesFrom } from './abort.ts';
import type { Session } from './state.ts';
import { findSession, lanesOf, type Transition } from './transition.ts';

export interface PriorityDecision {
  priority: number;
  priorityAlias: string;
  priorityRuleName: string | null;
  allowChecksInterruption: boolean;
}

/** The first matching priority rule wins; none ⇒ medium, and nothing to interrupt. */
export function decidePriority(
  config: TrainyardConfig,
  facts: PullRequestFacts,
  now: Date,
): PriorityDecision {
  const rule = config.priority_rules.find((r) => evaluateConditions(r.conditions, facts, now).match);
  if (rule === undefined) {
    return {
      priority: DEFAULT_PRIORITY.priority,
      priorityAlias: DEFAULT_PRIORITY.priority_alias,
      priorityRuleName: null,
      allowChecksInterruption: false,
    };
  }
  return {
    priority: rule.priority,
    priorityAlias: rule.priority_alias,
    priorityRuleName: rule.name,
    allowChecksInterruption: rule.allow_checks_interruption,
  };
}

/**
 * A newly queued pull request whose priority rule allows interruption goes before running
 * batches of lower priority: they are aborted (with the batches behind them) and rebuilt after it.
 */
export function planInterruption(t: Transition, session: Session): void {
  if (!session.allowChecksInterruption) return;
  for (const lane of lanesOf(t.state, session)) {
    const index = lane.batches.findIndex(
      (batch) =>
        batch.phase !== 'merging' &&
        batch.numbers.every(
          (n) => (findSession(t.state, n)?.priority ?? Number.MAX_SAFE_INTEGER) < session.priority,
        ),
    );
    if (index < 0) continue;
    const why = {
      code: 'PR_WITH_HIGHER_PRIORITY_QUEUED' as const,
      reason: `#${session.number} (priority ${session.priorityAlias}) goes first`,
    };
    abortBatchesFrom(t, { lane, index, first: why, behind: why });
  }
}
