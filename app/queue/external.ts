import { computeConditionsOutcome } from '../config/conditions/evaluate-conditions.ts';
import { abortBatchesFrom } from './abort.ts';
import { decideEntry, enterQueue } from './enter.ts';
import { computeFacts } from './facts.ts';
import type { BaseBranchDeleted, BaseBranchMoved, PullRequestClosed, PullRequestUpdated } from './inputs.ts';
import { noteOutsideMove } from './integrity.ts';
import { leaveQueue } from './leave.ts';
import { planInterruption } from './priority.ts';
import type { Batch, QueueState, Session } from './state.ts';
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
  const own = known.sha === input.sha || known.ownShas.includes(input.sha);
  // During our merge the push may come before the merge's answer: decided once it is answered.
  const pending = !own && known.sha !== null && isMergeInFlight(t, input.branch);
  const unconfirmed = pending ? [...(known.unconfirmed ?? []), input.sha] : known.unconfirmed;
  // Our merges are recorded when GitHub answers them, so a push of one of ours is news only in
  // that it was delivered: a late one (GitHub does not order deliveries) must not move the base
  // back to a commit without what merged since, or the next batch would be tested without it.
  const sha = own ? known.sha : input.sha;
  t.state = {
    ...t.state,
    bases: {
      ...basesInUse(t),
      [input.branch]: { ...known, sha, ...(unconfirmed ? { unconfirmed } : {}) },
    },
  };
  if (own || pending) return;
  // The head was unknown: nothing to reset against, but a batch tested before now may have been
  // built on an older head than the one it will merge onto.
  if (known.sha === null) noteOutsideMove(t, input.branch, input.sha);
  else resetForExternalMove(t, input.branch, input.sha);
}

function isMergeInFlight(t: Transition, base: string): boolean {
  return t.state.lanes.some(
    (lane) => lane.base === base && lane.batches.some((b) => b.phase === 'merging' && b.inFlight.length > 0),
  );
}

/**
 * Once no merge of ours is in flight on `base`: the moves seen meanwhile that are not our merge
 * commits were someone else's. Which commit is the head then is unknown (our merge may sit on
 * top of theirs): the base's sha is forgotten, so new test branches start from the branch as
 * GitHub has it, and every batch is rebuilt.
 */
export function resolveUnconfirmedMoves(t: Transition, base: string): void {
  const known = t.state.bases[base];
  if (known?.unconfirmed === undefined || isMergeInFlight(t, base)) return;
  const { unconfirmed, ...rest } = known;
  const external = unconfirmed.filter((sha) => !rest.ownShas.includes(sha));
  const sha = external.length > 0 ? null : rest.sha;
  t.state = { ...t.state, bases: { ...t.state.bases, [base]: { ...rest, sha } } };
  if (external.length > 0) resetForExternalMove(t, base, external.at(-1)!);
}

/** reset_on_external_merge: every batch not already merging is rebuilt on the new base. */
function resetForExternalMove(t: Transition, branch: string, sha: string): void {
  noteOutsideMove(t, branch, sha);
  if (t.state.config.merge_queue.reset_on_external_merge === 'never') return;
  const lanes = t.state.lanes.filter((lane) => lane.base === branch);
  for (const lane of lanes) {
    const index = lane.batches.findIndex((b) => b.phase !== 'merging');
    if (index < 0) continue;
    const why = {
      code: 'MERGE_QUEUE_RESET' as const,
      reason: `${branch} moved to ${sha} outside the queue`,
    };
    abortBatchesFrom(t, { lane, index, first: why, behind: why });
  }
}

/**
 * The shell reports a push to any branch: only the bases of known pull requests (and the branch
 * just pushed) are kept, or the state would grow with every branch ever pushed. Forgetting a
 * base nothing targets is safe: with no batch on it, its next move has nothing to reset.
 */
function basesInUse(t: Transition): QueueState['bases'] {
  const used = new Set(t.state.lanes.map((lane) => lane.base));
  for (const pr of Object.values(t.state.pullRequests)) used.add(pr.base);
  const entries = Object.entries(t.state.bases);
  if (entries.every(([branch]) => used.has(branch))) return t.state.bases;
  return Object.fromEntries(entries.filter(([branch]) => used.has(branch)));
}

export function handleBaseBranchDeleted(t: Transition, input: BaseBranchDeleted): void {
  const sessions = Object.values(t.state.sessions).filter((s) => s.base === input.branch);
  for (const session of sessions) {
    leaveQueue(t, session.number, { code: 'BASE_BRANCH_MISSING', detail: `${input.branch} was deleted` });
  }
  const { [input.branch]: _deleted, ...bases } = t.state.bases;
  t.state = { ...t.state, bases, lanes: t.state.lanes.filter((lane) => lane.base !== input.branch) };
}
