import { planBisectionProgress } from './bisection.ts';
import { planCheckRuns } from './check-runs.ts';
import { handleConfigChanged, handleConfigRejected } from './config-change.ts';
import { handleTestBranchFailed } from './conflicts.ts';
import { planBreakWaitCycles } from './cross-partition.ts';
import { handleDequeueRequested } from './dequeue.ts';
import { handleEffectFailed } from './effect-failures.ts';
import { planEmbarkAll } from './embark.ts';
import { handleCommand, handleCommandNotUnderstood } from './enter.ts';
import {
  handleBaseBranchDeleted,
  handleBaseBranchMoved,
  handlePullRequestClosed,
  handlePullRequestUpdated,
} from './external.ts';
import { planFailures } from './failure.ts';
import { handleFreezeDeleted, handleFreezeSaved } from './freeze.ts';
import { planFreezeRebuild } from './freeze-rebuild.ts';
import { planGauges } from './gauges.ts';
import { planHeldTime } from './held-time.ts';
import type { QueueInput } from './inputs.ts';
import { handleBaseTreeRead, planMergeVerifications } from './integrity.ts';
import { leaveQueue } from './leave.ts';
import { handleMergeCompleted, handleMergeFailed, planMerges } from './merge.ts';
import { orderSessionsByLane } from './ordering.ts';
import { handlePauseCleared, handlePauseSet } from './pause.ts';
import { planInterruption } from './priority.ts';
import { explainSessions } from './reasons.ts';
import { handleRequeueRequested } from './requeue.ts';
import { handleChecksReported, handleTestBranchPrepared } from './results.ts';
import { summarizeSessions } from './sessions-summary.ts';
import { planStallDiagnosis } from './stall-doctor.ts';
import type { QueueState } from './state.ts';
import { planPreparationRetries, planTimeouts, planWakeUp } from './timeouts.ts';
import {
  putSession,
  type StepContext,
  type StepResult,
  startTransition,
  type Transition,
} from './transition.ts';

/**
 * The engine's one entry point: what the input means for the queue, then everything that
 * follows from it (timeouts, failures, bisection, merges, new batches, gauges, check runs, the
 * next wake-up). Pure: the same state, input and context give the same result.
 */
export function step(state: QueueState, input: QueueInput, ctx: StepContext): StepResult {
  const t = startTransition(state, ctx);
  applyInput(t, input);
  settle(t);
  return { state: t.state, effects: t.effects, events: t.events };
}

function applyInput(t: Transition, input: QueueInput): void {
  switch (input.type) {
    case 'pull_request_updated':
      handlePullRequestUpdated(t, input);
      return;
    case 'pull_request_closed':
      handlePullRequestClosed(t, input);
      return;
    case 'command_received': {
      const session = handleCommand(t, input);
      if (session === null) return;
      if (input.command === 'dequeue') {
        leaveQueue(t, input.number, {
          code: 'PR_MANUALLY_DEQUEUED',
          detail: `dequeued by @${input.author.login}`,
        });
        return;
      }
      planInterruption(t, session);
      return;
    }
    case 'command_not_understood':
      handleCommandNotUnderstood(t, input);
      return;
    case 'checks_reported':
      handleChecksReported(t, input);
      return;
    case 'test_branch_prepared':
      handleTestBranchPrepared(t, input);
      return;
    case 'test_branch_failed':
      handleTestBranchFailed(t, input);
      return;
    case 'merge_completed':
      handleMergeCompleted(t, input);
      return;
    case 'merge_failed':
      handleMergeFailed(t, input);
      return;
    case 'base_branch_moved':
      handleBaseBranchMoved(t, input);
      return;
    case 'base_branch_deleted':
      handleBaseBranchDeleted(t, input);
      return;
    case 'config_changed':
      handleConfigChanged(t, input);
      return;
    case 'config_rejected':
      handleConfigRejected(t, input);
      return;
    case 'pause_set':
      handlePauseSet(t, input);
      return;
    case 'pause_cleared':
      handlePauseCleared(t, input);
      return;
    case 'freeze_saved':
      handleFreezeSaved(t, input);
      return;
    case 'freeze_deleted':
      handleFreezeDeleted(t, input);
      return;
    case 'dequeue_requested':
      handleDequeueRequested(t, input);
      return;
    case 'requeue_requested': {
      const session = handleRequeueRequested(t, input);
      if (session !== null) planInterruption(t, session);
      return;
    }
    case 'effect_failed':
      handleEffectFailed(t, input);
      return;
    case 'base_tree_read':
      handleBaseTreeRead(t, input);
      return;
    case 'tick':
      return;
    default: {
      const unknown: never = input;
      throw new Error(`unknown input ${JSON.stringify(unknown)}`);
    }
  }
}

