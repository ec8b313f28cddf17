import type {
  ConditionEvaluationJson,
  DequeueImpact,
  MergeQueuePullRequest,
} from '../../shared/schemas/merge-queue-pull.schema.ts';
import type { ConditionNode } from '../config/conditions/condition.ts';
import { computeConditionsOutcome, type EvaluationTree } from '../config/conditions/evaluate-conditions.ts';
import type { QueueRule } from '../config/config.schema.ts';
import { createSessionEtas } from './eta.ts';
import { computeTestedFacts } from './facts.ts';
import { laneKey, orderSessionsByLane } from './ordering.ts';
import { toCheck } from './queue-events.ts';
import { explainSessions } from './reasons.ts';
import type { Batch, Lane, QueueState, Session, TestRun } from './state.ts';
import { lastCompletion } from './status-projection.ts';
import { findLane, lanesOf } from './transition.ts';

/*
 * One queued pull request as the API shows it (docs/api.md, "One pull request"), derived from
 * the state like the status resource: where it is, when it should merge, and its test.
 */

/** The pull request's view, or null when it is not queued. */
export function computePullRequestView(
  state: QueueState,
  params: { number: number; now: Date },
): MergeQueuePullRequest | null {
  const { number, now } = params;
  const session = state.sessions[String(number)];
  if (session === undefined) return null;
  const rule = state.config.queue_rules.find((r) => r.name === session.queueName);
  const lane = findLane(state, session.base, session.partitions[0]!) ?? {
    base: session.base,
    partition: session.partitions[0]!,
    batches: [],
  };
  const eta = createSessionEtas(state, { now })(session);
  const etaP90 = createSessionEtas(state, { now, quantile: 0.9 })(session);
  const test = findTest(state, { lane, number, now });
  return {
    number,
    head_ref: state.pullRequests[String(number)]?.head ?? null,
    queued_at: session.queuedAt,
    estimated_time_of_merge: eta === null ? null : new Date(eta).toISOString(),
    estimated_time_of_merge_p90: etaP90 === null ? null : new Date(etaP90).toISOString(),
    reasons: explainSessions(state, now)(session),
    position: computePosition(state, lane, session),
    priority_rule_name: session.priorityRuleName,
    queue_rule_name: session.queueName,
    checks_timeout_at: test?.timeoutAt ?? null,
    queue_rule: { name: session.queueName, config: rule === undefined ? {} : describeRule(rule) },
    mergeability_check:
      test === null
        ? null
        : {
            check_type: test.inPlace ? 'in_place' : 'draft_pr',
            queue_pull_request_number: test.run.draftPullRequest ?? number,
            started_at: test.run.startedAt,
            ci_ended_at: test.endedAt,
            ci_state: test.state === 'pending' ? 'pending' : test.state === 'success' ? 'success' : 'failed',
            state: test.state,
            checks: test.run.checks.map(toCheck),
            conditions_evaluation:
              rule === undefined
                ? null
                : evaluateMergeConditions(state, { rule, number, run: test.run, now }),
          },
  };
}

/**
 * 0-based place in the lane of its first partition (the one its check run shows): the pull
 * requests of the lane's batches in batch order, then the waiting ones in queue order.
 */
function computePosition(state: QueueState, lane: Lane, session: Session): number {
  let position = 0;
  const embarked = new Set<number>();
  for (const batch of lane.batches) {
    for (const n of batch.numbers) {
      if (state.sessions[String(n)] === undefined) continue;
      if (n === session.number) return position;
      embarked.add(n);
      position++;
    }
  }
  for (const other of orderSessionsByLane(state).get(laneKey(lane)) ?? []) {
    if (other.number === session.number) return position;
    if (!embarked.has(other.number)) position++;
  }
  return position;
}

interface Test {
  run: TestRun;
  inPlace: boolean;
  endedAt: string | null;
  state: 'pending' | 'success' | 'failure' | 'timed_out';
  timeoutAt: string | null;
}

/**
 * The test that says most about the pull request in its lane: its batch's, or in a bisection
 * the shortest probe holding it that has a run (else the failed run bisected). None while it
 * waits or its test branch is being prepared.
 */
