import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatActivitySummary, readActivitySummary } from '../../app/activity-summary.ts';
import { WallClock } from '../../app/sandbox/clock.ts';
import { startSystem, type TrainyardSystem } from '../../app/start-system.ts';
import { createApiKey } from '../../app/store/api-keys.ts';
import type { Store } from '../../app/store/database.ts';
import { sandboxSystemSettings } from '../support/sandbox-system-settings.ts';
import { openTestStore } from '../support/test-store.ts';

/*
 * Issue #19, "sandbox time that reads right" (decision 0030): the whole system as `npm start`
 * runs it without credentials, on the real wall clock, at a fast pace (SANDBOX_TIME_SCALE=120:
 * 10-minute CI runs take 5 s, pull requests come 120 times as often), for a span in which pull
 * requests are queued, tested and merged and the queue is paused and unpaused. Every response
 * of the v1 API (status, pause, the event log, statistics) and of the sandbox's REST API is
 * scanned for timestamps: none may be later than the wall clock read once the answer arrived.
 * Relative times read right: a pause made now says it was made now, not hours from now.
 */

/** Ten-minute CI runs in a real repository take 5 s here (the checks time out after 30 s). */
const PACE = 120;
/** The span run: at least this long, and until some pull requests merged. */
const RUN_AT_LEAST_MS = 15_000;
const RUN_AT_MOST_MS = 150_000;

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

interface Stamp {
  where: string;
  path: string;
  at: number;
  /** Date.now() once the answer holding it was read. */
  readAt: number;
}

let dir: string;
let store: Store | undefined;
let system: TrainyardSystem | undefined;
const stamps: Stamp[] = [];
const estimates: Stamp[] = [];
let secret: string;
let repoUrl: string;
let pause: { before: number; after: number; record: { paused_at: string }; read: { paused_at: string } };
let merged = 0;
let summary: Awaited<ReturnType<typeof readActivitySummary>>;
let finalStatus: { batches: { pull_requests: { number: number }[] }[]; waiting_pull_requests: unknown[] };
let mergedCountStat = 0;

/**
 * Every ISO timestamp in a JSON value, by path. Two kinds are not times something happened and
 * are kept apart: predictions and deadlines (`estimated_*` and their p90, `*timeout_at`, a reason's
 * `until`), and the bounds of
 * statistics buckets (the bucket under way ends at the end of its hour or day, whatever the clock).
 */
const PREDICTION = /(^|\.)(estimated_[a-z0-9_]+|[a-z_]*timeout_at|until)$/;
function collect(where: string, value: unknown, readAt: number, path = ''): void {
  if (typeof value === 'string' && ISO_TIME.test(value)) {
    const stamp = { where, path, at: Date.parse(value), readAt };
    if (PREDICTION.test(path)) estimates.push(stamp);
    else if (!(where === 'stats' && /\.(start|end)$/.test(path))) stamps.push(stamp);
  } else if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) collect(where, item, readAt, `${path}[${i}]`);
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value))
      collect(where, item, readAt, path ? `${path}.${key}` : key);
  }
}

async function read(where: string, url: string, init: RequestInit = {}): Promise<unknown> {
  const response = await fetch(url, {
    ...init,
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', ...init.headers },
  });
  const text = await response.text();
  const readAt = Date.now();
  expect(response.status, `${where}: ${text}`).toBeLessThan(300);
  const body = text === '' ? null : (JSON.parse(text) as unknown);
  collect(where, body, readAt);
  return body;
}

