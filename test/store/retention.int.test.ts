import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  loadStats,
  loadTimeToMerge,
  type PeriodEndpoint,
  periodStatsLoaders,
} from '../../app/stats/endpoints.ts';
import type { EventToAppend } from '../../app/store/events.ts';
import { appendEvents } from '../../app/store/events.ts';
import { rebuildStatsProjections, STATS_PROJECTION_TABLES } from '../../app/store/projection/projection.ts';
import { inRepositoryTransaction } from '../../app/store/repository-transaction.ts';
import { pruneRetention, retentionCutoff } from '../../app/store/retention.ts';
import { History, sessionUuid, type Who } from '../stats/support/history.ts';
import { ApiHarness } from '../support/api-harness.ts';
import { parseLinkHeader } from '../support/link-header.ts';
import { lcg } from '../support/seed-events.ts';

/*
 * Retention (app/store/retention.ts): events and statistics rows older than the cut-off go, in
 * every repository, and what lies inside the retention answers as before — statistics, the
 * log's cursors, a rebuild of the projections. pruneRetention prunes every repository of the
 * store: each test seeds its repository and prunes in its own body (they run in order).
 */

const NOW = new Date('2026-11-02T12:30:00Z');
const DAY = 86_400_000;
const MINUTE = 60_000;
const CUT = retentionCutoff(NOW, 90);

let api: ApiHarness;
beforeAll(async () => {
  api = await ApiHarness.start({ now: () => NOW });
}, 60_000);
afterAll(async () => {
  await api?.stop();
});

/** The time column of each table: a row older than the cut-off has it before the cut-off. */
const TIME_COLUMN: Record<string, string> = {
  events: 'received_at',
  stats_enters: 'at',
  stats_merges: 'at',
  stats_checks: 'at',
  stats_batches: 'at',
  stats_bisections: 'at',
  stats_gauges: 'at',
  stats_sessions: 'left_at',
  stats_gauge_blocks: 'block_start',
  stats_enter_days: 'day',
  stats_merge_days: 'day',
  stats_check_days: 'day',
  stats_batch_days: 'day',
  stats_session_days: 'day',
};
const TABLES = ['events', ...STATS_PROJECTION_TABLES];

const rel: Who = { branch: 'release', queue: 'hotfix', priority: null, partition: null };

/**
 * 120 days of queue activity up to NOW in three groups, with random gauge values; a straddling
 * session (queued before the cut-off, left after); and two series that stop before the cut-off,
 * one at 3 (carried into every later period) and one at 0.
 */
function busyHistory(seed: number): EventToAppend[] {
  const random = lcg(seed);
  const h = new History();
  const groups: Who[] = [{}, { queue: 'other' }, rel];
  const start = NOW.getTime() - 120 * DAY;
  for (let day = 0; day < 120; day++) {
    for (let k = 0; k < 4; k++) {
      const who = groups[Math.floor(random() * groups.length)] as Who;
      const t0 = start + day * DAY + Math.floor(random() * (DAY - 2 * 3_600_000));
      const at = (m: number) => new Date(t0 + m * MINUTE);
      const session = sessionUuid();
      const pr = 1 + Math.floor(random() * 50);
      const size = () => Math.floor(random() * 5);
      h.enter(at(0), { ...who, pr, session });
      h.queueSize(at(0), 1 + size(), who);
      h.checksStart(at(5), { ...who, pr, session });
      h.running(at(5), 1 + size(), who);
      if (random() < 0.3) {
        h.checksEnd(at(15), {
          ...who,
          pr,
          session,
          startedAt: at(5),
          outcome: { abort: 'CHECKS_RETRIED' },
          retry: 1,
        });
        h.checksStart(at(16), { ...who, pr, session });
      }
      const ok = random() < 0.7;
      h.checksEnd(at(40), { ...who, pr, session, startedAt: at(5), outcome: ok ? 'success' : 'failure' });
      h.running(at(40), size(), who);
      if (random() < 0.3) {
        h.bisectionStart(at(41), { ...who, depth: 1, size: 2, session });
        h.bisectionEnd(at(50), { ...who, culprit: true, maxReached: false, session });
      }
      if (ok) h.merged(at(55), { ...who, pr, session });
      h.leave(at(55), {
        ...who,
        pr,
        session,
        queuedAt: at(0),
        code: ok ? 'PR_MERGED' : 'CHECKS_FAILED',
        freeze: 10,
        schedule: 5,
      });
      h.queueSize(at(55), size(), who);
      if (random() < 0.3) h.other(at(30));
    }
  }
  for (let day = 0; day <= 20; day++) {
    const at = new Date(start + day * DAY + 3_600_000);
    h.queueSize(at, day === 20 ? 3 : day % 4, { queue: 'stale' });
    h.running(at, day === 20 ? 2 : 1, { queue: 'stale' });
    h.queueSize(at, day === 20 ? 0 : 5, { queue: 'idle' });
  }
  const s = sessionUuid();
  const cut = CUT.getTime();
  h.enter(new Date(cut - 120 * MINUTE), { pr: 77, session: s });
  h.checksStart(new Date(cut - 60 * MINUTE), { pr: 77, session: s });
  h.checksEnd(new Date(cut + 30 * MINUTE), { pr: 77, session: s, startedAt: new Date(cut - 60 * MINUTE) });
  h.merged(new Date(cut + 60 * MINUTE), { pr: 77, session: s });
  h.leave(new Date(cut + 60 * MINUTE), {
    pr: 77,
    session: s,
    queuedAt: new Date(cut - 120 * MINUTE),
    code: 'PR_MERGED',
  });
  // In time order, as the engine appends them (the sort is stable).
  return [...h.events].sort((a, b) => a.receivedAt.getTime() - b.receivedAt.getTime());
}

