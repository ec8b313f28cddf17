import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadStats, loadTimeToMerge, type PeriodEndpoint } from '../../app/stats/endpoints.ts';
import type { Store } from '../../app/store/database.ts';
import { appendEvents } from '../../app/store/events.ts';
import { listMigrations } from '../../app/store/migrate.ts';
import { DAY_CELL_TABLES } from '../../app/store/projection/day-cells.ts';
import { rebuildStatsProjections, STATS_PROJECTION_TABLES } from '../../app/store/projection/projection.ts';
import { ensureRepository } from '../../app/store/repositories.ts';
import { inRepositoryTransaction } from '../../app/store/repository-transaction.ts';
import { ABORT_CODES } from '../../shared/schemas/stats-response.schema.ts';
import { openTestStore } from '../support/test-store.ts';
import { History } from './support/history.ts';
import { type RefFilters, refEndpoints, referenceStats, referenceTimeToMerge } from './support/reference.ts';

/*
 * The statistics that read day cells (app/stats/day-cells.ts) for the whole days of periods
 * over 7 days, against the reference, on random sessions spread over two weeks: sessions
 * crossing midnight, in batches or not, with retries, leaving without a session id; appended
 * in several transactions, one half of the sessions after the other (so appends go back in
 * time). Windows start and end on and off day boundaries. The cells must equal a rebuild and
 * what migration 0008 computes from the rows.
 *
 * Some histories also change sessions after they left (a late checks_end, a second leave on
 * another day), in the same append or a later one: their cells are recomputed from the
 * session rows. The reference counts each leave as a session of its own where the session
 * rows keep one per session id, so those histories are checked against the rows only
 * (rebuild, migration 0008), not against the reference.
 */

let store: Store;
let repoCount = 0;

beforeAll(async () => {
  store = await openTestStore();
}, 60_000);

afterAll(async () => {
  await store?.close();
});

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
// Midnight UTC, 2-day bucket boundary.
const BASE = Date.parse('2026-10-02T00:00:00Z');

const who = [
  { branch: 'main', queue: 'default', partition: null, priority: null },
  { branch: 'main', queue: 'default', partition: 'web', priority: 'urgent' },
  { branch: 'release', queue: 'hotfix', partition: 'api', priority: null },
] as const;

const codeArb = fc.constantFrom(
  'PR_MERGED',
  'PR_MERGED',
  'CHECKS_FAILED',
  'CHECKS_TIMEOUT',
  'NOT_A_CODE',
  ...ABORT_CODES,
);

const sessionArb = fc.record({
  // 15-minute slots over 12 days, on or off the slot.
  slot: fc.integer({ min: 0, max: 12 * 96 }),
  offset: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 15 * 60_000 - 1 })),
  who: fc.integer({ min: 0, max: 2 }),
  // Queued → checks start → checks end → leave, in minutes (up to a day and a half in queue).
  wait: fc.option(fc.integer({ min: 0, max: 600 }), { nil: null }),
  ci: fc.integer({ min: 1, max: 1_500 }),
  retries: fc.integer({ min: 0, max: 2 }),
  outcome: fc.constantFrom('success', 'failure', 'timeout') as fc.Arbitrary<
    'success' | 'failure' | 'timeout'
  >,
  code: codeArb,
  freeze: fc.constantFrom(0, 0, 30, 125),
  schedule: fc.constantFrom(0, 0, 60),
  batch: fc.constantFrom('own', 'own', 'none', 'shared'),
  anonymous: fc.boolean(),
  // After the leave: nothing, a late checks_end, or a second leave (maybe days later).
  after: fc.constantFrom('none', 'none', 'none', 'checks', 'leave'),
  afterMinutes: fc.integer({ min: 1, max: 4 * 24 * 60 }),
  afterCode: codeArb,
  afterWho: fc.integer({ min: 0, max: 2 }),
});

type SessionCase = typeof sessionArb extends fc.Arbitrary<infer T> ? T : never;

let sessionCounter = 0;

