import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadStats, loadTimeToMerge, type PeriodEndpoint } from '../../app/stats/endpoints.ts';
import { blockRanges } from '../../app/stats/gauge-buckets.ts';
import type { Store } from '../../app/store/database.ts';
import { appendEvents, type EventToAppend } from '../../app/store/events.ts';
import { listMigrations } from '../../app/store/migrate.ts';
import { rebuildStatsProjections, STATS_PROJECTION_TABLES } from '../../app/store/projection/projection.ts';
import { ensureRepository } from '../../app/store/repositories.ts';
import { inRepositoryTransaction } from '../../app/store/repository-transaction.ts';
import type { NewEvent } from '../../shared/schemas/event.schema.ts';
import { actionArb, configArb, randomOracle, run } from '../queue/support/random-run.ts';
import { openTestStore } from '../support/test-store.ts';
import { type RefFilters, refEndpoints, referenceStats, referenceTimeToMerge } from './support/reference.ts';

/*
 * The SQL statistics against the plain-TypeScript reference (support/reference.ts) on random
 * histories produced by running the queue engine (app/queue `step`, through the queue tests'
 * scenario driver) on random configurations, actions and CI outcomes. Events are appended in
 * several transactions; the projections must also equal a rebuild from the events alone.
 */

let store: Store;
let repoCount = 0;

beforeAll(async () => {
  store = await openTestStore();
}, 60_000);

afterAll(async () => {
  await store?.close();
});

function toAppend(e: NewEvent): EventToAppend {
  return {
    type: e.type,
    receivedAt: new Date(e.received_at ?? 0),
    trigger: e.trigger,
    pullRequest: e.pull_request,
    baseRef: e.base_ref,
    metadata: e.metadata as Record<string, unknown>,
  };
}

/** Deep equality where numbers may differ by float rounding (sums in another order). */
function expectClose(actual: unknown, expected: unknown, path = '$'): void {
  if (typeof expected === 'number' && typeof actual === 'number') {
    const tolerance = 1e-9 * Math.max(1, Math.abs(expected));
    if (Math.abs(actual - expected) > tolerance) throw new Error(`${path}: ${actual} ≠ ${expected}`);
    return;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) {
      throw new Error(
        `${path}: ${JSON.stringify(actual)?.slice(0, 400)} ≠ ${JSON.stringify(expected).slice(0, 400)}`,
      );
    }
    expected.forEach((x, i) => {
      expectClose(actual[i], x, `${path}[${i}]`);
    });
    return;
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object') throw new Error(`${path}: ${JSON.stringify(actual)}`);
    const keys = Object.keys(expected).sort();
    expect(Object.keys(actual).sort(), path).toEqual(keys);
    for (const k of keys) {
      expectClose(
        (actual as Record<string, unknown>)[k],
        (expected as Record<string, unknown>)[k],
        `${path}.${k}`,
      );
    }
    return;
  }
  if (actual !== expected)
    throw new Error(`${path}: ${JSON.stringify(actual)} ≠ ${JSON.stringify(expected)}`);
}

async function snapshot(repositoryId: string) {
  const out: Record<string, unknown[]> = {};
  for (const table of STATS_PROJECTION_TABLES) {
    const { rows } = await sql<Record<string, unknown>>`
      SELECT * FROM ${sql.table(table)} WHERE repository_id = ${repositoryId}::bigint`.execute(store.db);
    out[table] = rows.map((r) => JSON.stringify(r)).sort();
  }
  return out;
}

const DAY = 86_400_000;
const periodArb = fc.constantFrom(
  0,
  3_600_000,
  2 * DAY,
  2 * DAY + 1000,
  3 * DAY + 7_777_000,
  7 * DAY,
  7 * DAY + 1000,
  20 * DAY,
  60 * DAY,
  60 * DAY + 1000,
  75 * DAY,
);

const caseArb = fc.record({
  config: configArb,
  actions: fc.array(actionArb, { minLength: 5, maxLength: 40 }),
  ciSeed: fc.integer({ min: 1, max: 1_000_000 }),
  bad: fc.subarray([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], { maxLength: 3 }),
  faultSeed: fc.constantFrom(0, 0, 17, 4242),
  cuts: fc.array(fc.integer({ min: 0, max: 10_000 }), { maxLength: 4 }),
  windows: fc.array(
    fc.record({
      startFraction: fc.double({ min: -0.2, max: 1, noNaN: true }),
      period: periodArb,
      jitter: fc.integer({ min: 0, max: 3_599 }),
      // Whole-hour ends put the period's edges on bucket and gauge block boundaries.
      align: fc.constantFrom('none', 'none', 'start', 'end'),
    }),
    { minLength: 2, maxLength: 3 },
  ),
  filter: fc.record({
    base_ref: fc.option(fc.subarray(['main', 'release']), { nil: undefined }),
    partition_name: fc.option(fc.subarray(['__default__', 'web', 'api']), { nil: undefined }),
    queue_name: fc.option(fc.constantFrom(['default'], ['nope']), { nil: undefined }),
    priority_rule_name: fc.option(fc.subarray(['hotfix', '__default__']), { nil: undefined }),
  }),
});

