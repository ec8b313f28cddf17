import { type TrainyardConfigInput, trainyardConfigSchema } from '../../config/config.schema.ts';
import type { Effect } from '../../queue/effects.ts';
import { createSeededIdSource, type IdSource } from '../../queue/ids.ts';
import type { PullRequestSnapshot, QueueInput } from '../../queue/inputs.ts';
import { initialState } from '../../queue/state.schema.ts';
import type { QueueState } from '../../queue/state.ts';
import { step } from '../../queue/step.ts';
import { CiBreakdown } from '../ci-breakdown.ts';
import type { EtaRecorder } from '../eta-calibration.ts';
import type { QueuedPullRequest, QueuePolicy, QueueWorld, RunHandle } from '../policy.ts';
import type { RunTimeline } from '../tail-breakdown.ts';

/**
 * Trainyard: the real engine (`app/queue` step), driven through the inputs and effects the
 * GitHub shell uses. This adapter is the shell's simulated twin: it opens and queues pull
 * requests (webhook + `@trainyard queue` comment), builds test branches (on the base version the
 * engine names), runs their CI on the shared runners and reports checks, merges, forwards
 * wake-ups, and turns the engine's leave events into ejections. Effect results re-enter as
 * inputs at the same virtual time, one step at a time, like the outbox does.
 */
export const BASE = 'main';
/** Virtual time 0 as the engine sees it: a Monday, 00:00 UTC (the workload's day starts there). */
export const EPOCH = Date.parse('2026-01-05T00:00:00Z');
const CI_CHECK = 'ci';
const HOTFIX_LABEL = { id: 1, name: 'hotfix', color: 'ff0000', default: false };
const AUTHOR = { id: 1001, login: 'dev', type: 'User' as const };

export interface TrainyardPolicyOptions {
  name?: string;
  config: TrainyardConfigInput;
  seed: number;
  /** Told every CI run each pull request is part of (bench:queue-tail). */
  timeline?: RunTimeline;
  /** Records each pull request's merge estimates as it enters (bench:eta). */
  etas?: EtaRecorder;
}

export class TrainyardPolicy implements QueuePolicy {
  readonly name: string;
  private state: QueueState;
  private readonly ids: IdSource;
  private readonly timeline: RunTimeline | undefined;
  private world!: QueueWorld;
  private readonly inbox: QueueInput[] = [];
  private stepping = false;
  /** Base version of each base sha the engine was told about. */
  private readonly versions = new Map<string, number>();
  /** The run of each tested unit (batch or sub-batch id) and its kind. */
  private readonly runs = new Map<string, { handle: RunHandle; kind: RunKind }>();
  /** Runner time by kind of run and outcome. */
  readonly ci = new CiBreakdown();
  private readonly wakeUps = new Map<string, number>();
  private readonly heads = new Map<number, string>();
  private comments = 0;
  private draftNumbers = 1_000_000;
  /** ∫ (sum of the engine's reported queue sizes) dt, and when it was last updated: for checks of the gauges. */
  readonly gauge = { area: 0, since: 0, sizes: new Map<string, number>() };
  steps = 0;

  constructor(options: TrainyardPolicyOptions) {
    this.name = options.name ?? 'trainyard';
    this.state = initialState(trainyardConfigSchema.parse(options.config));
    this.ids = createSeededIdSource(options.seed);
    this.timeline = options.timeline;
    this.etas = options.etas;
  }

  private readonly etas: EtaRecorder | undefined;

  start(world: QueueWorld): void {
    this.world = world;
    this.send({ type: 'base_branch_moved', branch: BASE, sha: this.baseSha(world.baseVersion()) });
  }

  onQueued(pr: QueuedPullRequest): void {
    const snapshot = this.snapshot(pr);
    this.send({ type: 'pull_request_updated', pullRequest: snapshot });
    this.send({
      type: 'command_received',
      number: pr.number,
      command: 'queue',
      queueName: null,
      author: AUTHOR,
      commentId: ++this.comments,
      authorized: true,
    });
    const at = this.world.now();
    this.etas?.record(this.state, { number: pr.number, engineNow: new Date(EPOCH + at), epoch: EPOCH, at });
  }

  /** The engine's state now (for tests and reports). */
  get engineState(): QueueState {
    return this.state;
  }