/** The events of one session, in time order (each with its time, to sort). */
function sessionEvents(c: SessionCase, pr: number): History {
  const h = new History();
  const w = who[c.who] as (typeof who)[number];
  const w2 = who[c.afterWho] as (typeof who)[number];
  const session = `00000000-0000-4000-9000-${(++sessionCounter).toString(16).padStart(12, '0')}`;
  const t0 = BASE + c.slot * 15 * 60_000 + c.offset;
  const min = (m: number) => new Date(t0 + m * 60_000);
  h.enter(min(0), { ...w, pr, session });
  let t = 0;
  if (c.wait !== null) {
    t = c.wait;
    const batch = c.batch === 'none' ? null : c.batch === 'shared' ? `shared-${c.slot % 7}` : undefined;
    h.checksStart(min(t), { ...w, pr, session, batch, prs: c.batch === 'shared' ? [pr, pr + 1] : [pr] });
    for (let i = 1; i <= c.retries; i++) {
      h.checksEnd(min(t + i), {
        ...w,
        pr,
        session,
        startedAt: min(t),
        outcome: { abort: 'CHECKS_RETRIED' },
        retry: i,
      });
    }
    t += c.ci;
    h.checksEnd(min(t), {
      ...w,
      pr,
      session,
      startedAt: min(c.wait),
      outcome: c.outcome,
      retry: c.retries || null,
    });
  }
  t += 1;
  const leave = { pr, queuedAt: min(0), freeze: c.freeze, schedule: c.schedule };
  if (c.code === 'PR_MERGED')
    h.merged(min(t), { ...w, pr, session, partitions: [w.partition ?? '__default__'] });
  h.leave(min(t), { ...w, ...leave, session: c.anonymous ? null : session, code: c.code });
  if (!c.anonymous && c.after === 'checks') {
    h.checksEnd(min(t + c.afterMinutes), {
      ...w,
      pr,
      session,
      startedAt: min(t),
      outcome: 'failure',
      retry: 3,
    });
  }
  if (!c.anonymous && c.after === 'leave') {
    h.leave(min(t + c.afterMinutes), { ...w2, ...leave, session, code: c.afterCode });
  }
  return h;
}

const windowArb = fc.record({
  startDay: fc.integer({ min: -2, max: 9 }),
  startAlign: fc.constantFrom('day', 'hour', 'none'),
  startOffset: fc.integer({ min: 0, max: DAY - 1 }),
  period: fc.oneof(
    fc.constantFrom(
      7 * DAY,
      7 * DAY + 1000,
      8 * DAY,
      14 * DAY,
      30 * DAY,
      60 * DAY,
      60 * DAY + 1000,
      90 * DAY,
    ),
    fc.integer({ min: 7 * DAY + 1, max: 20 * DAY }),
    fc.integer({ min: 0, max: 3 * DAY }),
  ),
  endAlign: fc.constantFrom('day', 'none', 'none'),
});

const filterArb = fc.record({
  base_ref: fc.option(fc.subarray(['main', 'release']), { nil: undefined }),
  partition_name: fc.option(fc.subarray(['__default__', 'web', 'api']), { nil: undefined }),
  queue_name: fc.option(fc.constantFrom(['default'], ['hotfix']), { nil: undefined }),
  priority_rule_name: fc.option(fc.subarray(['urgent', '__default__']), { nil: undefined }),
});

