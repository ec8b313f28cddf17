import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEY_SEPARATOR } from '../../app/queue/composite-key.ts';
import { VirtualClock } from '../../app/sandbox/clock.ts';
import { startSystem, type TrainyardSystem } from '../../app/start-system.ts';
import { createApiKey } from '../../app/store/api-keys.ts';
import type { Store } from '../../app/store/database.ts';
import { loadQueueState } from '../../app/store/queue-state.ts';
import { findRepository } from '../../app/store/repositories.ts';
import { parseScrape, type Scrape } from '../support/prometheus-text.ts';
import { sandboxSystemSettings } from '../support/sandbox-system-settings.ts';
import { openTestStore } from '../support/test-store.ts';

/*
 * Issue #19 item 2: the metrics move with real work. The whole system as `npm start` runs it
 * without credentials (the sandbox code host with its CI and demo workload, the store, the API,
 * the GitHub App) on a virtual clock until pull requests are merged; /metrics is scraped over
 * loopback HTTP before, during and after, and its figures are checked against the event log and
 * the engine state in the database. The Grafana dashboard's queries are checked against the last
 * scrape.
 */

const MINUTE = 60_000;
const START = Date.UTC(2026, 10, 2, 9, 0, 0);
const REPOSITORY = 'demo/widgets';

let dir: string;
let store: Store;
let system: TrainyardSystem;
let clock: VirtualClock;
let before: Scrape;
let during: { scrape: Scrape; stateSizes: Record<string, number> } | null = null;
let after: Scrape;
let afterText: string;
let apiStatus: number;

/** Waits out the stored gauges' reuse window (a second), then scrapes. */
async function scrape(): Promise<{ scrape: Scrape; text: string }> {
  await new Promise((resolve) => setTimeout(resolve, 1_100));
  const response = await fetch(`${system.address}/metrics`);
  expect(response.status).toBe(200);
  const text = await response.text();
  return { scrape: parseScrape(text), text };
}

async function settle(): Promise<void> {
  const sandbox = system.side.sandbox!;
  for (let round = 0; round < 500; round++) {
    await sandbox.server.webhooks.flush();
    const done = await system.app.runUntilIdle();
    if (done === 0 && sandbox.server.webhooks.pendingCount() === 0) return;
  }
  throw new Error('the system did not settle in 500 rounds');
}

async function count(query: ReturnType<typeof sql<{ n: string }>>): Promise<number> {
  return Number((await query.execute(store.db)).rows[0]!.n);
}

/** Merge integrity's events in the log when the loop stopped, before the last scrape. */
let verifiedBeforeScrape = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'trainyard-metrics-'));
  store = await openTestStore();
  system = await startSystem({
    settings: sandboxSystemSettings(dir, 1),
    store,
    logger: pino({ level: 'silent' }),
    sandbox: {
      seed: 3,
      workload: {
        ratePerHour: 12,
        badRate: 0,
        hotfixRate: 0,
        conflictRate: 0,
        sharedFileRate: 0,
        externalPushesPerHour: 0,
      },
      ci: { flakeRate: 0, spread: 0 },
      clock: (resumeAt) => {
        clock = new VirtualClock(resumeAt ?? START);
        return clock;
      },
      retryDelaysMs: [50, 100, 200, 500, 1_000, 2_000],
    },
  });
  await settle();
  before = (await scrape()).scrape;
  const repository = (await findRepository(store.db, 'demo', 'widgets'))!;
  // Until two merges, a sandbox minute at a time; the queue's depth is compared once it is deep.
  for (let minute = 0; minute < 180; minute++) {
    clock.advance(MINUTE);
    await settle();
    const state = (await loadQueueState(store.db, repository.id)) as {
      gauges: { sizes: Record<string, number> };
    };
    if (during === null && Object.values(state.gauges.sizes).reduce((a, b) => a + b, 0) >= 2) {
      during = { scrape: (await scrape()).scrape, stateSizes: state.gauges.sizes };
    }
    const merged = await count(sql`SELECT count(*) AS n FROM events WHERE type = 'action.queue.merged'`);
    verifiedBeforeScrape = await count(
      sql`SELECT count(*) AS n FROM events WHERE type = 'action.queue.merge_verified'`,
    );
    if (merged >= 2 && verifiedBeforeScrape >= 1 && during !== null) break;
  }
  // One API request, to see its route's latency.
  const { secret } = await createApiKey(store.db, {
    name: 'metrics test',
    owner: 'demo',
    repository: null,
    role: 'read',
    now: system.now(),
  });
  apiStatus = (
    await fetch(`${system.address}/v1/repos/demo/widgets/merge-queue/status`, {
      headers: { authorization: `Bearer ${secret}` },
    })
  ).status;
  const last = await scrape();
  after = last.scrape;
  afterText = last.text;
}, 240_000);

