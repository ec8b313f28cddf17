import type { QueueReason } from '../../shared/schemas/queue-reason.schema.ts';
import { computeConditionsOutcome, type EvaluationTree } from '../config/conditions/evaluate-conditions.ts';
import { findMergeHead } from './aside.ts';
import { computeCiQuantile } from './eta.ts';
import { computeTestedFacts } from './facts.ts';
import { decideMerge } from './merge.ts';
import type { ReasonContext } from './reason-context.ts';
import { diagnoseMissingCheck, findMissingChecks } from './stall.ts';
import type { Batch, Lane, Session, TestRun } from './state.ts';

/*
 * The reasons of a pull request embarked in a batch (reasons.ts has the others): where its
 * batch is in its life, and what it waits for there — checks, conditions, the batches ahead, a
 * merge the engine's own merge rule (decideMerge) holds.
 */

const iso = (ms: number) => new Date(ms).toISOString();

export function batchReasons(
  context: ReasonContext,
  params: { session: Session; lane: Lane; index: number },
): QueueReason[] {
  const { state, now } = context;
  const { session, lane, index } = params;
  const batch = lane.batches[index]!;
  if (batch.phase === 'merging') {
    return [
      {
        code: 'merging',
        message: `Checks passed in ${batch.name}: merging`,
        since: null,
        until: null,
        next_action: null,
      },
    ];
  }
  if (batch.phase === 'bisecting') {
    const { bisection } = batch;
    return [
      {
        code: 'bisecting',
        message: `${batch.name} failed; in bisection round ${bisection.depth}, the failing pull request is among positions ${bisection.lo + 1}–${Math.min(bisection.hi, batch.numbers.length)} of ${batch.numbers.length} (this one is ${batch.numbers.indexOf(session.number) + 1})`,
        since: null,
        until: null,
        next_action: null,
      },
    ];
  }
  const trial = batch.trial;
  if (batch.split !== undefined && (trial.phase === 'preparing' || trial.phase === 'testing')) {
    const others = batch.numbers.filter((n) => n !== session.number);
    return [
      {
        code: 'bisecting',
        message: `${batch.split.from} failed; this pull request is tested again on ${lane.base} alone${others.length > 0 ? ` with ${others.map((n) => `#${n}`).join(', ')}` : ''} (${batch.name}) to clear it or find the failing one`,
        since: trial.phase === 'testing' ? trial.run.startedAt : null,
        until: null,
        next_action: null,
      },
    ];
  }
  switch (trial.phase) {
    case 'preparing':
      return [
        {
          code: 'preparing_test_branch',
          message:
            trial.retryAt === null
              ? `The test branch of ${batch.name} is being prepared`
              : `The test branch of ${batch.name} could not be prepared (${trial.failures} failure${trial.failures === 1 ? '' : 's'}); asked again at ${trial.retryAt}`,
          since: null,
          until: trial.retryAt,
          next_action: null,
        },
      ];
    case 'testing':
      return testingReasons(context, { session, batch, run: trial.run });
    case 'failed': {
      const failing = trial.run.checks.filter(
        (c) => c.state !== 'success' && c.state !== 'neutral' && c.state !== 'skipped',
      );
      return [
        {
          code: 'checks_failed',
          message: `Checks ${trial.timedOut ? 'timed out' : 'failed'} in ${batch.name}${failing.length > 0 ? ` (${failing.map((c) => c.name).join(', ')})` : ''}: it is judged (retried, split or dropped) once the batches ahead of it pass`,
          since: trial.endedAt,
          until: null,
          next_action: null,
        },
      ];
    }
    case 'passed': {
      const head = findMergeHead(state.config, lane);
      if (head?.id !== batch.id) {
        const ahead = lane.batches.slice(0, index).map((b) => b.name);
        return [
          {
            code: 'waiting_for_batches_ahead',
            message: `Checks passed in ${batch.name}; it merges after ${ahead.join(', ') || 'the batches ahead'}`,
            since: trial.endedAt,
            until: null,
            next_action: null,
          },
        ];
      }
      return headReasons(context, { batch, lane, run: trial.run, since: trial.endedAt, now });
    }
  }
}