/** Every event, page after page along the Link header. */
async function readWholeLog(): Promise<{ type: string }[]> {
  const events: { type: string }[] = [];
  let url: string | null = `${repoUrl}/logs?per_page=100`;
  while (url) {
    const response = await fetch(url, { headers: { authorization: `Bearer ${secret}` } });
    const readAt = Date.now();
    expect(response.status).toBe(200);
    const body = (await response.json()) as { events: { type: string }[] };
    collect('logs', body, readAt);
    events.push(...body.events);
    url = /<([^>]+)>;\s*rel="next"/.exec(response.headers.get('link') ?? '')?.[1] ?? null;
  }
  return events;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'trainyard-sandbox-time-'));
  store = await openTestStore();
  system = await startSystem({
    settings: sandboxSystemSettings(dir, PACE),
    store,
    logger: pino({ level: process.env.E2E_LOG_LEVEL ?? 'silent' }),
    sandbox: {
      seed: 3,
      // 480 pull requests an hour at this pace: 8 a minute, enough to batch, few enough for a busy machine.
      workload: { ratePerHour: 4, badRate: 0.1, hotfixRate: 0.1, conflictRate: 0, sharedFileRate: 0 },
      ci: { flakeRate: 0 },
      retryDelaysMs: [50, 100, 200, 500, 1_000, 2_000],
    },
  });
  const sandbox = system.side.sandbox!;
  expect(sandbox.clock).toBeInstanceOf(WallClock);
  const { owner, name } = sandbox.repository;
  ({ secret } = await createApiKey(store.db, {
    name: 'sandbox-time',
    owner,
    repository: null,
    role: 'admin',
    now: system.now(),
  }));
  repoUrl = `${system.address}/v1/repos/${owner}/${name}`;
  system.app.start();
  // The app learns of the repository from the sandbox's installation webhook.
  for (let tries = 0; ; tries++) {
    const response = await fetch(`${repoUrl}/merge-queue/status`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    if (response.status === 200) break;
    if (tries > 600) throw new Error(`the app never learnt of ${owner}/${name} (${response.status})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  const startedAt = Date.now();
  let paused = false;
  while (Date.now() - startedAt < RUN_AT_MOST_MS) {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await read('status', `${repoUrl}/merge-queue/status`);
    const elapsed = Date.now() - startedAt;
    if (!paused && elapsed > RUN_AT_LEAST_MS / 3) {
      // A pause made now, read back: its time is now, to the second.
      const before = Date.now();
      const record = (await read('pause', `${repoUrl}/merge-queue/pause`, {
        method: 'PUT',
        body: JSON.stringify({ reason: 'sandbox time test' }),
      })) as { paused_at: string };
      const after = Date.now();
      const readBack = (await read('pause', `${repoUrl}/merge-queue/pause`)) as { paused_at: string };
      await read('status', `${repoUrl}/merge-queue/status`);
      pause = { before, after, record, read: readBack };
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      await read('unpause', `${repoUrl}/merge-queue/pause`, { method: 'DELETE' });
      paused = true;
    }
    if (elapsed < RUN_AT_LEAST_MS || !paused) continue;
    const events = await readWholeLog();
    merged = events.filter((e) => e.type === 'action.queue.merged').length;
    if (merged >= 1) break;
  }

  // The app's loops stop: from here on nothing changes the queue, and the API still answers.
  await system.app.stop();
  const events = await readWholeLog();
  merged = events.filter((e) => e.type === 'action.queue.merged').length;
  finalStatus = (await read('final status', `${repoUrl}/merge-queue/status`)) as typeof finalStatus;
  summary = await readActivitySummary(store.db, { owner, name, now: system.now() });
  // The statistics' default period is the last day up to now: it holds every merge of the run.
  const stat = (await read('stats', `${repoUrl}/stats/queues_merged_count`)) as {
    groups: { stats: { merged: number }[] | null }[];
  };
  mergedCountStat = stat.groups.flatMap((g) => g.stats ?? []).reduce((sum, b) => sum + b.merged, 0);
  for (const endpoint of ['average_ci_runtime', 'queue_size', 'time_to_merge'])
    await read('stats', `${repoUrl}/stats/${endpoint}`);
  // The sandbox's own REST API (GitHub's pull requests, check runs, comments) on the same clock.
  const token = sandbox.mintUserToken(sandbox.people.maintainer);
  const api = `${sandbox.apiUrl}/repos/${owner}/${name}`;
  const pulls = (await (
    await fetch(`${api}/pulls?state=all&per_page=100`, { headers: { authorization: `token ${token}` } })
  ).json()) as { number: number; head: { sha: string } }[];
  collect('sandbox pulls', pulls, Date.now());
  for (const pull of pulls.slice(0, 5)) {
    for (const path of [`/issues/${pull.number}/comments`, `/commits/${pull.head.sha}/check-runs`]) {
      const body = await (
        await fetch(`${api}${path}`, { headers: { authorization: `token ${token}` } })
      ).json();
      collect(`sandbox ${path}`, body, Date.now());
    }
  }
}, 240_000);

afterAll(async () => {
  await system?.stop();
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('sandbox time on the wall clock (decision 0030)', () => {
  it('ran a span with queued, tested and merged pull requests', () => {
    expect(merged).toBeGreaterThanOrEqual(1);
    expect(stamps.filter((s) => s.where === 'logs').length).toBeGreaterThan(20);
    expect(stamps.filter((s) => s.where === 'sandbox pulls').length).toBeGreaterThan(5);
  });

  it('serves no timestamp later than the wall clock: status, pause, events, statistics, the sandbox', () => {
    const ahead = stamps.filter((s) => s.at > s.readAt);
    expect(
      ahead.map(
        (s) =>
          `${s.where} ${s.path}: ${new Date(s.at).toISOString()} read at ${new Date(s.readAt).toISOString()}`,
      ),
    ).toEqual([]);
    // And none from before the run (a clock that started in the past would show there).
    const run = Math.min(...stamps.filter((s) => s.where === 'logs').map((s) => s.at));
    expect(Date.now() - run).toBeLessThan(RUN_AT_MOST_MS + 60_000);
  });

  it('a pause made now reads as made now', () => {
    const at = Date.parse(pause.record.paused_at);
    // paused_at has whole seconds at worst.
    expect(at).toBeGreaterThanOrEqual(pause.before - 1_000);
    expect(at).toBeLessThanOrEqual(pause.after);
    expect(pause.read.paused_at).toBe(pause.record.paused_at);
  });

  it('estimates and deadlines are in the future, and near once CI runs were seen', () => {
    expect(estimates.length).toBeGreaterThan(0);
    for (const eta of estimates) expect(eta.at).toBeGreaterThanOrEqual(eta.readAt - 1_000);
    // At the end, after merges, the engine knows the demo's CI takes seconds: its estimates for
    // the batches in line are minutes away at most, not the hours a clock running ahead gave.
    for (const eta of estimates.filter((e) => e.where === 'final status'))
      expect(eta.at - eta.readAt, eta.path).toBeLessThan(2 * 60_000);
  });

  it('the statistics and the summary line agree with the log and the status', () => {
    expect(mergedCountStat).toBe(merged);
    expect(summary).not.toBeNull();
    expect(summary!.mergedLastHour).toBe(merged);
    const queued = new Set([
      ...finalStatus.batches.flatMap((b) => b.pull_requests.map((p) => p.number)),
      ...(finalStatus.waiting_pull_requests as { number: number }[]).map((p) => p.number),
    ]);
    expect(summary!.queued).toBe(queued.size);
    expect(formatActivitySummary(summary!)).toContain(`${merged} merged in the last hour`);
  });
});
