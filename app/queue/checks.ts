import {
  type ConditionsOutcome,
  computeConditionsOutcome,
  type EvaluationTree,
  isWaitingForSchedule,
} from '../config/conditions/evaluate-conditions.ts';
import type { QueueRule } from '../config/config.schema.ts';
import { computeTestedFacts } from './facts.ts';
import type { CheckReport } from './inputs.ts';
import type { QueueState } from './state.ts';

/** A batch's result: the queue rule's merge conditions, on each of its PRs, with the tested commit's checks. */
export interface BatchOutcome {
  outcome: ConditionsOutcome;
  /** Passes but for a closed schedule window: the checks are done; merging waits. */
  waitingForSchedule: boolean;
  evaluations: Record<string, EvaluationTree>;
}

export function computeBatchOutcome(
  state: QueueState,
  params: { rule: QueueRule; numbers: readonly number[]; checks: readonly CheckReport[]; now: Date },
): BatchOutcome {
  const { rule, numbers, checks, now } = params;
  const evaluations: Record<string, EvaluationTree> = {};
  let passing = 0;
  let scheduled = 0;
  let fails = false;
  let known = 0;
  for (const number of numbers) {
    const pr = state.pullRequests[String(number)];
    if (pr === undefined) continue;
    known++;
    const facts = computeTestedFacts(pr, checks);
    const result = computeConditionsOutcome(rule.merge_conditions, facts, now);
    evaluations[String(number)] = result.evaluation;
    if (result.outcome === 'passes') passing++;
    else if (result.outcome === 'fails') fails = true;
    else if (isWaitingForSchedule(rule.merge_conditions, facts, now)) scheduled++;
  }
  // Every pull request passes but some only wait for a schedule window: the checks are done.
  const outcome: ConditionsOutcome = fails ? 'fails' : passing === known ? 'passes' : 'pending';
  return {
    outcome,
    waitingForSchedule: !fails && scheduled > 0 && passing + scheduled === known,
    evaluations,
  };
}
