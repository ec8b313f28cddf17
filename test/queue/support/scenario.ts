import { type TrainyardConfigInput, trainyardConfigSchema } from '../../../app/config/config.schema.ts';
import type { Effect } from '../../../app/queue/effects.ts';
import type { IdSource } from '../../../app/queue/ids.ts';
import type {
  CheckReport,
  GithubAccount,
  PullRequestSnapshot,
  QueueInput,
} from '../../../app/queue/inputs.ts';
import { initialState, queueStateSchema } from '../../../app/queue/state.schema.ts';
import type { QueueState } from '../../../app/queue/state.ts';
import { computeMergeQueueStatus } from '../../../app/queue/status-projection.ts';
import { step } from '../../../app/queue/step.ts';
import { type NewEvent, newEventSchema } from '../../../shared/schemas/event.schema.ts';
import { mergeQueueStatusSchema } from '../../../shared/schemas/merge-queue.schema.ts';
import { renderEffect, renderEvent, renderInput, renderOffset } from './timeline.ts';

/*
 * The engine's scenario language: given a configuration, inputs at virtual times ⇒ effects,
 * events, status. A fake shell answers the engine's effects the way the real one
 * would (test branches, merges, wake-ups) and a CI oracle decides each tested commit's result
 * from the pull requests it contains. Every event is validated against newEventSchema and every
 * state against the state schema, automatically.
 */

export const START = Date.parse('2026-11-02T09:00:00Z');

/** uuids `00000001-0000-4000-8000-000000000000`, … : deterministic and readable. */
export function createCountingIds(): IdSource {
  let n = 0;
  return { uuid: () => `${(++n).toString(16).padStart(8, '0')}-0000-4000-8000-000000000000` };
}

export type CiVerdict = 'success' | 'failure' | 'hang';
/** Decides a tested commit's CI result from the pull requests it contains (base excluded). */
export type CiOracle = (numbers: number[], attempt: number) => CiVerdict;

export const allPass: CiOracle = () => 'success';
export const failIfContains =
  (...bad: number[]): CiOracle =>
  (numbers) =>
    numbers.some((n) => bad.includes(n)) ? 'failure' : 'success';

export interface StepRecord {
  at: number;
  input: QueueInput;
  effects: Effect[];
  events: NewEvent[];
  state: QueueState;
}

interface Agenda {
  at: number;
  seq: number;
  input: QueueInput;
}

const alice: GithubAccount = { id: 1001, login: 'alice', type: 'User' };