  private snapshot(pr: QueuedPullRequest): PullRequestSnapshot {
    // A requeued pull request comes back with a new head (its author pushed, or re-ran CI).
    const previous = this.heads.get(pr.number);
    const headSha = previous === undefined ? `pr-${pr.number}-1` : `${previous}+`;
    this.heads.set(pr.number, headSha);
    return {
      number: pr.number,
      title: `Change ${pr.number}`,
      body: '',
      url: `https://github.com/sim/repo/pull/${pr.number}`,
      author: AUTHOR,
      base: BASE,
      head: `change-${pr.number}`,
      headSha,
      draft: false,
      labels: pr.hotfix ? [HOTFIX_LABEL] : [],
      files: [...pr.files],
      checkRuns: [{ name: CI_CHECK, state: 'success' }],
      approvedReviewsBy: ['reviewer'],
      changesRequestedReviewsBy: [],
    };
  }

  private baseSha(version: number): string {
    const sha = `base-${version}`;
    this.versions.set(sha, version);
    return sha;
  }

  /** Applies inputs one step at a time; effects may add more inputs, applied in order. */
  private send(input: QueueInput): void {
    this.inbox.push(input);
    if (this.stepping) return;
    this.stepping = true;
    try {
      for (let next = this.inbox.shift(); next !== undefined; next = this.inbox.shift()) {
        const now = this.world.now();
        const result = step(this.state, next, { now: new Date(EPOCH + now), ids: this.ids });
        this.steps++;
        this.state = result.state;
        for (const event of result.events) this.observe(event, now);
        for (const effect of result.effects) this.execute(effect);
      }
    } finally {
      this.stepping = false;
    }
  }

  private observe(event: ReturnType<typeof step>['events'][number], now: number): void {
    if (event.type === 'action.queue.checks_start' && this.timeline !== undefined) {
      const unit = event.metadata.train_car_id;
      if (event.pull_request !== null && unit !== null) {
        this.timeline.started(event.pull_request, unit, findRunKind(this.state, unit), now);
      }
    }
    if (event.type === 'action.queue.checks_end') {
      const { metadata } = event;
      const outcome = metadata.aborted ? metadata.abort_code : metadata.checks_conclusion;
      if (metadata.train_car_id !== null) this.ci.ended(metadata.train_car_id, outcome ?? 'unknown');
      if (this.timeline !== undefined && event.pull_request !== null && metadata.train_car_id !== null) {
        // A failed run ends with the abort code CHECKS_FAILED and the conclusion failure.
        const end =
          metadata.checks_conclusion === 'failure'
            ? 'failed'
            : metadata.abort_code === 'BATCH_AHEAD_FAILED'
              ? 'aborted_behind_failure'
              : metadata.aborted
                ? 'aborted'
                : 'passed';
        this.timeline.ended(event.pull_request, metadata.train_car_id, end, now);
      }
    }
    if (event.type === 'action.queue.leave' && event.pull_request !== null && !event.metadata.merged) {
      this.world.eject(event.pull_request, event.metadata.reason);
    }
    if (event.type === 'action.queue.change') {
      const key = `${event.metadata.queue_name}\u001f${event.metadata.partition_name}\u001f${event.metadata.priority_rule_name}`;
      let total = 0;
      for (const size of this.gauge.sizes.values()) total += size;
      this.gauge.area += total * (now - this.gauge.since);
      this.gauge.since = now;
      this.gauge.sizes.set(key, event.metadata.size);
    }
  }