function findTest(state: QueueState, params: { lane: Lane; number: number; now: Date }): Test | null {
  const { lane, number } = params;
  const batch = lane.batches.find((b) => b.numbers.includes(number));
  if (batch === undefined) return null;
  const inPlace = batch.mode === 'in_place';
  const timeout = state.config.queue_rules.find((r) => r.name === batch.queueName)?.checks_timeout ?? null;
  const timeoutOf = (run: TestRun) =>
    timeout === null ? null : new Date(Date.parse(run.startedAt) + timeout * 1000).toISOString();
  switch (batch.phase) {
    case 'merging':
      return {
        run: batch.run,
        inPlace,
        endedAt: lastCompletion(batch.run),
        state: 'success',
        timeoutAt: null,
      };
    case 'bisecting': {
      const index = batch.numbers.indexOf(number);
      const probes = [
        ...(batch.bisection.passedPrefix ? [batch.bisection.passedPrefix] : []),
        ...batch.bisection.subBatches,
      ]
        .filter((sub) => sub.length > index)
        .sort((a, b) => a.length - b.length);
      for (const probe of probes) {
        const trial = probe.trial;
        if (trial.phase === 'waiting' || trial.phase === 'preparing') continue;
        return fromTrial(trial, { inPlace: false, timeoutOf });
      }
      return {
        run: batch.failedRun,
        inPlace,
        endedAt: lastCompletion(batch.failedRun),
        state: 'failure',
        timeoutAt: null,
      };
    }
    case 'trial':
      if (batch.trial.phase === 'preparing') return null;
      return fromTrial(batch.trial, { inPlace, timeoutOf });
  }
}

function fromTrial(
  trial: Extract<Batch, { phase: 'trial' }>['trial'],
  params: { inPlace: boolean; timeoutOf: (run: TestRun) => string | null },
): Test | null {
  switch (trial.phase) {
    case 'preparing':
      return null;
    case 'testing':
      return {
        run: trial.run,
        inPlace: params.inPlace,
        endedAt: null,
        state: 'pending',
        timeoutAt: params.timeoutOf(trial.run),
      };
    case 'passed':
      return {
        run: trial.run,
        inPlace: params.inPlace,
        endedAt: trial.endedAt,
        state: 'success',
        timeoutAt: null,
      };
    case 'failed':
      return {
        run: trial.run,
        inPlace: params.inPlace,
        endedAt: trial.endedAt,
        state: trial.timedOut ? 'timed_out' : 'failure',
        timeoutAt: null,
      };
  }
}

function evaluateMergeConditions(
  state: QueueState,
  params: { rule: QueueRule; number: number; run: TestRun; now: Date },
): ConditionEvaluationJson | null {
  const pr = state.pullRequests[String(params.number)];
  if (pr === undefined) return null;
  const facts = computeTestedFacts(pr, params.run.checks);
  const { evaluation } = computeConditionsOutcome(params.rule.merge_conditions, facts, params.now);
  return toEvaluationJson(evaluation, params.number);
}

/** The evaluation tree as Mergify's per-pull-request form: one evaluation per node, for this pull request. */
function toEvaluationJson(tree: EvaluationTree, number: number): ConditionEvaluationJson {
  return {
    match: tree.match,
    label: tree.label,
    description: tree.description,
    documentation_url: null,
    schedule: tree.schedule === null ? null : { ...tree.schedule },
    subconditions: tree.subconditions.map((sub) => toEvaluationJson(sub, number)),
    evaluations: [
      {
        pull_request: number,
        match: tree.match,
        evaluation_error: null,
        related_checks: relatedChecks(tree),
        next_evaluation_at: tree.schedule?.next_change_at ?? null,
      },
    ],
  };
}

/** The check a `check-…=name` condition reads. */
function relatedChecks(tree: EvaluationTree): string[] {
  const { attribute_name: attribute, operator, label } = tree;
  if (attribute === null || !attribute.startsWith('check-') || operator !== '=') return [];
  return [label.slice(label.indexOf('=') + 1).trim()];
}

/** A queue rule as configured, its conditions as written (`and`, `or`, `not` as objects). */
function describeRule(rule: QueueRule): Record<string, unknown> {
  return {
    ...rule,
    queue_conditions: rule.queue_conditions.map(describeCondition),
    merge_conditions: rule.merge_conditions.map(describeCondition),
  };
}

function describeCondition(node: ConditionNode): unknown {
  switch (node.kind) {
    case 'and':
      return { and: node.conditions.map(describeCondition) };
    case 'or':
      return { or: node.conditions.map(describeCondition) };
    case 'not':
      return { not: describeCondition(node.condition) };
    default:
      return node.source;
  }
}

/**
 * What dequeuing the pull request would do (leave.ts): in each of its lanes, the batch holding
 * it and every batch behind are aborted and their other pull requests wait again. Null when it
 * is not queued.
 */
export function computeDequeueImpact(state: QueueState, number: number): DequeueImpact | null {
  const session = state.sessions[String(number)];
  if (session === undefined) return null;
  const batches = new Set<string>();
  const rechecked = new Set<number>();
  for (const lane of lanesOf(state, session)) {
    const index = lane.batches.findIndex(
      (b) => b.numbers.includes(number) && !(b.phase === 'merging' && b.merged.includes(number)),
    );
    if (index < 0) continue;
    for (const batch of lane.batches.slice(index)) {
      batches.add(batch.id);
      for (const n of batch.numbers) {
        const merged = batch.phase === 'merging' && batch.merged.includes(n);
        if (n !== number && !merged) rechecked.add(n);
      }
    }
  }
  return {
    interrupted_batches: batches.size,
    rechecked_pull_requests: rechecked.size,
    cascaded_pull_requests: 0,
  };
}
