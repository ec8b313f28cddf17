import { computeConditionsOutcome } from '../config/conditions/evaluate-conditions.ts';
import { abortBatchesFrom } from './abort.ts';
import { decideEntry, enterQueue } from './enter.ts';
import { computeFacts } from './facts.ts';
import type { BaseBranchDeleted, BaseBranchMoved, PullRequestClosed, PullRequestUpdated } from './inputs.ts';
import { leaveQueue } from './leave.ts';
import { planInterruption } from './priority.ts';
import type { Batch, Session } from './state.ts';
import { findSession, lanesOf, putSession, type Transition } from './transition.ts';

/** What a new snapshot of a queued pull request means for it. */
export type UpdateOutcome = 'unchanged' | 'head_moved' | 'expected_in_place_update' | 'no_longer_eligible';

export function decideUpdate(t: Transition, session: Session, input: PullRequestUpdated): UpdateOutcome {
  const pr = input.pullRequest;
  const rule = t.state.config.queue_rules.find((r) => r.name === session.queueName);
  if (pr.base !== session.base || rule === undefined) return 'no_longer_eligible';
  if (computeConditionsOutcome(rule.queue_conditions, computeFacts(pr), t.now).outcome === 'fails') {
    return 'no_longer_eligible';
  }
  if (pr.headSha === session.headSha) return 'unchanged';
  // Testing in place updates the pull request with its base: that push is the engine's own.
  const inPlace = lanesOf(t.state, session).some((lane) =>
    lane.batches.some(
      (b) => b.mode === 'in_place' && b.numbers.includes(session.number) && isOwnUpdate(b, pr.headSha),
    ),
  );
  return inPlace ? 'expected_in_place_update' : 'head_moved';
}

function isOwnUpdate(batch: Batch, sha: string): boolean {
  if (batch.phase === 'trial') return batch.trial.phase === 'preparing' || batch.trial.run.sha === sha;
  return batch.phase === 'merging' && batch.run.sha === sha;
}

export function handlePullRequestUpdated(t: Transition, input: PullRequestUpdated): void {
  const pr = input.pullRequest;
  t.state = { ...t.state, pullRequests: { ...t.state.pullRequests, [String(pr.number)]: pr } };
  const session = findSession(t.state, pr.number);
  if (session === undefined) {
    const decision = decideEntry(t, pr, { queueName: null, automatic: true });
    if (decision.kind === 'enter') planInterruption(t, enterQueue(t, pr, decision.rule));
    return;
  }
  const outcome = decideUpdate(t, session, input);
  if (outcome === 'no_longer_eligible') {
    const code = pr.headSha === session.headSha ? 'PR_DEQUEUED' : 'PULL_REQUEST_UPDATED';
    leaveQueue(t, pr.number, { code, detail: 'the pull request no longer meets the queue conditions' });
    return;
  }
  if (outcome === 'unchanged') return;
  if (outcome === 'head_moved') {
    for (const lane of lanesOf(t.state, session)) {
      const index = lane.batches.findIndex((b) => b.numbers.includes(pr.number) && b.phase !== 'merging');
      if (index < 0) continue;
      abortBatchesFrom(t, {
        lane,
        index,
        first: { code: 'PULL_REQUEST_UPDATED', reason: `#${pr.number} was updated` },
        behind: { code: 'PR_AHEAD_DEQUEUED', reason: `#${pr.number}, ahead, was updated` },
      });
    }
  }
  putSession(t, { ...session, headSha: pr.headSha });
}

/** Closed by someone: it leaves. Merged by the engine: merge_completed says so (the webhook may come first). */
export function handlePullRequestClosed(t: Transition, input: PullRequestClosed): void {
  const session = findSession(t.state, input.number);
  const forget = () => {
    const { [String(input.number)]: _closed, ...pullRequests } = t.state.pullRequests;
    t.state = { ...t.state, pullRequests };
  };
  if (session === undefined) {
    forget();
    return;
  }
  const mergingHere = lanesOf(t.state, session).some((lane) =>
    lane.batches.some((b) => b.phase === 'merging' && b.inFlight.includes(input.number)),
  );
  if (input.merged && mergingHere) return;
  if (input.merged)
    leaveQueue(t, input.number, { code: 'PR_MANUALLY_MERGED', detail: 'merged outside the merge queue' });
  else leaveQueue(t, input.number, { code: 'PR_DEQUEUED', detail: 'the pull request was closed' });
  forget();
}

/**
 * The base branch moved. The engine's own merges are expected; anything else is external: with
 * `reset_on_external_merge: always` every batch on that base is rebuilt on the new commit.
 */
export function handleBaseBranchMoved(t: Transition, input: BaseBranchMoved): void {
  const known = t.state.bases[input.branch] ?? { sha: null, ownShas: [] };
  const lanes = t.state.lanes.filter((lane) => lane.base === input.branch);
  const merging = lanes.some((lane) =>
    lane.batches.some((b) => b.phase === 'merging' && b.inFlight.length > 0),
  );
  const own = known.sha === input.sha || known.ownShas.includes(input.sha) || merging;
  t.state = { ...t.state, bases: { ...t.state.bases, [input.branch]: { ...known, sha: input.sha } } };
  if (own || known.sha === null || t.state.config.merge_queue.reset_on_external_merge === 'never') return;
  for (const lane of lanes) {
    const index = lane.batches.findIndex((b) => b.phase !== 'merging');
    if (index < 0) continue;
    const why = {
      code: 'MERGE_QUEUE_RESET' as const,
      reason: `${input.branch} moved to ${input.sha} outside the queue`,
    };
    abortBatchesFrom(t, { lane, index, first: why, behind: why });
  }
}

export function handleBaseBranchDeleted(t: Transition, input: BaseBranchDeleted): void {
  const sessions = Object.values(t.state.sessions).filter((s) => s.base === input.branch);
  for (const session of sessions) {
    leaveQueue(t, session.number, { code: 'BASE_BRANCH_MISSING', detail: `${input.branch} was deleted` });
  }
  const { [input.branch]: _deleted, ...bases } = t.state.bases;
  t.state = { ...t.state, bases, lanes: t.state.lanes.filter((lane) => lane.base !== input.branch) };
}