  private execute(effect: Effect): void {
    switch (effect.type) {
      case 'prepare_test_branch': {
        const version =
          effect.baseSha === null
            ? this.world.baseVersion()
            : (this.versions.get(effect.baseSha) ?? this.world.baseVersion());
        const sha = `test-${effect.batchId}-${effect.attempt}`;
        this.inbox.push({
          type: 'test_branch_prepared',
          batchId: effect.batchId,
          attempt: effect.attempt,
          sha,
          draftPullRequest: ++this.draftNumbers,
        });
        this.startRun(effect.batchId, sha, {
          numbers: effect.pullRequests.map((p) => p.number),
          baseVersion: version,
        });
        return;
      }
      case 'update_pr_in_place': {
        const sha = `${this.heads.get(effect.number) ?? `pr-${effect.number}`}@base-${this.world.baseVersion()}`;
        this.heads.set(effect.number, sha);
        const current = this.state.pullRequests[String(effect.number)];
        if (current !== undefined) {
          this.inbox.push({ type: 'pull_request_updated', pullRequest: { ...current, headSha: sha } });
        }
        this.inbox.push({
          type: 'test_branch_prepared',
          batchId: effect.batchId,
          attempt: effect.attempt,
          sha,
          draftPullRequest: null,
        });
        this.startRun(effect.batchId, sha, {
          numbers: [effect.number],
          baseVersion: this.world.baseVersion(),
        });
        return;
      }
      case 'close_draft_pr':
      case 'cancel_checks': {
        this.cancel(effect.batchId);
        return;
      }
      case 'merge_pr': {
        this.world.merge(effect.number);
        const sha = this.baseSha(this.world.baseVersion());
        this.inbox.push({ type: 'merge_completed', number: effect.number, sha });
        this.inbox.push({ type: 'base_branch_moved', branch: BASE, sha });
        this.inbox.push({ type: 'pull_request_closed', number: effect.number, merged: true, mergeSha: sha });
        return;
      }
      case 'fast_forward_base': {
        for (const number of effect.numbers) this.world.merge(number);
        this.versions.set(effect.sha, this.world.baseVersion());
        for (const number of effect.numbers) {
          this.inbox.push({ type: 'merge_completed', number, sha: effect.sha });
        }
        this.inbox.push({ type: 'base_branch_moved', branch: BASE, sha: effect.sha });
        for (const number of effect.numbers) {
          this.inbox.push({ type: 'pull_request_closed', number, merged: true, mergeSha: effect.sha });
        }
        return;
      }
      case 'schedule_wake_up': {
        const at = Date.parse(effect.at) - EPOCH;
        if (this.wakeUps.get(effect.key) === at) return;
        this.wakeUps.set(effect.key, at);
        this.world.wakeAt(at, () => {
          // A later wake-up with the same key replaced this one.
          if (this.wakeUps.get(effect.key) !== at) return;
          this.wakeUps.delete(effect.key);
          this.send({ type: 'tick' });
        });
        return;
      }
      case 'verify_merge': {
        // The simulated base holds exactly what was tested: every verification is equal.
        const sha = this.baseSha(this.world.baseVersion());
        this.inbox.push({
          type: 'base_tree_read',
          batchId: effect.batchId,
          base: effect.base,
          headSha: sha,
          treeSha: effect.expectedTree ?? effect.testedSha,
          parentShas: [],
          testedTree: effect.expectedTree === null ? effect.testedSha : null,
        });
        return;
      }
      case 'publish_check_run':
      case 'post_comment':
      case 'react_to_comment':
      // Simulated pull requests are stepped before any command names them.
      case 'read_pull_request':
        return;
      default: {
        const unknown: never = effect;
        throw new Error(`unknown effect ${JSON.stringify(unknown)}`);
      }
    }
  }

  private cancel(batchId: string): void {
    const run = this.runs.get(batchId);
    if (run === undefined) return;
    this.runs.delete(batchId);
    const used = this.world.cancelRun(run.handle);
    if (used > 0) this.ci.spent(batchId, run.kind, used);
  }

  private startRun(batchId: string, sha: string, content: { numbers: number[]; baseVersion: number }): void {
    this.cancel(batchId);
    const kind = findRunKind(this.state, batchId);
    const handle = this.world.startRun({
      ...content,
      onDone: ({ passed, durationMs }) => {
        this.ci.spent(batchId, kind, durationMs);
        if (this.runs.get(batchId)?.handle === handle) this.runs.delete(batchId);
        this.send({
          type: 'checks_reported',
          sha,
          checks: [
            {
              name: CI_CHECK,
              state: passed ? 'success' : 'failure',
              url: null,
              description: passed ? 'passed' : 'failed',
              avatarUrl: null,
              startedAt: null,
              completedAt: null,
            },
          ],
        });
      },
    });
    this.runs.set(batchId, { handle, kind });
  }
}

/** What a tested unit is, for the CI breakdown: a batch (in line, or aside after failing) or a probe of a bisection. */
type RunKind = 'batch' | 'probe';

/** A probe: a sub-batch of a bisection, or a group a failed batch was split into (both find culprits). */
function findRunKind(state: QueueState, unit: string): RunKind {
  const probe = state.lanes.some((lane) =>
    lane.batches.some(
      (b) =>
        (b.id === unit && b.split !== undefined) ||
        (b.phase === 'bisecting' && b.bisection.subBatches.some((s) => s.id === unit)),
    ),
  );
  return probe ? 'probe' : 'batch';
}
