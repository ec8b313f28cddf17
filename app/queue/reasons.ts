import type { QueueReason } from '../../shared/schemas/queue-reason.schema.ts';
import { computeConditionsOutcome, type EvaluationTree } from '../config/conditions/evaluate-conditions.ts';
import { findMergeHead } from './aside.ts';
import { computeFillDeadline, findLaneDepth } from './embark.ts';
import { computeCiQuantile } from './eta.ts';
import { computeTestedFacts } from './facts.ts';
import { isFreezeActive, isFrozen } from './freeze.ts';
import { decideMerge } from './merge.ts';
import { namedChecks } from './required-checks.ts';
import { diagnoseMissingCheck, findMissingChecks } from './stall.ts';
import type { Batch, Lane, QueueState, Session, TestRun } from './state.ts';
import { findLane, type Transition } from './transition.ts';

/*
 * Why a queued pull request is where it is: a list of reasons in the vocabulary of
 * shared/schemas/queue-reason.schema.ts, derived from the state, the configuration and `now`
 * alone. Nothing here decides anything: each reason reads what the engine's own rules (embark,
 * merge, freeze, pause) say of the state, so the reasons cannot disagree with what happens.
 */

const iso = (ms: number) => new Date(ms).toISOString();

/** Unpause instructions: the API and the extension both pause and unpause. */
const UNPAUSE =
  'An admin unpauses the queue (DELETE /v1/repos/{owner}/{repository}/merge-queue/pause) when merges may resume';

/** What every reason of one projection shares, computed at most once. */
export interface ReasonContext {
  state: QueueState;
  now: Date;
  /** Check names seen on the repository's known commits (heads and tested commits), lazily. */
  seenChecks: () => ReadonlySet<string>;
  /** A read-only transition for the engine rules that take one (nothing is written to it). */
  view: Transition;
}

export function createReasonContext(state: QueueState, now: Date): ReasonContext {
  let seen: Set<string> | null = null;
  return {
    state,
    now,
    seenChecks: () => {
      seen ??= collectSeenChecks(state);
      return seen;
    },
    view: {
      state,
      now,
      nowIso: now.toISOString(),
      effects: [],
      events: [],
      ids: {
        uuid: () => {
          throw new Error('reasons are read-only: they make no ids');
        },
      },
    } as unknown as Transition,
  };
}

function collectSeenChecks(state: QueueState): Set<string> {
  const seen = new Set<string>();
  for (const pr of Object.values(state.pullRequests)) for (const c of pr.checkRuns) seen.add(c.name);
  for (const lane of state.lanes) {
    for (const batch of lane.batches) {
      const run = runOf(batch);
      for (const c of run?.checks ?? []) seen.add(c.name);
    }
  }
  return seen;
}

function runOf(batch: Batch): TestRun | null {
  if (batch.phase === 'merging') return batch.run;
  if (batch.phase === 'bisecting') return batch.failedRun;
  return batch.trial.phase === 'preparing' ? null : batch.trial.run;
}

/** Every reason the pull request of `session` is where it is, most important first. */
export function computeReasons(context: ReasonContext, session: Session): QueueReason[] {
  const { state } = context;
  const reasons: QueueReason[] = [];
  if (state.pause.paused) {
    reasons.push({
      code: 'paused',
      message: `The merge queue is paused (${state.pause.reason}): no batch starts and nothing merges`,
      since: state.pause.since,
      until: null,
      next_action: UNPAUSE,
    });
  }
  reasons.push(...frozenReasons(context, session));
  if (state.configErrors !== undefined) {
    reasons.push({
      code: 'configuration_rejected',
      message: `.github/trainyard.yml is invalid (${state.configErrors.length} error${state.configErrors.length === 1 ? '' : 's'}): the last valid configuration is used`,
      since: null,
      until: null,
      next_action: 'Fix .github/trainyard.yml on the default branch (the check run lists the errors)',
    });
  }
  reasons.push(...unknownCheckReasons(context, session));
  const lane = findLane(state, session.base, session.partitions[0]!) ?? {
    base: session.base,
    partition: session.partitions[0]!,
    batches: [],
  };
  const index = lane.batches.findIndex((b) => b.numbers.includes(session.number));
  if (index < 0) reasons.push(...waitingReasons(context, session, lane));
  else reasons.push(...batchReasons(context, { session, lane, index }));
  return reasons;
}

