import type {
  BatchStatusCode,
  FailedEffect,
  MergeQueueStatus,
  QueuedPullRequest,
  Batch as StatusBatch,
} from '../../shared/schemas/merge-queue.schema.ts';
import type { QueueReason } from '../../shared/schemas/queue-reason.schema.ts';
import { computeCiQuantile, computeEtaRange, createSessionEtas } from './eta.ts';
import { isFrozen } from './freeze.ts';
import { projectMergeIntegrity } from './integrity-projection.ts';
import { computeEmbarked, orderSessions } from './ordering.ts';
import { explainSessions } from './reasons.ts';
import { namedChecks } from './required-checks.ts';
import type { Batch, Lane, QueueState, Session, SubBatch, TestRun, Trial } from './state.ts';

/**
 * The merge queue status resource of one base branch (docs/api.md, "Status"), derived from the
 * state: nothing here is stored. `pause` is the API's to fill from its pause record.
 */
export function computeMergeQueueStatus(
  state: QueueState,
  params: { base: string; now: Date },
): Omit<MergeQueueStatus, 'pause'> {
  const lanes = state.lanes.filter((lane) => lane.base === params.base);
  const scope_queues: Record<string, string[]> = {};
  const batches: StatusBatch[] = [];
  const context: Context = {
    state,
    now: params.now,
    etaOf: createSessionEtas(state, { now: params.now }),
    etaP90Of: createSessionEtas(state, { now: params.now, quantile: 0.9 }),
    reasonsOf: explainSessions(state, params.now),
  };
  for (const lane of lanes) {
    scope_queues[lane.partition] = lane.batches.map((b) => b.id);
    const etas = computeEtaRange(state, lane, params.now);
    lane.batches.forEach((batch, index) => {
      batches.push(
        projectBatch(context, { lane, batch, index, eta: etas[index] ?? { p50: null, p90: null } }),
      );
    });
  }
  const sessions = Object.values(state.sessions).filter((s) => s.base === params.base);
  for (const session of sessions) for (const p of session.partitions) scope_queues[p] ??= [];
  const embarked = new Set(lanes.flatMap((lane) => [...computeEmbarked(lane)]));
  const waiting = orderSessions(
    state.config,
    sessions.filter((s) => !embarked.has(s.number)),
  );
  return {
    // Mergify's modes: partitions are its scopes, tested and merged side by side.
    mode: state.config.partition_rules.length > 0 ? 'parallel' : 'serial',
    scope_queues,
    batches,
    waiting_pull_requests: waiting.flatMap((s) => projectPullRequest(context, s.number)),
    ...projectFailedEffects(state, params.now),
    ...projectMergeIntegrity(state.mergeIntegrity),
  };
}

/** What every part of one status projection shares. */
interface Context {
  state: QueueState;
  now: Date;
  /** A queued pull request's estimated merge instant (eta.ts), lanes estimated once. */
  etaOf: (session: Session) => number | null;
  /** The same at p90 of the CI durations. */
  etaP90Of: (session: Session) => number | null;
  reasonsOf: (session: Session) => QueueReason[];
}

/** How long a failed effect shows in the status (the outbox row and the log keep it longer). */
const FAILED_EFFECTS_SHOWN_MS = 24 * 3600_000;

/** The recent failed effects, newest first; nothing (no field) when there are none. */
function projectFailedEffects(state: QueueState, now: Date): { failed_effects?: FailedEffect[] } {
  const since = now.getTime() - FAILED_EFFECTS_SHOWN_MS;
  const recent = (state.failedEffects ?? []).filter((f) => Date.parse(f.at) >= since).reverse();
  if (recent.length === 0) return {};
  return {
    failed_effects: recent.map((f) => ({
      key: f.key,
      type: f.effect,
      pull_requests: f.pullRequests,
      error: f.message,
      failed_at: f.at,
    })),
  };
}