function headReasons(
  context: ReasonContext,
  params: { batch: Batch; lane: Lane; run: TestRun; since: string; now: Date },
): QueueReason[] {
  const { batch, lane, run, since } = params;
  switch (decideMerge(context.view, lane, batch, run)) {
    case 'merge':
      return [
        {
          code: 'merging',
          message: `Checks passed in ${batch.name}: merging`,
          since,
          until: null,
          next_action: null,
        },
      ];
    case 'waiting_for_schedule':
      return [
        {
          code: 'waiting_for_schedule',
          message: `Checks passed in ${batch.name}; the schedule in its merge conditions is closed`,
          since,
          until: null,
          next_action: null,
        },
      ];
    case 'waiting_for_partitions':
      return [
        {
          code: 'waiting_for_other_partitions',
          message: `Checks passed in ${batch.name}; a pull request of it must first be validated in its other partitions`,
          since,
          until: null,
          next_action: null,
        },
      ];
    case 'verifying_merge':
      return [
        {
          code: 'verifying_merge',
          message: `Checks passed in ${batch.name}; it merges once the tree the batch ahead landed is checked against the tested one`,
          since,
          until: null,
          next_action: null,
        },
      ];
    // Paused and frozen are said above, for every place.
    case 'paused':
    case 'frozen':
      return [];
  }
}

function testingReasons(
  context: ReasonContext,
  params: { session: Session; batch: Batch; run: TestRun },
): QueueReason[] {
  const { state, now } = context;
  const { session, batch, run } = params;
  const reasons: QueueReason[] = [];
  const missing = findMissingChecks(state, { queueName: batch.queueName, run });
  if (run.stalled !== undefined) {
    for (const check of run.stalled.checks.filter((c) => missing.includes(c))) {
      const diagnosis = diagnoseMissingCheck(state, { check, run });
      reasons.push({
        code: 'check_never_reported',
        message: diagnosis.message,
        since: run.startedAt,
        until: null,
        next_action: diagnosis.nextAction,
        checks: [check],
      });
    }
  }
  const stalled = new Set(run.stalled?.checks ?? []);
  const awaited = missing.filter((c) => !stalled.has(c));
  if (awaited.length > 0) {
    const usual = Date.parse(run.startedAt) + computeCiQuantile(state, 0.5) * 1000;
    reasons.push({
      code: 'waiting_for_checks',
      message: `Waiting for check${awaited.length === 1 ? '' : 's'} ${awaited.join(', ')} on ${batch.name}`,
      since: run.startedAt,
      until: iso(Math.max(usual, now.getTime())),
      next_action: null,
      checks: awaited,
    });
  }
  reasons.push(...unmetConditions(context, { session, batch, run }));
  return reasons;
}

/** Merge conditions that fail on the tested commit and are not about checks (reviews, labels…). */
function unmetConditions(
  context: ReasonContext,
  params: { session: Session; batch: Batch; run: TestRun },
): QueueReason[] {
  const { state, now } = context;
  const rule = state.config.queue_rules.find((r) => r.name === params.batch.queueName);
  const pr = state.pullRequests[String(params.session.number)];
  if (rule === undefined || pr === undefined) return [];
  const { evaluation } = computeConditionsOutcome(
    rule.merge_conditions,
    computeTestedFacts(pr, params.run.checks),
    now,
  );
  const unmet = failingLeaves(evaluation).filter((leaf) => !(leaf.attribute_name ?? '').startsWith('check-'));
  if (unmet.length === 0) return [];
  const labels = unmet.map((leaf) => leaf.label);
  return [
    {
      code: 'conditions_not_met',
      message: `Merge condition${labels.length === 1 ? '' : 's'} not met on the tested commit: ${labels.join(', ')}`,
      since: params.run.startedAt,
      until: null,
      next_action: `Make ${labels.join(', ')} hold on the pull request (reviews, labels…); otherwise the batch fails when its checks report`,
    },
  ];
}

function failingLeaves(tree: EvaluationTree): EvaluationTree[] {
  if (tree.match) return [];
  if (tree.subconditions.length === 0) return [tree];
  return tree.subconditions.flatMap(failingLeaves);
}
