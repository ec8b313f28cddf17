import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PRIORITY } from '../../app/config/config.schema.ts';
import { parseConfig } from '../../app/config/load-config.ts';
import { CHECK_RUN_NAME } from '../../app/github/render/check-run.ts';
import { VirtualClock } from '../../app/sandbox/clock.ts';
import type { Sandbox } from '../../app/sandbox/start-sandbox.ts';
import { startSystem, type TrainyardSystem } from '../../app/start-system.ts';
import { createApiKey } from '../../app/store/api-keys.ts';
import type { Store } from '../../app/store/database.ts';
import { ApiClient } from '../../shared/client/api-client.ts';
import type { Event, EventOf } from '../../shared/schemas/event.schema.ts';
import type { EventType } from '../../shared/schemas/event-types.ts';
import type {
  Batch,
  MergeQueueStatus,
  PauseRecord,
  QueuedPullRequest,
} from '../../shared/schemas/merge-queue.schema.ts';
import { type StatsResponse, statsResponseSchemas } from '../../shared/schemas/stats-response.schema.ts';
import { sandboxSystemSettings } from '../support/sandbox-system-settings.ts';
import { openTestStore } from '../support/test-store.ts';

/*
 * Issue #7, end to end and accelerated: the whole system as `npm start` runs it without GitHub
 * credentials (app/start-system.ts: the sandbox code host with simulated CI and the demo
 * workload, the store, the v1 API and the GitHub App), on a virtual clock, for three sandbox
 * hours with a pause in the middle. Then everything is checked through the public API (HTTP
 * on loopback with an application key); the sandbox is asked only which pull requests are bad
 * (its CI's truth), what it merged, and which pull requests it shows as queued.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const START = Date.UTC(2026, 10, 2, 9, 0, 0);
/** How far the clock moves between two settles: the app reacts within a sandbox minute. */
const STEP_MS = MINUTE;
const PAUSE_AT = 80 * MINUTE;
const PAUSE_FOR = 30 * MINUTE;
const RUN_FOR = 3 * HOUR;

/**
 * Seed 4 at 8 pull requests an hour: 25 pull requests queued in three hours, 4 of them bad and 3
 * hotfixes (one queued during the pause, one while batches run), batches of up to 3. No CI
 * flakes and no conflicts (for CI or in git): every failure is a bad pull request, so culprits
 * and dequeues can be checked exactly. External pushes stay on: they reset batches now and then.
 * CI runs take ten minutes each (no spread): the durations would otherwise depend on commit
 * SHAs, which depend on the app's random batch ids, and the run would differ from one time to
 * the next; this way it is the same every time, on PGlite and on PostgreSQL.
 */
const SEED = 4;
const WORKLOAD = {
  ratePerHour: 8,
  badRate: 0.12,
  hotfixRate: 0.15,
  conflictRate: 0,
  sharedFileRate: 0,
  externalPushesPerHour: 0.5,
};

interface PullView {
  number: number;
  author: string;
  state: 'open' | 'closed';
  merged: boolean;
  draft: boolean;
  /** The sandbox CI's truth: every run containing it fails. */
  bad: boolean;
  /** Its author asked `@trainyard queue` on it. */
  queuedByComment: boolean;
  /** The status of Trainyard's check run on its head, as GitHub shows it; null when none. */
  trainyardCheck: string | null;
}

interface Observed {
  events: Event[];
  status: MergeQueueStatus;
  pulls: PullView[];
  botLogin: string;
  priorities: Map<string | null, number>;
  pause: {
    record: PauseRecord;
    readWhilePaused: PauseRecord | null;
    statusWhilePaused: MergeQueueStatus;
    readAfter: PauseRecord | null;
  };
  stats: {
    entered: StatsResponse<'queues_entered_count'>;
    merged: StatsResponse<'queues_merged_count'>;
    exits: StatsResponse<'queues_pr_exit_reasons'>;
    bisection: StatsResponse<'batch_bisection'>;
  };
  window: { start: string; end: string };
}