function projectBatch(
  context: Context,
  params: { lane: Lane; batch: Batch; index: number; eta: { p50: number | null; p90: number | null } },
): StatusBatch {
  const { state, now } = context;
  const { lane, batch, index, eta } = params;
  const run = runOf(batch);
  const numbers =
    batch.phase === 'merging' ? batch.numbers.filter((n) => !batch.merged.includes(n)) : batch.numbers;
  const projected: StatusBatch = {
    id: batch.id,
    parent_ids: lane.batches.slice(0, index).map((b) => b.id),
    name: batch.name,
    status: { code: computeStatusCode(state, { batch, isHead: index === 0, now }) },
    started_at: run?.startedAt ?? null,
    estimated_merge_at: iso(eta.p50),
    estimated_merge_at_p90: iso(eta.p90),
    ...projectCiTimes(context, { queueName: batch.queueName, timing: timingOf(batch) }),
    scopes: [lane.partition],
    queue_rule_name: batch.queueName,
    checks_summary: summarize(state, { run, queueName: batch.queueName }),
    pull_requests: numbers.flatMap((n) => projectPullRequest(context, n)),
    ...(batch.laneDepth === undefined
      ? {}
      : {
          lane_depth: {
            ...batch.laneDepth,
            queued_per_check: state.config.merge_queue.queued_per_check,
            max_parallel_checks: state.config.merge_queue.max_parallel_checks,
          },
        }),
  };
  if (batch.phase !== 'bisecting') return projected;
  const subs = [
    ...(batch.bisection.passedPrefix ? [batch.bisection.passedPrefix] : []),
    ...batch.bisection.subBatches,
  ];
  return {
    ...projected,
    sub_batches: subs.map((sub) => projectSubBatch(context, { lane, batch, sub, index })),
  };
}

function projectSubBatch(
  context: Context,
  params: { lane: Lane; batch: Batch; sub: SubBatch; index: number },
): StatusBatch {
  const { lane, batch, sub, index } = params;
  const run = sub.trial.phase === 'waiting' || sub.trial.phase === 'preparing' ? null : sub.trial.run;
  return {
    id: sub.id,
    parent_ids: lane.batches.slice(0, index).map((b) => b.id),
    name: sub.name,
    status: { code: trialCode(sub.trial, false) },
    started_at: run?.startedAt ?? null,
    estimated_merge_at: null,
    estimated_merge_at_p90: null,
    ...projectCiTimes(context, { queueName: batch.queueName, timing: timingOfTrial(sub.trial) }),
    scopes: [lane.partition],
    queue_rule_name: batch.queueName,
    checks_summary: summarize(context.state, { run, queueName: batch.queueName }),
    pull_requests: batch.numbers.slice(0, sub.length).flatMap((n) => projectPullRequest(context, n)),
  };
}

/** Where a test is in time: not made yet, being prepared, running since, or ended (when known). */
type Timing =
  | { phase: 'none' }
  | { phase: 'preparing' }
  | { phase: 'running'; startedAt: string }
  | { phase: 'ended'; endedAt: string | null };

function timingOfTrial(trial: Trial): Timing {
  switch (trial.phase) {
    case 'waiting':
      return { phase: 'none' };
    case 'preparing':
      return { phase: 'preparing' };
    case 'testing':
      return { phase: 'running', startedAt: trial.run.startedAt };
    case 'passed':
    case 'failed':
      return { phase: 'ended', endedAt: trial.endedAt };
  }
}

function timingOf(batch: Batch): Timing {
  switch (batch.phase) {
    case 'trial':
      return timingOfTrial(batch.trial);
    case 'merging':
      return { phase: 'ended', endedAt: lastCompletion(batch.run) };
    case 'bisecting':
      return { phase: 'ended', endedAt: lastCompletion(batch.failedRun) };
  }
}

/**
 * `estimated_ci_finish_at` (a running test: its start plus the median recent CI duration, never
 * before now; one being prepared: now plus that duration), `ci_finished_at` and
 * `checks_timeout_at` (a running test: its start plus the rule's `checks_timeout`).
 */
function projectCiTimes(
  context: Context,
  params: { queueName: string; timing: Timing },
): Pick<StatusBatch, 'estimated_ci_finish_at' | 'ci_finished_at' | 'checks_timeout_at'> {
  const { state, now } = context;
  const { timing } = params;
  const ciMs = computeCiQuantile(state, 0.5) * 1000;
  const iso = (ms: number) => new Date(ms).toISOString();
  const timeout = state.config.queue_rules.find((r) => r.name === params.queueName)?.checks_timeout ?? null;
  switch (timing.phase) {
    case 'none':
      return { estimated_ci_finish_at: null, ci_finished_at: null, checks_timeout_at: null };
    case 'preparing':
      return {
        estimated_ci_finish_at: iso(now.getTime() + ciMs),
        ci_finished_at: null,
        checks_timeout_at: null,
      };
    case 'running': {
      const start = Date.parse(timing.startedAt);
      return {
        estimated_ci_finish_at: iso(Math.max(now.getTime(), start + ciMs)),
        ci_finished_at: null,
        checks_timeout_at: timeout === null ? null : iso(start + timeout * 1000),
      };
    }
    case 'ended':
      return { estimated_ci_finish_at: null, ci_finished_at: timing.endedAt, checks_timeout_at: null };
  }
}

