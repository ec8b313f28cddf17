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
  let passes = true;
  let fails = false;
  let schedule = false;
  for (const number of numbers) {
    const pr = state.pullRequests[String(number)];
    if (pr === undefined) continue;
    const facts = computeTestedFacts(pr, checks);
    const result = computeConditionsOutcome(rule.merge_conditions, facts, now);
    evaluations[String(number)] = result.evaluation;
    if (result.outcome === 'fails') fails = true;
    if (result.outcome !== 'passes') {
      passes = false;
      if (isWaitingForSchedule(rule.merge_conditions, facts, now)) schedule = true;
      else if (result.outcome === 'pending') schedule = false;
    }
  }
  const outcome: ConditionsOutcome = fails ? 'fails' : passes ? 'passes' : 'pending';
  return {
    outcome,
    waitingForSchedule: !fails && !passes && schedule && allScheduleOnly(state, params),
    evaluations,
  };
}

function allScheduleOnly(
  state: QueueState,
  params: { rule: QueueRule; numbers: readonly number[]; checks: readonly CheckReport[]; now: Date },
): boolean {
  return params.numbers.every((number) => {
    const pr = state.pullRequests[String(number)];
    if (pr === undefined) return true;
    const facts = computeTestedFacts(pr, params.checks);
    return (
      computeConditionsOutcome(params.rule.merge_conditions, facts, params.now).outcome === 'passes' ||
      isWaitingForSchedule(params.rule.merge_conditions, facts, params.now)
    );
  });
}