describe('statistics against the reference implementation', () => {
  it('SQL = reference on engine histories, and projections = a rebuild', async () => {
    let nonEmpty = 0;
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        const scenario = run(c.config, c.actions, randomOracle(c.ciSeed, c.bad), c.faultSeed);
        const events = scenario.log.flatMap((r) => r.events).map(toAppend);
        const repo = await ensureRepository(store.db, { owner: 'prop', name: `r${++repoCount}` });
        // Append in several transactions at random step boundaries.
        const cuts = [...new Set(c.cuts.map((x) => x % (events.length + 1)))].sort((a, b) => a - b);
        let from = 0;
        for (const cut of [...cuts, events.length]) {
          const part = events.slice(from, cut);
          from = cut;
          if (part.length > 0) {
            await inRepositoryTransaction(store.db, repo.id, (tx) => appendEvents(tx, repo.id, part));
          }
        }
        if (events.length === 0) return;
        const first = events[0]?.receivedAt.getTime() ?? 0;
        const last = events.at(-1)?.receivedAt.getTime() ?? 0;

        for (const w of c.windows) {
          let startMs = Math.floor(first + w.startFraction * (last - first)) - w.jitter * 1000;
          let endMs = startMs + w.period;
          if (w.align === 'start') startMs = Math.floor(startMs / 3_600_000) * 3_600_000;
          if (w.align === 'end') endMs = Math.max(startMs, Math.ceil(endMs / 3_600_000) * 3_600_000);
          const start = new Date(startMs);
          const end = new Date(endMs);
          for (const filters of [{}, c.filter] as RefFilters[]) {
            const q = { start, end, ...filters };
            for (const endpoint of refEndpoints) {
              const actual = await loadStats(endpoint as PeriodEndpoint, store.db, {
                repositoryId: repo.id,
                start,
                end,
                filters: {
                  baseRef: filters.base_ref,
                  partitionName: filters.partition_name,
                  queueName: filters.queue_name,
                  priorityRuleName:
                    endpoint === 'running_speculative_checks' ? undefined : filters.priority_rule_name,
                },
              });
              const expected = referenceStats(endpoint, events, q);
              try {
                expectClose(actual, expected);
              } catch (error) {
                throw new Error(`${endpoint} ${JSON.stringify(q)}: ${(error as Error).message}`);
              }
              if (JSON.stringify(expected).includes('"stats"')) nonEmpty++;
            }
          }
          const at = end;
          expectClose(
            await loadTimeToMerge(store.db, { repositoryId: repo.id, at }),
            referenceTimeToMerge(events, at),
          );
          expectClose(
            await loadTimeToMerge(store.db, { repositoryId: repo.id, at, branch: 'main' }),
            referenceTimeToMerge(events, at, 'main'),
          );
        }

        const before = await snapshot(repo.id);
        await rebuildStatsProjections(store.db, repo.id);
        expect(await snapshot(repo.id)).toEqual(before);
      }),
      { numRuns: 15, seed: 20261101, endOnFailure: true },
    );
    // The histories are not all trivially empty.
    expect(nonEmpty).toBeGreaterThan(30);
  }, 240_000);
});

/*
 * The gauge statistics (queue_size, running_speculative_checks) read from gauge blocks and
 * readings, against the reference, on dense random gauge histories: readings on and off hour,
 * day and 2-day boundaries, several at one instant, appended out of time order in several
 * transactions (so blocks are both extended and recomputed). The blocks must equal a rebuild
 * and what migration 0004 computes from the readings.
 */

const HOUR = 3_600_000;
// A 2-day block boundary (epoch-aligned).
const BASE = Date.parse('2026-10-02T00:00:00Z');

const series = [
  { base: 'main', queue: 'default', partition: null, priority: null },
  { base: 'main', queue: 'default', partition: 'web', priority: 'urgent' },
  { base: 'release', queue: 'hotfix', partition: null, priority: null },
] as const;

interface Reading {
  slot: number;
  offset: number;
  series: number;
  running: boolean;
  value: number;
}

const readingArb: fc.Arbitrary<Reading> = fc.record({
  // 15-minute slots: mostly within two days, then a week, some up to 100 days out.
  slot: fc.oneof(
    { arbitrary: fc.integer({ min: 0, max: 2 * 96 }), weight: 3 },
    { arbitrary: fc.integer({ min: 0, max: 7 * 96 }), weight: 2 },
    { arbitrary: fc.integer({ min: 0, max: 100 * 96 }), weight: 1 },
  ),
  offset: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 15 * 60_000 - 1 })),
  series: fc.integer({ min: 0, max: 2 }),
  running: fc.boolean(),
  value: fc.integer({ min: 0, max: 6 }),
});