/** One step of what follows from an input; `why` says why it runs where it does in SETTLE. */
interface SettlePhase {
  name: string;
  why: string;
  run: (t: Transition) => void;
}

/**
 * What follows from any input, in this order: each phase reads what the phases before it left.
 * Facts first (what the input and the clock make true), then judgements (failures, bisections),
 * then moves (merges, new batches), then what only reports (held time, gauges, check runs, the
 * next wake-up).
 */
const SETTLE: readonly SettlePhase[] = [
  {
    name: 'release conflict waits',
    why: 'the input may have removed pull requests that others wait for; every later phase sees them free',
    run: releaseConflictWaits,
  },
  {
    name: 'time out checks',
    why: 'a run past checks_timeout has failed as of now, before failures are judged',
    run: planTimeouts,
  },
  {
    name: 'diagnose stalls',
    why: 'after the timeouts: a run timed out by now has failed, it is not stalled; it only reports, so nothing later depends on it',
    run: planStallDiagnosis,
  },
  {
    name: 'retry test branch preparations',
    why: 'like timeouts, a back-off over by now: the request goes out before this step judges (and may abort) its batch',
    run: planPreparationRetries,
  },
  {
    name: 'judge failures',
    why: 'after the timeouts, so that a batch timed out now is held, retried, bisected or dropped in this step',
    run: planFailures,
  },
  {
    name: 'progress bisections',
    why: 'probe answers came with the input or a timeout above; a bisection the pass above started has none yet',
    run: planBisectionProgress,
  },
  {
    name: 'judge failures again',
    why: 'the suspects of an ended bisection are cleared (planSuspects), and suspects the first pass flagged are held in their other lanes only by a pass that starts with them flagged',
    run: planFailures,
  },
  {
    name: 'rebuild for freezes',
    why: 'failed and bisecting batches are judged first; before merges, so that a passed batch that overtook a pull request a freeze let go is rebuilt, not merged',
    run: planFreezeRebuild,
  },
  {
    name: 'verify merges',
    why: 'a batch whose merges ended (the input finished or refused one) has its landed tree read before anything else merges on its base',
    run: planMergeVerifications,
  },
  {
    name: 'merge',
    why: 'on settled lanes: the passing prefix of a resolved bisection, or a batch whose failure was skipped, may now be the passed head',
    run: planMerges,
  },
  {
    name: 'break wait cycles',
    why: 'after merges, a passed head that still cannot merge may be waiting in a cycle; the lane is rebuilt before embarking',
    run: planBreakWaitCycles,
  },
  {
    name: 'embark',
    why: 'after every phase that frees a slot or sends pull requests back to waiting',
    run: planEmbarkAll,
  },
  {
    name: 'count held time',
    why: 'after freeze rebuilds, which find the pull requests a freeze let go by their still-open held period',
    run: planHeldTime,
  },
  {
    name: 'report gauges',
    why: 'queue sizes and running checks as this step leaves them (they only report)',
    run: planGauges,
  },
  {
    name: 'publish check runs',
    why: 'titles from the lanes and queue order as this step leaves them (they only report)',
    run: (t) => planCheckRuns(t, orderSessionsByLane(t.state), explainSessions),
  },
  {
    name: 'ask for a wake-up',
    why: 'last: the earliest deadline of the state as this step leaves it',
    run: planWakeUp,
  },
];

function settle(t: Transition): void {
  for (const phase of SETTLE) phase.run(t);
}

/** CONFLICT_WITH_PULL_AHEAD ends when every pull request it waited for has left. */
function releaseConflictWaits(t: Transition): void {
  if (!summarizeSessions(t.state.sessions).anyWaitingForAhead) return;
  for (const session of Object.values(t.state.sessions)) {
    if (session.waitingForAhead === null) continue;
    const still = session.waitingForAhead.filter((n) => t.state.sessions[String(n)] !== undefined);
    if (still.length === session.waitingForAhead.length) continue;
    putSession(t, { ...session, waitingForAhead: still.length === 0 ? null : still });
  }
}