let dir: string;
let store: Store | undefined;
let system: TrainyardSystem | undefined;
let observed: Observed;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'trainyard-e2e-'));
  store = await openTestStore();
  let clock: VirtualClock | undefined;
  system = await startSystem({
    // A real repository's durations (10-minute CI runs…): the virtual clock makes it fast.
    settings: sandboxSystemSettings(dir, 1),
    store,
    logger: pino({ level: process.env.E2E_LOG_LEVEL ?? 'silent' }),
    sandbox: {
      seed: SEED,
      workload: WORKLOAD,
      ci: { flakeRate: 0, spread: 0 },
      clock: (resumeAt) => {
        clock = new VirtualClock(resumeAt ?? START);
        return clock;
      },
      // The first delivery goes out before the app listens on its free port: it waits and retries.
      retryDelaysMs: [50, 100, 200, 500, 1_000, 2_000],
    },
  });
  const sandbox = system.side.sandbox!;
  const { owner, name } = sandbox.repository;
  const { secret } = await createApiKey(store.db, {
    name: 'e2e',
    owner,
    repository: null,
    role: 'admin',
    now: system.now(),
  });
  const api = new ApiClient({ baseUrl: system.address, token: () => secret });
  const drive = driver(system, sandbox, clock!);

  await drive.settle();
  await drive.run(PAUSE_AT);
  const record = await api.pause(owner, name, 'e2e: release in progress');
  await drive.settle();
  await drive.run(PAUSE_FOR);
  const readWhilePaused = await api.readPause(owner, name);
  const statusWhilePaused = await api.status(owner, name);
  await api.unpause(owner, name);
  const readAfter = await api.readPause(owner, name);
  await drive.settle();
  await drive.run(RUN_FOR - PAUSE_AT - PAUSE_FOR);

  const window = { start: new Date(START).toISOString(), end: system.now().toISOString() };
  const stat = async <E extends keyof typeof statsResponseSchemas>(endpoint: E) => {
    const query = new URLSearchParams({ start_at: window.start, end_at: window.end });
    const response = await fetch(`${system!.address}/v1/repos/${owner}/${name}/stats/${endpoint}?${query}`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    expect(response.status).toBe(200);
    return statsResponseSchemas[endpoint].parse(await response.json()) as StatsResponse<E>;
  };
  const repo = sandbox.github.repository(owner, name)!;
  const config = parseConfig(sandbox.github.fileText(repo, repo.defaultBranch, '.github/trainyard.yml')!);
  if (!config.ok) throw new Error('the demo configuration is invalid');
  observed = {
    events: await readWholeLog(api, owner, name),
    status: await api.status(owner, name),
    pulls: viewPulls(sandbox),
    botLogin: sandbox.github.app.bot.login,
    priorities: new Map<string | null, number>([
      [null, DEFAULT_PRIORITY.priority],
      ...config.config.priority_rules.map((r) => [r.name, r.priority] as const),
    ]),
    pause: { record, readWhilePaused, statusWhilePaused, readAfter },
    stats: {
      entered: await stat('queues_entered_count'),
      merged: await stat('queues_merged_count'),
      exits: await stat('queues_pr_exit_reasons'),
      bisection: await stat('batch_bisection'),
    },
    window,
  };
  // E2E_DUMP=<file>: what was observed, to read when an assertion fails.
  if (process.env.E2E_DUMP)
    (await import('node:fs')).writeFileSync(
      process.env.E2E_DUMP,
      JSON.stringify(observed, (_key, v) => (v instanceof Map ? [...v] : v), 1),
    );
}, 180_000);