function toEvent(r: Reading): EventToAppend {
  const s = series[r.series] as (typeof series)[number];
  return {
    type: r.running ? 'action.queue.checks.change' : 'action.queue.change',
    receivedAt: new Date(BASE + r.slot * 15 * 60_000 + r.offset),
    trigger: 'merge queue internal',
    pullRequest: null,
    baseRef: s.base,
    metadata: r.running
      ? { queue_name: s.queue, partition_name: s.partition, running_checks: r.value }
      : {
          queue_name: s.queue,
          partition_name: s.partition,
          priority_rule_name: s.priority,
          size: r.value,
        },
  };
}

const windowArb = fc.record({
  start: fc.integer({ min: -2 * DAY, max: 9 * DAY }),
  align: fc.constantFrom(1, 1, HOUR, 4 * HOUR, DAY, 2 * DAY),
  period: fc.oneof(
    fc.constantFrom(0, HOUR, 2 * DAY, 2 * DAY + 1000, 7 * DAY, 7 * DAY + 1000, 60 * DAY, 90 * DAY),
    fc.integer({ min: 0, max: 95 * DAY }),
  ),
  endAlign: fc.constantFrom(1, 1, HOUR, DAY),
});

async function blocksOf(repositoryId?: string) {
  const { rows } = await sql<Record<string, unknown>>`
    SELECT * FROM stats_gauge_blocks
    ${repositoryId === undefined ? sql`` : sql`WHERE repository_id = ${repositoryId}::bigint`}`.execute(
    store.db,
  );
  return rows.map((r) => JSON.stringify(r)).sort();
}

describe('gauge blocks', () => {
  it('tile whole hours with the widest aligned blocks that fit in a bucket', () => {
    const t0 = BASE + 3 * HOUR; // 03:00 on a 2-day boundary's day
    expect(blockRanges(t0, t0 + 2 * DAY + 2 * HOUR, 2 * 86_400)).toEqual([
      { width: HOUR, from: t0, to: t0 + 21 * HOUR },
      { width: DAY, from: t0 + 21 * HOUR, to: t0 + 45 * HOUR },
      { width: HOUR, from: t0 + 45 * HOUR, to: t0 + 50 * HOUR },
    ]);
    // Never wider than the bucket.
    expect(blockRanges(t0, t0 + 2 * DAY, 4 * 3_600)).toEqual([{ width: HOUR, from: t0, to: t0 + 2 * DAY }]);
    expect(blockRanges(BASE, BASE, 3_600)).toEqual([]);
  });

  it('queue_size and running checks = reference; blocks = rebuild = migration 0004', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(readingArb, { minLength: 1, maxLength: 120, size: 'large' }),
        fc.array(fc.integer({ min: 0, max: 1_000_000 }), { maxLength: 120 }),
        fc.array(fc.integer({ min: 1, max: 119 }), { maxLength: 4 }),
        fc.array(windowArb, { minLength: 3, maxLength: 5 }),
        async (readings, shuffle, cuts, windows) => {
          // Append order: shuffled (a random sort key per reading), so time order is broken.
          const events = readings
            .map((r, i) => ({ e: toEvent(r), k: shuffle[i] ?? i }))
            .sort((a, b) => a.k - b.k)
            .map((x) => x.e);
          const repo = await ensureRepository(store.db, { owner: 'gauges', name: `r${++repoCount}` });
          let from = 0;
          for (const cut of [...new Set(cuts)].sort((a, b) => a - b).concat(events.length)) {
            const part = events.slice(from, Math.max(from, cut));
            from = Math.max(from, cut);
            if (part.length > 0) {
              await inRepositoryTransaction(store.db, repo.id, (tx) => appendEvents(tx, repo.id, part));
            }
          }
          for (const w of windows) {
            const startMs = Math.floor((BASE + w.start) / w.align) * w.align;
            const endMs = Math.max(startMs, Math.floor((startMs + w.period) / w.endAlign) * w.endAlign);
            const start = new Date(startMs);
            const end = new Date(endMs);
            for (const queue of [undefined, ['default']]) {
              for (const endpoint of ['queue_size', 'running_speculative_checks'] as const) {
                const actual = await loadStats(endpoint, store.db, {
                  repositoryId: repo.id,
                  start,
                  end,
                  filters: { queueName: queue },
                });
                const expected = referenceStats(endpoint, events, { start, end, queue_name: queue });
                try {
                  expectClose(actual, expected);
                } catch (error) {
                  throw new Error(
                    `${endpoint} ${start.toISOString()}–${end.toISOString()}: ${(error as Error).message}`,
                  );
                }
              }
            }
          }
          const before = await blocksOf(repo.id);
          await rebuildStatsProjections(store.db, repo.id);
          expect(await blocksOf(repo.id)).toEqual(before);
        },
      ),
      { numRuns: 30, seed: 20261102, endOnFailure: true },
    );

    // Migration 0004 recomputes every repository's blocks from the readings alone.
    const fill = listMigrations().find((m) => m.name.startsWith('0004_'));
    expect(fill).toBeDefined();
    const all = await blocksOf();
    expect(all.length).toBeGreaterThan(100);
    await sql`DELETE FROM stats_gauge_blocks`.execute(store.db);
    await sql.raw(fill?.sql ?? '').execute(store.db);
    expect(await blocksOf()).toEqual(all);
  }, 240_000);
});