function frozenReasons(context: ReasonContext, session: Session): QueueReason[] {
  const { state, now } = context;
  const pr = state.pullRequests[String(session.number)];
  if (pr === undefined) return [];
  return state.freezes
    .filter((record) => isFreezeActive(record.freeze, now) && holds(context, record, session.number))
    .map(({ freeze }) => ({
      code: 'frozen' as const,
      message: `Held by the scheduled freeze "${freeze.reason}"${freeze.end === null ? ', with no end' : ` until ${freeze.end}`}: it is tested but does not merge`,
      since: freeze.start,
      until: freeze.end,
      next_action:
        'An admin can end or delete the freeze (…/merge-queue/scheduled_freeze/{id}) if it should not hold this pull request',
    }));
}

/** Whether this freeze, alone, holds the pull request (isFrozen answers for all of them at once). */
function holds(context: ReasonContext, record: QueueState['freezes'][number], number: number): boolean {
  return isFrozen({ ...context.state, freezes: [record] }, number, context.now);
}

function unknownCheckReasons(context: ReasonContext, session: Session): QueueReason[] {
  const rule = context.state.config.queue_rules.find((r) => r.name === session.queueName);
  const seen = context.seenChecks();
  // Nothing seen at all (a new repository, CI not reported yet) says nothing about the names.
  if (rule === undefined || seen.size === 0) return [];
  const unknown = [...namedChecks(rule.merge_conditions)].filter((name) => !seen.has(name)).sort();
  if (unknown.length === 0) return [];
  return [
    {
      code: 'unknown_check_in_conditions',
      message: `The merge conditions of queue rule ${rule.name} name ${unknown.length === 1 ? 'a check' : 'checks'} never seen on this repository's recent commits: ${unknown.join(', ')} (seen: ${[...seen].sort().slice(0, 10).join(', ')})`,
      since: null,
      until: null,
      next_action: `Check the spelling of ${unknown.join(', ')} in .github/trainyard.yml against the check names CI reports`,
    },
  ];
}

function waitingReasons(context: ReasonContext, session: Session, lane: Lane): QueueReason[] {
  const { state } = context;
  if (session.waitingForAhead !== null) {
    const ahead = session.waitingForAhead.map((n) => `#${n}`).join(', ');
    return [
      {
        code: 'conflict_with_pull_ahead',
        message: `It conflicts with ${ahead}, queued ahead of it: it waits until ${session.waitingForAhead.length === 1 ? 'that one leaves' : 'they leave'} the queue, then is tested again`,
        since: null,
        until: null,
        next_action: `Rebase it on ${ahead} or resolve the conflict once ${session.waitingForAhead.length === 1 ? 'it merges' : 'they merge'}`,
      },
    ];
  }
  if (session.suspect === true) {
    return [
      {
        code: 'suspect_in_other_partition',
        message:
          'A failed batch it is in, in another partition, is being bisected: it waits here for the verdict',
        since: null,
        until: null,
        next_action: null,
      },
    ];
  }
  if (state.pause.paused) return [];
  const deadline = computeFillDeadline(context.view, lane);
  if (deadline !== null) {
    return [
      {
        code: 'waiting_for_batch_fill',
        message: `Waiting for more pull requests to fill a batch of queue rule ${session.queueName}, at most until ${iso(deadline)} (batch_max_wait_time)`,
        since: session.queuedAt,
        until: iso(deadline),
        next_action: null,
      },
    ];
  }
  const depth = findLaneDepth(context.view, lane).depth;
  const testing = lane.batches.length;
  return [
    {
      code: 'waiting_for_slot',
      message: `Waiting for a test slot: ${testing} batch${testing === 1 ? '' : 'es'} in line in partition ${lane.partition}, ${depth} tested at once; pull requests ahead are batched first`,
      since: session.queuedAt,
      until: null,
      next_action: null,
    },
  ];
}

function batchReasons(
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
      next_action: `Make ${labels.join(', ')} hold on the pull request (reviews, labels…); the batch fails at checks_timeout otherwise`,
    },
  ];
}

function failingLeaves(tree: EvaluationTree): EvaluationTree[] {
  if (tree.match) return [];
  if (tree.subconditions.length === 0) return [tree];
  return tree.subconditions.flatMap(failingLeaves);
}