afterAll(async () => {
  await system?.stop();
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('metrics after real webhook deliveries and merges in the sandbox', () => {
  it('counts merges, ejections and batch outcomes exactly as the event log records them', async () => {
    const merged = await count(sql`SELECT count(*) AS n FROM events WHERE type = 'action.queue.merged'`);
    expect(merged).toBeGreaterThanOrEqual(2);
    expect(before.sum('trainyard_pull_requests_merged_total')).toBe(0);
    expect(after.sum('trainyard_pull_requests_merged_total', { repository: REPOSITORY })).toBe(merged);

    const units = await count(
      sql`SELECT count(DISTINCT metadata->>'train_car_id') AS n FROM events WHERE type = 'action.queue.checks_end'`,
    );
    expect(units).toBeGreaterThan(0);
    expect(after.sum('trainyard_batches_total', { repository: REPOSITORY })).toBe(units);
    expect(
      after.sum('trainyard_batches_total', { repository: REPOSITORY, outcome: 'success' }),
    ).toBeGreaterThan(0);

    // Merge integrity: one count per merged pull request verified, as its event says.
    const verified = after.sum('trainyard_merge_verifications_total', { repository: REPOSITORY });
    expect(verifiedBeforeScrape).toBeGreaterThanOrEqual(1);
    expect(verified).toBeGreaterThanOrEqual(verifiedBeforeScrape);
    expect(verified).toBeLessThanOrEqual(
      await count(sql`SELECT count(*) AS n FROM events WHERE type = 'action.queue.merge_verified'`),
    );
    expect(after.sum('trainyard_merge_verifications_total', { outcome: 'different' })).toBe(0);

    const left = await count(
      sql`SELECT count(*) AS n FROM events WHERE type = 'action.queue.leave' AND (metadata->>'merged')::boolean = false`,
    );
    expect(
      after.sum('trainyard_pull_requests_ejected_total') +
        after.sum('trainyard_pull_requests_dequeued_total'),
    ).toBe(left);
  });

  it('counts webhook deliveries received and processed, with their lag, and none left pending', async () => {
    const stored = await count(sql`SELECT count(*) AS n FROM webhook_deliveries`);
    const receivedBefore = before.sum('trainyard_webhook_deliveries_received_total');
    const received = after.sum('trainyard_webhook_deliveries_received_total');
    expect(receivedBefore).toBeGreaterThan(0); // the installation and the demo's first pull requests
    expect(received).toBe(stored);
    expect(
      after.sum('trainyard_webhook_deliveries_received_total', { event: 'issue_comment' }),
    ).toBeGreaterThan(0);
    expect(after.sum('trainyard_webhook_deliveries_received_total', { event: 'check_run' })).toBeGreaterThan(
      before.sum('trainyard_webhook_deliveries_received_total', { event: 'check_run' }),
    );
    // Every stored delivery was processed once; the lag histogram saw each of them.
    expect(after.sum('trainyard_webhook_deliveries_processed_total')).toBe(received);
    expect(after.sum('trainyard_webhook_delivery_lag_seconds_count')).toBe(received);
    expect(after.sum('trainyard_webhook_delivery_lag_seconds_sum')).toBeGreaterThanOrEqual(0);
    expect(after.sum('trainyard_webhook_deliveries_pending')).toBe(0);
    expect(after.sum('trainyard_webhook_oldest_pending_age_seconds')).toBe(0);
    // Each delivery came over HTTP to the webhook route.
    expect(
      after.sum('trainyard_http_request_duration_seconds_count', {
        method: 'POST',
        route: '/api/github/webhooks',
        status: '202',
      }),
    ).toBeGreaterThanOrEqual(received);
  });

  it('counts effects and GitHub requests, and shows the rate limit GitHub (the sandbox) announces', async () => {
    const done = await count(
      sql`SELECT count(*) AS n FROM outbox WHERE done_at IS NOT NULL AND failed_at IS NULL`,
    );
    expect(after.sum('trainyard_outbox_effects_total', { outcome: 'done' })).toBe(done);
    expect(
      after.sum('trainyard_outbox_effects_total', { effect: 'merge_pr', outcome: 'done' }),
    ).toBeGreaterThan(0);
    expect(after.sum('trainyard_outbox_pending')).toBe(0);
    expect(after.sum('trainyard_outbox_failed_last_24h')).toBe(0);
    expect(after.sum('trainyard_stored_gauges_up')).toBe(1);

    const requests = after.samples.filter((s) => s.name === 'trainyard_github_requests_total');
    expect(requests.length).toBeGreaterThan(0);
    // Routes are templates: no owner, repository or number in a label.
    for (const s of requests) {
      expect(s.labels.route).toMatch(/^(GET|POST|PUT|PATCH|DELETE) \//);
      expect(s.labels.route).not.toMatch(/demo|widgets|\/\d+(\/|$)/);
    }
    expect(
      after.sum('trainyard_github_requests_total', {
        route: 'PUT /repos/{owner}/{repo}/pulls/{number}/merge',
      }),
    ).toBeGreaterThan(0);
    expect(after.sum('trainyard_github_request_duration_seconds_count')).toBe(
      after.sum('trainyard_github_requests_total'),
    );
    const installationId = String(system.side.sandbox!.github.access.installations.values().next().value!.id);
    expect(
      after.sum('trainyard_github_rate_limit_remaining', { installation: installationId, resource: 'core' }),
    ).toBe(4999);
  });

  it('times engine steps and API requests per route template', () => {
    expect(after.sum('trainyard_step_duration_seconds_count')).toBeGreaterThan(
      before.sum('trainyard_step_duration_seconds_count'),
    );
    expect(after.sum('trainyard_step_duration_seconds_count', { input: 'checks_reported' })).toBeGreaterThan(
      0,
    );
    expect(apiStatus).toBe(200);
    expect(
      after.sum('trainyard_http_request_duration_seconds_count', {
        method: 'GET',
        route: '/v1/repos/:owner/:repository/merge-queue/status',
        status: '200',
      }),
    ).toBe(1);
  });

  it('shows the queue depth per lane as the engine state in the database has it', () => {
    expect(during).not.toBeNull();
    const { scrape: mid, stateSizes } = during!;
    const expected = new Map<string, number>();
    for (const [key, size] of Object.entries(stateSizes)) {
      const [base, partition, queue] = key.split(KEY_SEPARATOR);
      const lane = `${base}|${partition}|${queue}`;
      expected.set(lane, (expected.get(lane) ?? 0) + size);
    }
    const shown = new Map(
      mid.samples
        .filter((s) => s.name === 'trainyard_queue_depth' && s.labels.repository === REPOSITORY)
        .map((s) => [`${s.labels.base}|${s.labels.partition}|${s.labels.queue}`, s.value]),
    );
    expect(shown).toEqual(expected);
    expect([...shown.values()].reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(2);
    expect(mid.sum('trainyard_checks_running', { repository: REPOSITORY })).toBeGreaterThan(0);
  });
});

describe('the Grafana dashboard', () => {
  it('queries only metrics that a real scrape has', () => {
    const dashboard = JSON.parse(
      readFileSync(new URL('../../docs/grafana/trainyard.json', import.meta.url), 'utf8'),
    );
    const expressions: string[] = [];
    const walk = (node: unknown) => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (typeof node === 'object' && node !== null) {
        for (const [key, value] of Object.entries(node)) {
          if (key === 'expr' && typeof value === 'string') expressions.push(value);
          else walk(value);
        }
      }
    };
    walk(dashboard);
    expect(expressions.length).toBeGreaterThanOrEqual(10);
    const queried = new Set(
      expressions.flatMap((e) => e.match(/\b(?:trainyard|process|nodejs)_[a-z0-9_]+/g) ?? []),
    );
    const missing = [...queried].filter((name) => {
      const family = name.replace(/_(bucket|sum|count)$/, '');
      const declared = after.types.has(name) || (family !== name && after.types.get(family) === 'histogram');
      return !declared;
    });
    expect(missing).toEqual([]);
    // And each has samples in this scrape, but for failures that never happened here.
    const failuresOnly = new Set([
      'trainyard_webhook_delivery_failures_total',
      'trainyard_pull_requests_ejected_total',
      'trainyard_pull_requests_dequeued_total',
    ]);
    const empty = [...queried].filter(
      (name) =>
        !failuresOnly.has(name) &&
        !after.samples.some((s) => s.name === name || s.name.startsWith(`${name}_`)),
    );
    expect(empty).toEqual([]);
    expect(afterText).toContain('# TYPE trainyard_queue_depth gauge');
  });
});