afterAll(async () => {
  await system?.stop();
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/**
 * Moves the sandbox clock (the workload opens and queues pull requests, CI finishes, the app's
 * wake-ups come due) a minute at a time; after each minute the sandbox's webhooks go out and
 * the app does everything it can do now (its loops, run to idle).
 */
function driver(system: TrainyardSystem, sandbox: Sandbox, clock: VirtualClock) {
  const settle = async () => {
    for (let round = 0; round < 500; round++) {
      await sandbox.server.webhooks.flush();
      const done = await system.app.runUntilIdle();
      if (done === 0 && sandbox.server.webhooks.pendingCount() === 0) return;
    }
    throw new Error('the system did not settle in 500 rounds');
  };
  return {
    settle,
    async run(ms: number) {
      const end = clock.now() + ms;
      while (clock.now() < end) {
        clock.advance(Math.min(STEP_MS, end - clock.now()));
        await settle();
      }
    },
  };
}

/** Every event of the repository, oldest first, page after page along the Link header. */
async function readWholeLog(api: ApiClient, owner: string, name: string): Promise<Event[]> {
  const events: Event[] = [];
  let page = await api.logs(owner, name, { per_page: 100 });
  events.push(...page.page.events);
  while (page.links.next) {
    page = await api.logs(owner, name, { url: page.links.next });
    events.push(...page.page.events);
  }
  // Newest first, strictly: the pages neither overlap nor skip.
  const ids = events.map((e) => BigInt(e.id));
  for (let i = 1; i < ids.length; i++) expect(ids[i]! < ids[i - 1]!).toBe(true);
  return events.reverse();
}

/** What the sandbox shows of each pull request, and what its CI knows. */
function viewPulls(sandbox: Sandbox): PullView[] {
  const { github, ci } = sandbox;
  const repo = github.repository(sandbox.repository.owner, sandbox.repository.name)!;
  const command = `@${github.app.slug} queue`;
  return [...repo.pulls.values()].map((pull) => {
    const [check] = github.checks
      .runsFor(repo, pull.headSha, { checkName: CHECK_RUN_NAME, latestOnly: true })
      .filter((run) => run.app.id === github.app.id);
    return {
      number: pull.number,
      author: pull.user.login,
      state: pull.state,
      merged: pull.merged,
      draft: pull.draft,
      bad: ci.truthOf(repo, pull.number).bad,
      queuedByComment: github.issues
        .commentsOf(repo, pull.number)
        .some((c) => c.body === command && c.user.login === pull.user.login),
      trainyardCheck: check?.status ?? null,
    };
  });
}

function ofType<T extends EventType>(events: readonly Event[], type: T): EventOf<T>[] {
  return events.filter((e): e is EventOf<T> => e.type === type);
}

const idOf = (e: Event) => BigInt(e.id);

/** Lexicographic order of sort keys: is `a` strictly before `b`? */
function isBefore(a: readonly number[], b: readonly number[]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! < b[i]!;
  return false;
}

/** A priority alias of status (low, medium, high, or the number as text) as its number. */
function priorityOfAlias(alias: string): number {
  const named: Record<string, number> = { low: 1000, medium: 2000, high: 3000 };
  return named[alias] ?? Number(alias);
}

/** `CHECKS_FAILED: #15 fails…` → `CHECKS_FAILED`. */
const codeOf = (reason: string) => reason.split(':')[0]!;

/** Pull request numbers in status: top-level batches (sub-batches hold the same ones) and waiting. */
function statusNumbers(status: MergeQueueStatus): number[] {
  const inBatches = status.batches.flatMap((b: Batch) => b.pull_requests.map((p) => p.number));
  return [...inBatches, ...status.waiting_pull_requests.map((p) => p.number)];
}

/**
 * Invariant 4 read from the log: within a partition, a pull request X never merges before a
 * pull request Y that ranks ahead of it (higher priority, then earlier queued_at, then entry
 * order) unless Y entered after the checks that validated X had started (X's batch was under
 * test already), or Y was held aside by a failed batch before X merged (bisect_aside: a
 * suspect does not hold up the pull requests behind it). Returns the violations as sentences.
 */
function findOrderViolations(events: readonly Event[], priorities: Map<string | null, number>): string[] {
  const enters = new Map(ofType(events, 'action.queue.enter').map((e) => [e.metadata.session_id, e]));
  const merges = ofType(events, 'action.queue.merged');
  const rankOf = (m: EventOf<'action.queue.merged'>) => {
    const enter = enters.get(m.metadata.session_id)!;
    return [
      -priorities.get(m.metadata.priority_rule_name)!,
      Date.parse(m.metadata.queued_at),
      Number(enter.id),
    ];
  };
  /** The start of the checks that passed for this session before it merged. */
  const validatedAt = (m: EventOf<'action.queue.merged'>): bigint => {
    const passed = ofType(events, 'action.queue.checks_end')
      .filter(
        (e) =>
          e.metadata.session_id === m.metadata.session_id &&
          !e.metadata.aborted &&
          e.metadata.checks_conclusion === 'success' &&
          idOf(e) < idOf(m),
      )
      .at(-1);
    const start = ofType(events, 'action.queue.checks_start').find(
      (e) =>
        e.metadata.session_id === m.metadata.session_id &&
        e.metadata.train_car_id === passed?.metadata.train_car_id,
    );
    if (!start) throw new Error(`#${m.pull_request} merged without a passing check in the log`);
    return idOf(start);
  };
  /** Its checks failed (a failed batch is aborted with CHECKS_FAILED: the conclusion says it). */
  const failedBefore = (sessionId: string, before: bigint) =>
    ofType(events, 'action.queue.checks_end').some(
      (e) =>
        e.metadata.session_id === sessionId &&
        (e.metadata.checks_conclusion === 'failure' || e.metadata.checks_timed_out) &&
        idOf(e) < before,
    );
  const problems: string[] = [];
  for (const [i, x] of merges.entries()) {
    const xStart = validatedAt(x);
    for (const y of merges.slice(i + 1)) {
      if (!y.metadata.partition_names.some((p) => x.metadata.partition_names.includes(p))) continue;
      if (!isBefore(rankOf(y), rankOf(x))) continue;
      const yEnter = enters.get(y.metadata.session_id)!;
      if (idOf(yEnter) > xStart) continue;
      if (failedBefore(y.metadata.session_id, idOf(x))) continue;
      problems.push(
        `#${x.pull_request} (${x.metadata.priority_rule_name ?? 'no rule'}, queued ${x.metadata.queued_at}) merged before ` +
          `#${y.pull_request} (${y.metadata.priority_rule_name ?? 'no rule'}, queued ${y.metadata.queued_at}), ` +
          'which was queued before the checks that validated it started',
      );
    }
  }
  return problems;
}

/** Per group and hourly bucket: `<priority rule>|<bucket start>` → figure. */
function perBucket<
  G extends { priority_rule_name: string | null; stats: ({ start: string } & object)[] | null },
>(groups: readonly G[], figure: (bucket: NonNullable<G['stats']>[number]) => number): Map<string, number> {
  const counts = new Map<string, number>();
  for (const group of groups)
    for (const bucket of group.stats ?? []) {
      const key = `${group.priority_rule_name ?? NO_RULE}|${new Date(bucket.start).toISOString()}`;
      counts.set(key, (counts.get(key) ?? 0) + figure(bucket));
    }
  return counts;
}

/** The same keys, counted from events of the log (received_at, hourly buckets aligned to the epoch). */
function countPerBucket(events: readonly Event[], ruleOf: (e: Event) => string | null): Map<string, number> {
  const counts = new Map<string, number>();
  for (const event of events) {
    const at = Date.parse(event.received_at);
    const key = `${ruleOf(event) ?? NO_RULE}|${new Date(at - (at % HOUR)).toISOString()}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** Events and statistics groups without a priority rule (null) are counted under this key. */
const NO_RULE = '__default__';

describe('Trainyard end to end on the sandbox, three sandbox hours with a pause (issue #7)', () => {
  it('the workload did what the scenario needs: bad PRs, a hotfix, batches of several PRs, a bisection', () => {
    const { events, pulls, botLogin } = observed;
    const authored = pulls.filter((p) => p.author !== botLogin);
    expect(authored.filter((p) => p.bad).length).toBeGreaterThanOrEqual(2);
    const entered = ofType(events, 'action.queue.enter');
    expect(entered.length).toBeGreaterThan(15);
    expect(entered.filter((e) => e.metadata.priority_rule_name === 'hotfix').length).toBeGreaterThan(0);
    const starts = ofType(events, 'action.queue.checks_start');
    const sizes = new Map(starts.map((e) => [e.metadata.train_car_id, 0]));
    for (const e of starts) sizes.set(e.metadata.train_car_id, sizes.get(e.metadata.train_car_id)! + 1);
    expect(Math.max(...sizes.values())).toBeGreaterThan(1);
    expect(ofType(events, 'action.queue.batch_bisection_start').length).toBeGreaterThan(0);
    expect(ofType(events, 'action.queue.merged').length).toBeGreaterThan(10);
  });

  it('merges follow priority, then queue order, in each partition', () => {
    expect(findOrderViolations(observed.events, observed.priorities)).toEqual([]);
    // Priority did matter: a hotfix merged before pull requests of no rule queued earlier.
    const merges = ofType(observed.events, 'action.queue.merged');
    const overtaking = merges.filter(
      (m, i) =>
        m.metadata.priority_rule_name === 'hotfix' &&
        merges
          .slice(i + 1)
          .some(
            (later) =>
              later.metadata.priority_rule_name === null &&
              Date.parse(later.metadata.queued_at) < Date.parse(m.metadata.queued_at),
          ),
    );
    expect(overtaking.length).toBeGreaterThan(0);
    // Status shows the waiting pull requests in that order (here while paused, when nine waited).
    const waiting = observed.pause.statusWhilePaused.waiting_pull_requests;
    expect(waiting.length).toBeGreaterThan(3);
    const key = (p: QueuedPullRequest) => [-priorityOfAlias(p.priority_alias), Date.parse(p.queued_at)];
    for (let i = 1; i < waiting.length; i++)
      expect(isBefore(key(waiting[i]!), key(waiting[i - 1]!))).toBe(false);
  });

  it('bisections name bad pull requests as culprits, and at least one found its culprit', () => {
    const bad = new Set(observed.pulls.filter((p) => p.bad).map((p) => p.number));
    const ends = ofType(observed.events, 'action.queue.batch_bisection_end');
    const found = ends.filter((e) => e.metadata.culprit_found);
    expect(found.length).toBeGreaterThan(0);
    for (const end of found) {
      expect(end.metadata.culprit_pr_numbers.length).toBeGreaterThan(0);
      for (const culprit of end.metadata.culprit_pr_numbers) expect(bad).toContain(culprit);
    }
  });

  it('bad pull requests are dequeued for their failure and never merged; only bad ones leave so', () => {
    const { events, pulls } = observed;
    const bad = pulls.filter((p) => p.bad);
    const merged = new Set(ofType(events, 'action.queue.merged').map((e) => e.pull_request));
    const leaves = ofType(events, 'action.queue.leave');
    for (const pull of bad) {
      expect(merged.has(pull.number), `#${pull.number} is bad`).toBe(false);
      expect(pull.merged, `#${pull.number} is bad`).toBe(false);
      for (const leave of leaves.filter((e) => e.pull_request === pull.number))
        expect(leave.metadata).toMatchObject({
          merged: false,
          reason: expect.stringMatching(/^CHECKS_FAILED: /),
        });
    }
    // Dequeued: each bad pull request queued an hour (several CI runs) before the end has left.
    const entered = ofType(events, 'action.queue.enter');
    const end = Date.parse(observed.window.end);
    for (const pull of bad) {
      const enter = entered.find((e) => e.pull_request === pull.number);
      if (enter === undefined || end - Date.parse(enter.metadata.queued_at) < HOUR) continue;
      expect(
        leaves.some((e) => e.pull_request === pull.number),
        `#${pull.number} is bad`,
      ).toBe(true);
      expect(statusNumbers(observed.status)).not.toContain(pull.number);
    }
    const dequeued = leaves.filter((e) => codeOf(e.metadata.reason) === 'CHECKS_FAILED');
    expect(dequeued.length).toBeGreaterThanOrEqual(2);
    for (const leave of dequeued) expect(bad.map((p) => p.number)).toContain(leave.pull_request);
    // What merged on the code host is what the log says merged, each once.
    const mergedOnHost = pulls.filter((p) => p.merged).map((p) => p.number);
    expect([...merged].sort((a, b) => a! - b!)).toEqual(mergedOnHost.sort((a, b) => a - b));
    expect(merged.size).toBe(ofType(events, 'action.queue.merged').length);
  });

  it('pause stops batches and merges until unpaused; merges resume after', () => {
    const { events, pause } = observed;
    expect(pause.record.reason).toBe('e2e: release in progress');
    expect(pause.readWhilePaused).toEqual(pause.record);
    expect(pause.statusWhilePaused.pause).toEqual(pause.record);
    // Nothing under test while paused; the pull requests wait.
    expect(pause.statusWhilePaused.batches).toEqual([]);
    expect(pause.statusWhilePaused.waiting_pull_requests.length).toBeGreaterThan(0);
    expect(pause.readAfter).toBeNull();
    expect(observed.status.pause).toBeNull();

    const [create, ...moreCreates] = ofType(events, 'queue.pause.create');
    const [remove, ...moreRemoves] = ofType(events, 'queue.pause.delete');
    expect(moreCreates).toEqual([]);
    expect(moreRemoves).toEqual([]);
    expect(create!.metadata.reason).toBe('e2e: release in progress');
    expect(idOf(create!)).toBeLessThan(idOf(remove!));
    const during = events.filter((e) => idOf(e) > idOf(create!) && idOf(e) < idOf(remove!));
    expect(during.filter((e) => e.type === 'action.queue.merged')).toEqual([]);
    expect(during.filter((e) => e.type === 'action.queue.checks_start')).toEqual([]);
    // It did stop something: running batches were cancelled, and pull requests kept entering.
    expect(
      ofType(during, 'action.queue.checks_end').filter(
        (e) => e.metadata.abort_code === 'PR_CHECKS_STOPPED_BECAUSE_MERGE_QUEUE_PAUSE',
      ).length,
    ).toBeGreaterThan(0);
    expect(ofType(during, 'action.queue.enter').length).toBeGreaterThan(0);
    const before = ofType(events, 'action.queue.merged').filter((e) => idOf(e) < idOf(create!));
    const after = ofType(events, 'action.queue.merged').filter((e) => idOf(e) > idOf(remove!));
    expect(before.length).toBeGreaterThan(0);
    expect(after.length).toBeGreaterThan(0);
  });

  it('statistics agree with the event log: entries and merges per priority rule and hour, exit reasons, bisections', () => {
    const { events, stats } = observed;
    const ruleName = (e: Event) =>
      (e.metadata as { priority_rule_name?: string | null }).priority_rule_name ?? null;
    expect(perBucket(stats.entered.groups, (b) => b.entered)).toEqual(
      countPerBucket(ofType(events, 'action.queue.enter'), ruleName),
    );
    expect(perBucket(stats.merged.groups, (b) => b.merged)).toEqual(
      countPerBucket(ofType(events, 'action.queue.merged'), ruleName),
    );

    const exits = new Map<string, number>();
    for (const group of stats.exits.groups)
      for (const bucket of group.stats ?? [])
        exits.set(bucket.exit_reason, (exits.get(bucket.exit_reason) ?? 0) + bucket.count);
    const leaves = new Map<string, number>();
    for (const leave of ofType(events, 'action.queue.leave')) {
      const code = codeOf(leave.metadata.reason);
      leaves.set(code, (leaves.get(code) ?? 0) + 1);
    }
    expect(exits).toEqual(leaves);

    const sum = <T>(groups: { stats: T[] | null }[], figure: (b: T) => number) =>
      groups.flatMap((g) => g.stats ?? []).reduce((total, b) => total + figure(b), 0);
    const starts = ofType(events, 'action.queue.batch_bisection_start');
    const ends = ofType(events, 'action.queue.batch_bisection_end');
    expect(sum(stats.bisection.started, (b) => b.bisection_count)).toBe(starts.length);
    expect(sum(stats.bisection.completed, (b) => b.bisection_completed_count)).toBe(ends.length);
    expect(sum(stats.bisection.completed, (b) => b.culprit_found_count)).toBe(
      ends.filter((e) => e.metadata.culprit_found).length,
    );
  });

  it("status lists exactly the pull requests the sandbox shows as queued: open, queued by their author, Trainyard's check not completed", () => {
    const { status, pulls, botLogin } = observed;
    const listed = statusNumbers(status);
    expect(new Set(listed).size).toBe(listed.length);
    const queuedOnHost = pulls
      .filter(
        (p) =>
          p.author !== botLogin &&
          p.state === 'open' &&
          !p.draft &&
          p.queuedByComment &&
          p.trainyardCheck !== 'completed',
      )
      .map((p) => p.number);
    expect(listed.sort((a, b) => a - b)).toEqual(queuedOnHost.sort((a, b) => a - b));
    expect(queuedOnHost.length).toBeGreaterThan(0);
  });
});