/** Deep equality where numbers may differ by float rounding (sums in another order). */
function expectClose(actual: unknown, expected: unknown, path = '$'): void {
  if (typeof expected === 'number' && typeof actual === 'number') {
    if (Math.abs(actual - expected) > 1e-9 * Math.max(1, Math.abs(expected))) {
      throw new Error(`${path}: ${actual} ≠ ${expected}`);
    }
    return;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) {
      throw new Error(
        `${path}: ${JSON.stringify(actual)?.slice(0, 300)} ≠ ${JSON.stringify(expected).slice(0, 300)}`,
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

async function rowsOf(tables: readonly string[], repositoryId?: string) {
  const out: Record<string, string[]> = {};
  for (const table of tables) {
    const { rows } = await sql<Record<string, unknown>>`
      SELECT * FROM ${sql.table(table)}
      ${repositoryId === undefined ? sql`` : sql`WHERE repository_id = ${repositoryId}::bigint`}`.execute(
      store.db,
    );
    out[table] = rows.map((r) => JSON.stringify(r)).sort();
  }
  return out;
}

describe('day cells', () => {
  it('statistics over days = reference; cells = rebuild = migration 0008', async () => {
    let cellsRead = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(sessionArb, { minLength: 1, maxLength: 40 }),
        fc.boolean(),
        fc.array(fc.integer({ min: 1, max: 400 }), { maxLength: 4 }),
        fc.array(windowArb, { minLength: 3, maxLength: 5 }),
        filterArb,
        async (sessions, late, cuts, windows, filter) => {
          // One half of the sessions, then the other: each half in time order.
          const halves = [0, 1].map((half) =>
            sessions
              .flatMap((c, i) =>
                i % 2 === half ? sessionEvents(late ? c : { ...c, after: 'none' }, 2 * i + 1).events : [],
              )
              .sort((a, b) => a.receivedAt.getTime() - b.receivedAt.getTime()),
          );
          const events = [...(halves[0] ?? []), ...(halves[1] ?? [])];
          const repo = await ensureRepository(store.db, { owner: 'cells', name: `r${++repoCount}` });
          let from = 0;
          for (const cut of [...new Set(cuts)].sort((a, b) => a - b).concat(events.length)) {
            const part = events.slice(from, Math.max(from, cut));
            from = Math.max(from, cut);
            if (part.length > 0) {
              await inRepositoryTransaction(store.db, repo.id, (tx) => appendEvents(tx, repo.id, part));
            }
          }

          for (const w of late ? [] : windows) {
            let startMs = BASE + w.startDay * DAY;
            if (w.startAlign === 'hour') startMs += Math.floor(w.startOffset / HOUR) * HOUR;
            if (w.startAlign === 'none') startMs += w.startOffset;
            let endMs = startMs + w.period;
            if (w.endAlign === 'day') endMs = Math.max(startMs, Math.floor(endMs / DAY) * DAY);
            const start = new Date(startMs);
            const end = new Date(endMs);
            if (endMs - startMs > 7 * DAY && Math.ceil(startMs / DAY) < Math.floor(endMs / DAY)) cellsRead++;
            for (const filters of [{}, filter] as RefFilters[]) {
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
                try {
                  expectClose(actual, referenceStats(endpoint, events, q));
                } catch (error) {
                  throw new Error(`${endpoint} ${JSON.stringify(q)}: ${(error as Error).message}`);
                }
              }
            }
            expectClose(
              await loadTimeToMerge(store.db, { repositoryId: repo.id, at: end }),
              referenceTimeToMerge(events, end),
            );
          }

          const before = await rowsOf(STATS_PROJECTION_TABLES, repo.id);
          await rebuildStatsProjections(store.db, repo.id);
          expect(await rowsOf(STATS_PROJECTION_TABLES, repo.id)).toEqual(before);
        },
      ),
      { numRuns: 40, seed: 20261125, endOnFailure: true },
    );
    // Many windows read cells for some of their days.
    expect(cellsRead).toBeGreaterThan(30);

    // Migration 0008 computes every repository's cells from the rows alone.
    const migration = listMigrations().find((m) => m.name.startsWith('0008_'));
    expect(migration).toBeDefined();
    const fill = migration?.sql.slice(migration.sql.indexOf('INSERT INTO')) ?? '';
    const all = await rowsOf(DAY_CELL_TABLES);
    expect(all['stats_session_days']?.length).toBeGreaterThan(100);
    for (const table of DAY_CELL_TABLES) await sql`DELETE FROM ${sql.table(table)}`.execute(store.db);
    await sql.raw(fill).execute(store.db);
    expect(await rowsOf(DAY_CELL_TABLES)).toEqual(all);
  }, 300_000);
});