/** Appended in several transactions, as the projections are merged across appends in production. */
async function seed(name: string, events: readonly EventToAppend[]): Promise<string> {
  const repo = await api.repository(`acme/${name}`);
  for (let i = 0; i < events.length; i += 400) {
    const part = events.slice(i, i + 400);
    await inRepositoryTransaction(api.store.db, repo.id, (tx) => appendEvents(tx, repo.id, part));
  }
  return repo.id;
}

const WINDOWS = {
  'the last 30 days': { start: new Date(NOW.getTime() - 30 * DAY), end: NOW },
  'the last 89 days': { start: new Date(NOW.getTime() - 89 * DAY), end: NOW },
  '2 days from just after the cut-off': {
    start: new Date(CUT.getTime() + MINUTE),
    end: new Date(CUT.getTime() + 2 * DAY),
  },
  '10 days from just after the cut-off': {
    start: new Date(CUT.getTime() + MINUTE),
    end: new Date(CUT.getTime() + 10 * DAY),
  },
};

/** Every statistic over every window (and one filtered), and time to merge at NOW. */
async function allStats(repositoryId: string, endpoints = Object.keys(periodStatsLoaders)) {
  const out: Record<string, unknown> = {};
  for (const [name, window] of Object.entries(WINDOWS)) {
    for (const endpoint of endpoints) {
      for (const filters of [{}, { queueName: ['other'] }]) {
        out[`${endpoint} over ${name} ${JSON.stringify(filters)}`] = await loadStats(
          endpoint as PeriodEndpoint,
          api.store.db,
          { repositoryId, ...window, until: NOW, filters },
        );
      }
    }
  }
  out['time_to_merge'] = await loadTimeToMerge(api.store.db, { repositoryId, at: NOW });
  return out;
}

/** Per table, the repository's rows older than the cut-off and the others (as sorted JSON). */
async function rowsBySide(repositoryId: string) {
  const old: Record<string, number> = {};
  const kept: Record<string, string[]> = {};
  for (const table of TABLES) {
    const time = TIME_COLUMN[table];
    const isOld = time ? sql`${sql.ref(time)} < ${CUT.toISOString()}::timestamptz` : sql`false`;
    const { rows } = await sql<{ old: boolean; row: string }>`
      SELECT ${isOld} AS old, to_jsonb(t)::text AS row FROM ${sql.table(table)} t
      WHERE repository_id = ${repositoryId}::bigint`.execute(api.store.db);
    old[table] = rows.filter((r) => r.old).length;
    kept[table] = rows
      .filter((r) => !r.old)
      .map((r) => r.row)
      .sort();
  }
  return { old, kept };
}

/** The gauge readings left before the cut-off: series, value. */
async function readingsBeforeCut(repositoryId: string) {
  const { rows } = await sql<{ kind: string; queue_name: string; value: number; type: string | null }>`
    SELECT g.kind, g.queue_name, g.value, e.type FROM stats_gauges g LEFT JOIN events e ON e.id = g.event_id
    WHERE g.repository_id = ${repositoryId}::bigint AND g.at < ${CUT.toISOString()}::timestamptz
    ORDER BY 1, 2, 3`.execute(api.store.db);
  return rows;
}