/**
 * When the last check of a run completed, for the runs whose end the state does not keep (a
 * merging batch's, a bisected one's); null when no check says.
 */
export function lastCompletion(run: TestRun): string | null {
  const ends = run.checks
    .map((c) => (c.completedAt === null ? Number.NaN : Date.parse(c.completedAt)))
    .filter((ms) => Number.isFinite(ms));
  return ends.length === 0 ? null : new Date(Math.max(...ends)).toISOString();
}

/** The status code of a batch: where it is in its life, and why it is not merging yet. */
export function computeStatusCode(
  state: QueueState,
  params: { batch: Batch; isHead: boolean; now: Date },
): BatchStatusCode {
  const { batch, isHead, now } = params;
  if (batch.phase === 'bisecting') return 'bisecting';
  if (batch.phase === 'merging') return 'merging';
  if (batch.trial.phase !== 'passed') return trialCode(batch.trial, state.pause.paused);
  if (state.pause.paused) return 'paused';
  if (batch.numbers.some((n) => isFrozen(state, n, now))) return 'frozen';
  return isHead ? 'merging' : 'waiting_for_previous_batches';
}

function trialCode(trial: Trial, paused: boolean): BatchStatusCode {
  switch (trial.phase) {
    case 'waiting':
      return paused ? 'paused' : 'waiting_for_batch';
    case 'preparing':
      return 'preparing';
    case 'testing':
      return 'running';
    case 'passed':
      return 'waiting_for_previous_batches';
    case 'failed':
      return 'failed';
  }
}

function runOf(batch: Batch): TestRun | null {
  if (batch.phase === 'merging') return batch.run;
  if (batch.phase === 'bisecting') return batch.failedRun;
  return batch.trial.phase === 'preparing' ? null : batch.trial.run;
}

/** Check states that count as passed, as for a checks outcome's SUCCESS. */
const isPassing = (state: string) => state === 'success' || state === 'neutral' || state === 'skipped';

/**
 * Checks reported on the tested commit (passed: success, neutral or skipped), plus those the
 * queue rule's merge conditions name that have not reported yet: CI reports a check when it
 * completes, so while it runs the summary counts what it waits for rather than 0/0.
 */
function summarize(
  state: QueueState,
  params: { run: TestRun | null; queueName: string },
): { passed: number; total: number } {
  const checks = params.run?.checks ?? [];
  const reported = new Set(checks.map((c) => c.name));
  const rule = state.config.queue_rules.find((r) => r.name === params.queueName);
  const awaited =
    rule === undefined ? [] : [...namedChecks(rule.merge_conditions)].filter((n) => !reported.has(n));
  return { passed: checks.filter((c) => isPassing(c.state)).length, total: checks.length + awaited.length };
}

function projectPullRequest(context: Context, number: number): QueuedPullRequest[] {
  const { state } = context;
  const session = state.sessions[String(number)];
  const pr = state.pullRequests[String(number)];
  if (session === undefined || pr === undefined) return [];
  return [
    {
      number,
      title: pr.title,
      url: pr.url,
      author: { id: pr.author.id, login: pr.author.login },
      head_ref: pr.head,
      queued_at: session.queuedAt,
      priority_alias: session.priorityAlias,
      // null outside every priority rule, as in the events and the statistics.
      priority_rule_name: session.priorityRuleName,
      labels: pr.labels.map((l) => l.name),
      github_labels: pr.labels.map((l) => ({ id: l.id, name: l.name, color: l.color, default: l.default })),
      scopes: session.partitions,
      estimated_merge_at: iso(context.etaOf(session)),
      estimated_merge_at_p90: iso(context.etaP90Of(session)),
      reasons: context.reasonsOf(session),
    },
  ];
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