export function parseDurationText(text: string): number {
  let ms = 0;
  for (const [, value, unit] of text.matchAll(/(\d+)(ms|h|m|s|d)/g)) {
    ms += Number(value) * { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[unit as 'ms']!;
  }
  return ms;
}

export function pullRequest(
  number: number,
  overrides: Partial<PullRequestSnapshot> = {},
): PullRequestSnapshot {
  return {
    number,
    title: `Change ${number}`,
    body: '',
    url: `https://github.com/acme/app/pull/${number}`,
    author: alice,
    base: 'main',
    head: `feature-${number}`,
    headSha: `pr-${number}-head`,
    draft: false,
    labels: [],
    files: [`src/file-${number}.ts`],
    checkRuns: [{ name: 'ci', state: 'success' }],
    approvedReviewsBy: ['bob'],
    changesRequestedReviewsBy: [],
    ...overrides,
  };
}

export function check(name: string, state: CheckReport['state']): CheckReport {
  return {
    name,
    state,
    url: null,
    description: `${name}: ${state}`,
    avatarUrl: null,
    startedAt: null,
    completedAt: null,
  };
}

export interface ShellOptions {
  ci?: CiOracle;
  /** The link of the `ci` check reported on a tested commit (none by default). */
  ciUrl?: (sha: string) => string;
  ciDuration?: string;
  /** Stop at this offset from START even if timers remain. */
  until?: string;
  /** test_branch_failed answers: by batch attempt, null = prepare normally. */
  prepare?: (effect: Extract<Effect, { type: 'prepare_test_branch' }>) => QueueInput | null;
  merge?: (effect: Extract<Effect, { type: 'merge_pr' }>) => QueueInput | null;
  /** test_branch_prepared says the tree after each pull request (`<sha>-up-to-<n>`). */
  trees?: boolean;
  /** base_tree_read answers to verify_merge; null = the base holds exactly the tested tree. */
  verify?: (effect: Extract<Effect, { type: 'verify_merge' }>) => QueueInput | null;
}

export class Scenario {
  state: QueueState;
  now = START;
  readonly log: StepRecord[] = [];
  readonly names = new Map<string, string>();
  readonly snapshots = new Map<number, PullRequestSnapshot>();
  private readonly ids: IdSource;
  private agenda: Agenda[] = [];
  private seq = 0;
  private baseCommits = 0;
  private testedBy = new Map<string, { numbers: number[]; attempt: number; batchId: string }>();
  /** Each branch head as the shell has it (`<branch>-0` until a push is seen). */
  private heads = new Map<string, string>();
  /** The commit each tested commit was built on: a fast-forward is refused unless the base is among its ancestors. */
  private builtOn = new Map<string, string>();
  /** CI verdict of each tested commit, as the oracle decided. */
  readonly verdicts = new Map<string, 'success' | 'failure'>();
  private commentId = 5000;
  /**
   * Steps from a copy of the state with no object shared with the last step (as if loaded from
   * storage), so that nothing the engine memoizes on its immutable records carries over.
   */
  reload = false;

  constructor(config: TrainyardConfigInput = {}, ids: IdSource = createCountingIds()) {
    this.state = initialState(trainyardConfigSchema.parse(config));
    this.ids = ids;
  }

  /** Moves the clock to START + offset, firing the engine's wake-ups on the way. */
  at(offset: string | number): this {
    const target = START + (typeof offset === 'number' ? offset : parseDurationText(offset));
    this.advanceTo(target);
    return this;
  }

  advanceTo(target: number): void {
    for (let guard = 0; guard < 10_000; guard++) {
      const wake = this.state.wakeUpAt === null ? null : Date.parse(this.state.wakeUpAt);
      if (wake === null || wake > target || wake < this.now) break;
      this.now = wake;
      this.send({ type: 'tick' });
    }
    this.now = Math.max(this.now, target);
  }

  send(input: QueueInput): StepRecord {
    const result = step(this.state, input, { now: new Date(this.now), ids: this.ids });
    for (const event of result.events) {
      const parsed = newEventSchema.safeParse(event);
      if (!parsed.success) {
        throw new Error(
          `invalid event ${event.type}: ${JSON.stringify(parsed.error.issues)}\n${JSON.stringify(event)}`,
        );
      }
    }
    if (input.type === 'base_branch_moved') this.heads.set(input.branch, input.sha);
    const stored = JSON.parse(JSON.stringify(result.state)) as unknown;
    queueStateSchema.parse(stored);
    // Reloading: the next step starts from the stored copy, sharing no object with this one.
    this.state = this.reload ? (stored as QueueState) : result.state;
    this.rememberNames();
    const record = {
      at: this.now,
      input,
      effects: result.effects,
      events: result.events,
      state: result.state,
    };
    this.log.push(record);
    return record;
  }

  private rememberNames(): void {
    for (const lane of this.state.lanes) {
      for (const batch of lane.batches) {
        this.names.set(batch.id, batch.name);
        if (batch.phase === 'bisecting') {
          for (const sub of batch.bisection.subBatches) this.names.set(sub.id, sub.name);
        }
      }
    }
  }

  open(number: number, overrides: Partial<PullRequestSnapshot> = {}): this {
    const pr = pullRequest(number, overrides);
    this.snapshots.set(number, pr);
    this.send({ type: 'pull_request_updated', pullRequest: pr });
    return this;
  }

  update(number: number, overrides: Partial<PullRequestSnapshot>): this {
    const pr = { ...(this.snapshots.get(number) ?? pullRequest(number)), ...overrides };
    this.snapshots.set(number, pr);
    this.send({ type: 'pull_request_updated', pullRequest: pr });
    return this;
  }

  /** A comment command by alice, who has write access, unless `by` says otherwise. */
  command(
    number: number,
    command: 'queue' | 'dequeue' | 'requeue' | 'refresh',
    queueName: string | null = null,
    by: { author: GithubAccount; authorized: boolean } = { author: alice, authorized: true },
  ): this {
    this.send({
      type: 'command_received',
      number,
      command,
      queueName,
      author: by.author,
      commentId: ++this.commentId,
      authorized: by.authorized,
    });
    return this;
  }

  /** A comment the shell could not read as a command, with the shell's answer. */
  commandNotUnderstood(number: number, reply: string): this {
    this.send({ type: 'command_not_understood', number, commentId: ++this.commentId, reply });
    return this;
  }

  /** Opens (if needed) and queues each pull request by command. */
  queue(...numbers: number[]): this {
    for (const number of numbers) {
      if (!this.snapshots.has(number)) this.open(number);
      this.command(number, 'queue');
    }
    return this;
  }

  /** Schedules an input at START + offset for runUntilIdle. */
  later(offset: string, input: QueueInput): this {
    this.agenda.push({ at: START + parseDurationText(offset), seq: ++this.seq, input });
    return this;
  }

  /** Pull requests in each tested commit, by sha. */
  tested(): Map<string, number[]> {
    return new Map([...this.testedBy].map(([sha, t]) => [sha, t.numbers]));
  }

  batchId(name: string): string {
    for (const [id, n] of this.names) if (n === name) return id;
    throw new Error(`no batch named ${name}`);
  }

  /** The commit under test for a batch (or sub-batch) by name. */
  testedSha(name: string): string {
    const id = this.batchId(name);
    for (const [sha, tested] of this.testedBy) if (tested.batchId === id) return sha;
    throw new Error(`${name} has no tested commit yet`);
  }

  /** Reports CI on a batch's tested commit now. */
  ci(name: string, state: CheckReport['state'], checkName = 'ci'): this {
    this.send({ type: 'checks_reported', sha: this.testedSha(name), checks: [check(checkName, state)] });
    return this;
  }

  /** Answers the effects of the last steps like the shell would, until nothing is left to do. */
  runUntilIdle(options: ShellOptions = {}): this {
    const ci = options.ci ?? allPass;
    const ciMs = parseDurationText(options.ciDuration ?? '10m');
    const until =
      options.until === undefined ? Number.POSITIVE_INFINITY : START + parseDurationText(options.until);
    let cursor = this.answeredUpTo;
    for (let guard = 0; guard < 20_000; guard++) {
      if (cursor < this.log.length) {
        const record = this.log[cursor++]!;
        for (const effect of record.effects) this.answer(effect, { ci, ciMs, options });
        continue;
      }
      const next = this.nextAgendaOrWake(until);
      if (next === null) break;
      this.now = Math.max(this.now, next.at);
      this.send(next.input);
    }
    this.answeredUpTo = this.log.length;
    return this;
  }

  /** Steps up to here have had their effects answered by the shell. */
  private answeredUpTo = 0;

  /** The next thing to happen up to `until`, taken off the agenda; later ones stay on it. */
  private nextAgendaOrWake(until: number): Agenda | null {
    this.agenda.sort((a, b) => a.at - b.at || a.seq - b.seq);
    const first = this.agenda[0];
    const wake = this.state.wakeUpAt === null ? null : Date.parse(this.state.wakeUpAt);
    if (wake !== null && wake >= this.now && (first === undefined || wake < first.at)) {
      return wake > until ? null : { at: wake, seq: 0, input: { type: 'tick' } };
    }
    if (first === undefined || first.at > until) return null;
    this.agenda.shift();
    return first;
  }

  private answer(effect: Effect, shell: { ci: CiOracle; ciMs: number; options: ShellOptions }): void {
    const at = this.now;
    const push = (delay: number, input: QueueInput) =>
      this.agenda.push({ at: at + delay, seq: ++this.seq, input });
    switch (effect.type) {
      case 'prepare_test_branch': {
        const custom = shell.options.prepare?.(effect) ?? null;
        if (custom !== null) {
          push(0, custom);
          return;
        }
        const sha = `test-${this.names.get(effect.batchId) ?? effect.batchId}-${effect.attempt}`;
        const start = effect.baseSha ?? this.headOf(effect.base);
        this.builtOn.set(sha, start);
        // Built on another tested commit (fast-forward), the pull requests in it are tested too
        // while it is not the base.
        const ahead = start === this.headOf(effect.base) ? [] : (this.testedBy.get(start)?.numbers ?? []);
        const numbers = [...ahead, ...effect.pullRequests.map((p) => p.number)];
        this.testedBy.set(sha, { numbers, attempt: effect.attempt, batchId: effect.batchId });
        push(0, {
          type: 'test_branch_prepared',
          batchId: effect.batchId,
          attempt: effect.attempt,
          sha,
          draftPullRequest: 9000 + this.seq,
          ...(shell.options.trees === true ? { trees: numbers.map((n) => `${sha}-up-to-${n}`) } : {}),
        });
        this.scheduleCi(push, sha, numbers, effect.attempt, shell);
        return;
      }
      case 'update_pr_in_place': {
        const sha = `pr-${effect.number}-updated-${effect.attempt}`;
        this.builtOn.set(sha, this.headOf(effect.base));
        this.testedBy.set(sha, {
          numbers: [effect.number],
          attempt: effect.attempt,
          batchId: effect.batchId,
        });
        const pr = { ...(this.snapshots.get(effect.number) ?? pullRequest(effect.number)), headSha: sha };
        this.snapshots.set(effect.number, pr);
        push(0, { type: 'pull_request_updated', pullRequest: pr });
        push(0, {
          type: 'test_branch_prepared',
          batchId: effect.batchId,
          attempt: effect.attempt,
          sha,
          draftPullRequest: null,
        });
        this.scheduleCi(push, sha, [effect.number], effect.attempt, shell);
        return;
      }
      case 'merge_pr': {
        const custom = shell.options.merge?.(effect) ?? null;
        if (custom !== null) {
          push(0, custom);
          return;
        }
        const sha = `main-${++this.baseCommits}`;
        push(0, { type: 'merge_completed', number: effect.number, sha });
        push(0, { type: 'base_branch_moved', branch: 'main', sha });
        return;
      }
      case 'fast_forward_base':
        // As GitHub: 422 unless the base is an ancestor of the commit.
        if (!this.descendsFrom(effect.sha, this.headOf(effect.base))) {
          const reason = `GitHub refused to fast-forward ${effect.base} to ${effect.sha} (422): Update is not a fast forward`;
          for (const number of effect.numbers) push(0, { type: 'merge_failed', number, reason });
          return;
        }
        this.heads.set(effect.base, effect.sha);
        for (const number of effect.numbers) push(0, { type: 'merge_completed', number, sha: effect.sha });
        push(0, { type: 'base_branch_moved', branch: effect.base, sha: effect.sha });
        return;
      case 'read_pull_request': {
        // GitHub has every pull request the scenario opened (open ones; unknown: closed).
        const pr = this.snapshots.get(effect.number);
        push(
          0,
          pr === undefined
            ? { type: 'pull_request_closed', number: effect.number, merged: false, mergeSha: null }
            : { type: 'pull_request_updated', pullRequest: pr },
        );
        push(0, { ...effect.command, read: { failure: null } });
        return;
      }
      case 'verify_merge': {
        const custom = shell.options.verify?.(effect) ?? null;
        // By default the base holds exactly what was tested.
        push(
          0,
          custom ?? {
            type: 'base_tree_read',
            batchId: effect.batchId,
            base: effect.base,
            headSha: `main-${this.baseCommits}`,
            treeSha: effect.expectedTree ?? `tree-of-${effect.testedSha}`,
            parentShas: [],
            testedTree: effect.expectedTree === null ? `tree-of-${effect.testedSha}` : null,
          },
        );
        return;
      }
      default:
        return;
    }
  }

  private headOf(branch: string): string {
    return this.heads.get(branch) ?? `${branch}-0`;
  }

  private descendsFrom(sha: string, ancestor: string): boolean {
    const seen = new Set<string>();
    for (let at: string | undefined = sha; at !== undefined && !seen.has(at); at = this.builtOn.get(at)) {
      if (at === ancestor) return true;
      seen.add(at);
    }
    return false;
  }

  private scheduleCi(
    push: (delay: number, input: QueueInput) => void,
    sha: string,
    numbers: number[],
    attempt: number,
    shell: { ci: CiOracle; ciMs: number; options: ShellOptions },
  ): void {
    const verdict = shell.ci(numbers, attempt);
    if (verdict === 'hang') return;
    this.verdicts.set(sha, verdict);
    const report = { ...check('ci', verdict), url: shell.options.ciUrl?.(sha) ?? null };
    push(shell.ciMs, { type: 'checks_reported', sha, checks: [report] });
  }

  /** The last step's effects and events: nothing happened. */
  expectNoEffects(): void {
    const last = this.log.at(-1);
    if (last === undefined) return;
    const visible = last.effects.filter((e) => e.type !== 'schedule_wake_up');
    if (visible.length > 0 || last.events.length > 0) {
      throw new Error(`expected nothing to happen, got:\n${this.renderRecords([last], {})}`);
    }
  }

  events(type?: NewEvent['type']): NewEvent[] {
    const all = this.log.flatMap((r) => r.events);
    return type === undefined ? all : all.filter((e) => e.type === type);
  }

  /** Every effect so far, or those of one type (typed as that type). */
  effects(): Effect[];
  effects<T extends Effect['type']>(type: T): Extract<Effect, { type: T }>[];
  effects(type?: Effect['type']): Effect[] {
    const all = this.log.flatMap((r) => r.effects);
    return type === undefined ? all : all.filter((e) => e.type === type);
  }

  status(base = 'main') {
    const status = computeMergeQueueStatus(this.state, { base, now: new Date(this.now) });
    return mergeQueueStatusSchema.parse({ ...status, pause: null });
  }

  /** Compact, deterministic rendering of what happened (for inline snapshots). */
  timeline(options: { from?: number; checkRuns?: boolean; gauges?: boolean } = {}): string {
    return this.renderRecords(this.log.slice(options.from ?? 0), options);
  }

  mark(): number {
    return this.log.length;
  }

  private renderRecords(records: StepRecord[], options: { checkRuns?: boolean; gauges?: boolean }): string {
    const lines: string[] = [];
    for (const record of records) {
      const body = [
        ...groupByPullRequest(
          record.events
            .filter(
              (e) =>
                options.gauges === true ||
                (e.type !== 'action.queue.change' && e.type !== 'action.queue.checks.change'),
            )
            .map((e) => ({ number: e.pull_request, line: renderEvent(e, this.names) })),
        ),
        ...record.effects
          .filter(
            (e) =>
              (options.checkRuns === true || e.type !== 'publish_check_run') && e.type !== 'schedule_wake_up',
          )
          .map((e) => renderEffect(e, this.names, START)),
      ];
      if (body.length === 0 && record.input.type === 'tick') continue;
      lines.push(`${renderOffset(record.at - START).padEnd(7)}${renderInput(record.input, this.names)}`);
      for (const line of body) lines.push(`         ${line}`);
    }
    return `\n${lines.join('\n')}\n`;
  }
}

/** `checks_start #1 batch-1`, `checks_start #2 batch-1` ⇒ `checks_start #1,#2 batch-1`. */
function groupByPullRequest(lines: { number: number | null; line: string }[]): string[] {
  const grouped: { numbers: number[]; key: string; line: string }[] = [];
  for (const { number, line } of lines) {
    const key = number === null ? line : line.replace(` #${number}`, ' #?');
    const last = grouped.at(-1);
    if (number !== null && last !== undefined && last.key === key && last.numbers.length > 0)
      last.numbers.push(number);
    else grouped.push({ numbers: number === null ? [] : [number], key, line });
  }
  return grouped.map((g) =>
    g.numbers.length > 1 ? g.key.replace('#?', g.numbers.map((n) => `#${n}`).join(',')) : g.line,
  );
}

export function scenario(config: TrainyardConfigInput = {}): Scenario {
  return new Scenario(config);
}
