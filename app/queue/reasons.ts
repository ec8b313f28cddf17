import type { QueueReason } from '../../shared/schemas/queue-reason.schema.ts';
import { batchReasons } from './batch-reasons.ts';
import { computeFillDeadline, findLaneDepth } from './embark.ts';
import { isFreezeActive, isFrozen } from './freeze.ts';
import { createReasonContext, type ReasonContext } from './reason-context.ts';
import { namedChecks } from './required-checks.ts';
import type { Lane, QueueState, Session } from './state.ts';
import { findLane } from './transition.ts';

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

/** The reasons of any queued pull request as of now, the shared lookups made once. */
export function explainSessions(state: QueueState, now: Date): (session: Session) => QueueReason[] {
  const context = createReasonContext(state, now);
  return (session) => computeReasons(context, session);
}

/** Every reason the pull request of `session` is where it is, most important first. */
export function computeReasons(context: ReasonContext, session: Session): QueueReason[] {
  const { state } = context;
  const reasons: QueueReason[] = [];
  if (state.pause.paused) {
    reasons.push({
      code: 'paused',
      message: `The merge queue is paused${state.pause.by === undefined ? '' : ` by ${state.pause.by}`} (${state.pause.reason}): no batch starts and nothing merges`,
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
