import { DEFAULT_PRIORITY_RULE_NAME } from '../../shared/schemas/default-names.ts';
import type {
  BatchStatusCode,
  FailedEffect,
  MergeQueueStatus,
  QueuedPullRequest,
  Batch as StatusBatch,
} from '../../shared/schemas/merge-queue.schema.ts';
import { computeBatchEtas } from './eta.ts';
import { isFrozen } from './freeze.ts';
import { computeEmbarked, orderSessions } from './ordering.ts';
import type { Batch, Lane, QueueState, SubBatch, TestRun, Trial } from './state.ts';

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
  for (const lane of lanes) {
    scope_queues[lane.partition] = lane.batches.map((b) => b.id);
    const etas = computeBatchEtas(state, lane, { now: params.now });
    lane.batches.forEach((batch, index) => {
      batches.push(projectBatch(state, { lane, batch, index, eta: etas[index] ?? null, now: params.now }));
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
    scope_queues,
    batches,
    waiting_pull_requests: waiting.flatMap((s) => projectPullRequest(state, s.number)),
    ...projectFailedEffects(state, params.now),
  };
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
  state: QueueState,
  params: { lane: Lane; batch: Batch; index: number; eta: number | null; now: Date },
): StatusBatch {
  const { lane, batch, index, eta } = params;
  const run = runOf(batch);
  const numbers =
    batch.phase === 'merging' ? batch.numbers.filter((n) => !batch.merged.includes(n)) : batch.numbers;
  const projected: StatusBatch = {
    id: batch.id,
    parent_ids: lane.batches.slice(0, index).map((b) => b.id),
    name: batch.name,
    status: { code: computeStatusCode(state, { batch, isHead: index === 0, now: params.now }) },
    started_at: run?.startedAt ?? null,
    estimated_merge_at: eta === null ? null : new Date(eta).toISOString(),
    scopes: [lane.partition],
    checks_summary: summarize(run),
    pull_requests: numbers.flatMap((n) => projectPullRequest(state, n)),
  };
  if (batch.phase !== 'bisecting') return projected;
  const subs = [
    ...(batch.bisection.passedPrefix ? [batch.bisection.passedPrefix] : []),
    ...batch.bisection.subBatches,
  ];
  return {
    ...projected,
    sub_batches: subs.map((sub) => projectSubBatch(state, { lane, batch, sub, index })),
  };
}

function projectSubBatch(
  state: QueueState,
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
    scopes: [lane.partition],
    checks_summary: summarize(run),
    pull_requests: batch.numbers.slice(0, sub.length).flatMap((n) => projectPullRequest(state, n)),
  };
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

function summarize(run: TestRun | null): { passed: number; total: number } {
  const checks = run?.checks ?? [];
  return { passed: checks.filter((c) => c.state === 'success').length, total: checks.length };
}

function projectPullRequest(state: QueueState, number: number): QueuedPullRequest[] {
  const session = state.sessions[String(number)];
  const pr = state.pullRequests[String(number)];
  if (session === undefined || pr === undefined) return [];
  return [
    {
      number,
      title: pr.title,
      url: pr.url,
      author: { id: pr.author.id, login: pr.author.login },
      queued_at: session.queuedAt,
      priority_alias: session.priorityAlias,
      // The status resource has no "none": pull requests outside every priority rule show DEFAULT_PRIORITY_RULE_NAME.
      priority_rule_name: session.priorityRuleName ?? DEFAULT_PRIORITY_RULE_NAME,
      labels: pr.labels.map((l) => l.name),
      github_labels: pr.labels.map((l) => ({ id: l.id, name: l.name, color: l.color, default: l.default })),
      scopes: session.partitions,
    },
  ];
}