describe('retention', () => {
  it('cuts at the start of the UTC day 90 days back', () => {
    expect(CUT.toISOString()).toBe('2026-08-04T00:00:00.000Z');
  });

  it('deletes what is older than 90 days; statistics inside the retention answer the same', async () => {
    const id = await seed('busy', busyHistory(7));
    const before = await allStats(id);
    const rowsBefore = await rowsBySide(id);
    // Something of every table lies before the cut-off.
    for (const table of TABLES.filter((t) => TIME_COLUMN[t])) {
      expect(rowsBefore.old[table], table).toBeGreaterThan(0);
    }
    // The series that stopped at 3 is carried into the periods after the cut-off.
    const queueSize = before['queue_size over 2 days from just after the cut-off {}'] as {
      groups: { queue_name: string; stats: { avg_size: number }[] }[];
    };
    expect(queueSize.groups.find((g) => g.queue_name === 'stale')?.stats[0]?.avg_size).toBe(3);

    const run = await pruneRetention(api.store.db, { now: NOW, retentionDays: 90, batchRows: 500 });
    expect(run.complete).toBe(true);
    expect(run.cutoff).toEqual(CUT);

    expect(await allStats(id)).toEqual(before);
    const rowsAfter = await rowsBySide(id);
    expect(rowsAfter.kept).toEqual(rowsBefore.kept);
    // Per series, the reading in force at the cut-off stays when it is not 0, with its event.
    const inForce = await readingsBeforeCut(id);
    expect(inForce.filter((r) => r.queue_name === 'stale')).toEqual([
      { kind: 'q', queue_name: 'stale', value: 3, type: 'action.queue.change' },
      { kind: 'r', queue_name: 'stale', value: 2, type: 'action.queue.checks.change' },
    ]);
    expect(inForce.filter((r) => r.queue_name === 'idle')).toEqual([]);
    expect(inForce.every((r) => r.value > 0 && r.type !== null)).toBe(true);
    expect(rowsAfter.old).toEqual({
      ...Object.fromEntries(TABLES.map((t) => [t, 0])),
      events: inForce.length,
      stats_gauges: inForce.length,
    });
    for (const table of Object.keys(run.deleted)) {
      expect(run.deleted[table], table).toBe(rowsBefore.old[table]! - rowsAfter.old[table]!);
    }

    // A second run finds nothing to delete.
    expect(await pruneRetention(api.store.db, { now: NOW, retentionDays: 90 })).toEqual({
      cutoff: CUT,
      deleted: {},
      complete: true,
    });
  }, 120_000);

  it('a rebuild after pruning replays the events kept and gives the same statistics', async () => {
    // The repository pruned by the test above.
    const repo = await api.repository('acme/busy');
    const before = await allStats(repo.id);
    const kept = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM events
      WHERE repository_id = ${repo.id}::bigint AND type LIKE 'action.queue.%'`.execute(api.store.db);
    expect(await rebuildStatsProjections(api.store.db, repo.id)).toBe(kept.rows[0]?.n);
    const after = await allStats(repo.id);
    // A session that straddles the cut-off lost the events before it (its first checks):
    // the session figures of the first days after the cut-off may differ; nothing else does.
    const near = (key: string) =>
      key.startsWith('average_queue_time over') && key.includes('after the cut-off');
    for (const key of Object.keys(before).filter(near)) {
      delete before[key];
      delete after[key];
    }
    expect(after).toEqual(before);
    // The gauges carried in survive the rebuild: their events were kept.
    expect((await readingsBeforeCut(repo.id)).filter((r) => r.queue_name === 'stale')).toHaveLength(2);
  }, 120_000);

  it('goes in bounded batches: a run stops at its bound and the next goes on', async () => {
    const id = await seed('batches', busyHistory(11));
    const before = await allStats(id, ['queue_size', 'queues_entered_count', 'total_queue_time']);
    const rowsBefore = await rowsBySide(id);
    const oldRows = Object.values(rowsBefore.old).reduce((a, b) => a + b, 0);
    let runs = 0;
    for (;;) {
      const run = await pruneRetention(api.store.db, { now: NOW, batchRows: 250, maxBatches: 4 });
      runs += 1;
      const total = Object.values(run.deleted).reduce((a, b) => a + b, 0);
      expect(total).toBeLessThanOrEqual(1_000);
      if (run.complete) break;
      expect(total).toBeGreaterThan(0);
    }
    expect(runs).toBeGreaterThan(oldRows / 1_000);
    expect(await allStats(id, ['queue_size', 'queues_entered_count', 'total_queue_time'])).toEqual(before);
    expect((await rowsBySide(id)).kept).toEqual(rowsBefore.kept);
  }, 120_000);

  it('drops a series’ 0 in force only once the readings before it are gone, whatever the runs’ bound', async () => {
    const h = new History();
    const old = (days: number) => new Date(CUT.getTime() - days * DAY);
    for (const [days, value] of [
      [9, 4],
      [8, 7],
      [7, 7],
      [6, 0],
    ] as const) {
      h.queueSize(old(days), value, { queue: 'ending' });
    }
    h.queueSize(new Date(CUT.getTime() + 5 * DAY), 2, { queue: 'later' });
    const id = await seed('ending', h.events);
    const window = { start: new Date(CUT.getTime() + MINUTE), end: new Date(CUT.getTime() + DAY) };
    const queueSize = () =>
      loadStats('queue_size', api.store.db, { repositoryId: id, ...window, until: NOW, filters: {} });
    expect(await queueSize()).toEqual({ groups: [] });
    for (;;) {
      const run = await pruneRetention(api.store.db, { now: NOW, batchRows: 1, maxBatches: 1 });
      // After every run, nothing is carried in: never an older reading taken for the value in force.
      expect(await queueSize()).toEqual({ groups: [] });
      if (run.complete) break;
    }
    expect(await readingsBeforeCut(id)).toEqual([]);
  }, 120_000);

  it('keeps the log’s cursors working: pages after pruning go on from where they were', async () => {
    const h = new History();
    const start = NOW.getTime() - 120 * DAY;
    for (let i = 0; i < 280; i++) h.other(new Date(start + i * 10 * 3_600_000));
    for (let day = 0; day < 120; day += 5) h.queueSize(new Date(start + day * DAY), 1 + (day % 3));
    const events = [...h.events].sort((a, b) => a.receivedAt.getTime() - b.receivedAt.getTime());
    await seed('logs', events);
    const token = await api.key({ owner: 'acme', role: 'read' });
    const page = async (url: string) => {
      const res = await api.request<{ events: { id: number; received_at: string }[] }>(url, { token });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return {
        ids: res.body.events.map((e) => e.id),
        events: res.body.events,
        links: parseLinkHeader(res.headers.get('link')),
      };
    };
    const first = await page('/v1/repos/acme/logs/logs?per_page=40');
    // Walk to a page of events all older than the cut-off, with older ones after it.
    let current = first;
    while (Date.parse(current.events[0]!.received_at) >= CUT.getTime()) {
      current = await page(current.links['next']!);
    }
    expect(current.links['next']).toBeDefined();
    const { next, prev, last } = current.links as Record<string, string>;

    const run = await pruneRetention(api.store.db, { now: NOW });
    expect(run.deleted['events']).toBeGreaterThan(0);
    const remaining = (
      await sql<{ id: string }>`
        SELECT e.id FROM events e JOIN repositories r ON r.id = e.repository_id
        WHERE r.name = 'logs' ORDER BY e.id DESC`.execute(api.store.db)
    ).rows.map((r) => Number(r.id));
    const walk = async (url: string | undefined) => {
      const ids: number[] = [];
      for (let u = url; u; ) {
        const p = await page(u);
        ids.push(...p.ids);
        u = p.links['next'];
      }
      return ids;
    };

    // The first page is the same; from it, the pages hold every event left, newest first.
    expect((await page('/v1/repos/acme/logs/logs?per_page=40')).ids).toEqual(first.ids);
    expect(await walk('/v1/repos/acme/logs/logs?per_page=40')).toEqual(remaining);
    // A cursor handed out before pruning, to events now deleted, still pages on.
    const older = current.ids.at(-1)!;
    expect(await walk(next)).toEqual(remaining.filter((i) => i < older));
    const newer = await page(prev!);
    expect(newer.ids).toEqual(remaining.filter((i) => i > current.ids[0]!).slice(-40));
    const oldest = await page(last!);
    expect(oldest.ids).toEqual(remaining.slice(-40));
    // The oldest event left is the queue size in force at the cut-off.
    expect(remaining.length).toBeGreaterThan(0);
  }, 120_000);
});
