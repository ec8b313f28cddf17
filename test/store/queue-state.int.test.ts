import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QueueState } from '../../app/queue/state.ts';
import type { Store } from '../../app/store/database.ts';
import { listMigrations } from '../../app/store/migrate.ts';
import { loadQueueState, loadQueueStateVersion, saveQueueState } from '../../app/store/queue-state.ts';
import { diffStates } from '../../app/store/queue-state-entries.ts';
import { ensureRepository } from '../../app/store/repositories.ts';
import { runStep } from '../../app/store/step-transaction.ts';
import { createCountingIds } from '../queue/support/scenario.ts';
import { buildLargeState } from '../support/large-state.ts';
import { openedAndQueued } from '../support/queue-inputs.ts';
import { openTestStore } from '../support/test-store.ts';

/*
 * The engine state is stored as a core row plus a row per pull request, session, check run
 * (migration 0010) and lane (0011): a save writes what changed, and a load puts the same state back.
 */

let store: Store;
let repoCount = 0;
const now = new Date('2026-11-02T09:00:00.000Z');
const large = buildLargeState(60);

beforeAll(async () => {
  store = await openTestStore();
});

afterAll(async () => {
  await store?.close();
});

async function freshRepo(): Promise<string> {
  repoCount += 1;
  return (await ensureRepository(store.db, { owner: 'acme', name: `state-${repoCount}` })).id;
}

const asJson = (value: unknown) => JSON.parse(JSON.stringify(value));

/** Each stored entry's row version (xmin changes when a row is written). */
async function entryVersions(repositoryId: string): Promise<Map<string, string>> {
  const { rows } = await sql<{ collection: string; key: string; xmin: string }>`
    SELECT collection, key, xmin::text AS xmin FROM queue_state_entries
    WHERE repository_id = ${repositoryId}::bigint`.execute(store.db);
  return new Map(rows.map((r) => [`${r.collection}/${r.key}`, r.xmin]));
}

describe('queue state storage', () => {
  it('stores a row per pull request, session, check run and lane, and loads the same state back', async () => {
    const repo = await freshRepo();
    await saveQueueState(store.db, repo, large, now);
    const versions = await entryVersions(repo);
    expect([...versions.keys()].filter((k) => k.startsWith('pullRequests/'))).toHaveLength(60);
    expect([...versions.keys()].filter((k) => k.startsWith('sessions/'))).toHaveLength(60);
    const { rows } = await sql<{ state: Record<string, unknown> }>`
      SELECT state FROM queue_state WHERE repository_id = ${repo}::bigint`.execute(store.db);
    expect(Object.keys(rows[0]!.state)).not.toContain('sessions');
    expect(Object.keys(rows[0]!.state)).not.toContain('lanes');
    expect([...versions.keys()].filter((k) => k.startsWith('lanes/'))).toHaveLength(large.lanes.length);
    expect(await loadQueueState(store.db, repo)).toEqual(asJson(large));
  });

  it('a step writes only the entries it changed; the others keep their rows', async () => {
    const repo = await freshRepo();
    const ids = createCountingIds();
    await runStep({ db: store.db, repositoryId: repo, inputs: openedAndQueued(1), now, ids });
    await runStep({ db: store.db, repositoryId: repo, inputs: openedAndQueued(2), now, ids });
    const before = await entryVersions(repo);
    const version = await loadQueueStateVersion(store.db, repo);

    const outcome = await runStep({ db: store.db, repositoryId: repo, inputs: openedAndQueued(3), now, ids });
    const after = await entryVersions(repo);
    expect(after.get('pullRequests/1')).toBe(before.get('pullRequests/1'));
    expect(after.get('sessions/1')).toBe(before.get('sessions/1'));
    expect(after.has('pullRequests/3')).toBe(true);
    expect(after.has('sessions/3')).toBe(true);
    expect(Number(await loadQueueStateVersion(store.db, repo))).toBe(Number(version) + 1);
    expect(await loadQueueState(store.db, repo)).toEqual(asJson(outcome.state));
  });

  it('saving edits one after another leaves what a save of the whole state leaves (property)', async () => {
    const keys = Object.keys(large.sessions);
    type Edit =
      | { kind: 'drop'; at: number }
      | { kind: 'retitle'; at: number; title: string }
      | { kind: 'pause'; reason: string }
      | { kind: 'add'; number: number }
      | { kind: 'lane'; at: number; base: string }
      | { kind: 'popLane' }
      | { kind: 'pushLane'; at: number };
    const edit: fc.Arbitrary<Edit> = fc.oneof(
      fc.record({ kind: fc.constant('drop' as const), at: fc.nat() }),
      fc.record({ kind: fc.constant('retitle' as const), at: fc.nat(), title: fc.string() }),
      fc.record({ kind: fc.constant('pause' as const), reason: fc.string({ minLength: 1 }) }),
      fc.record({ kind: fc.constant('add' as const), number: fc.integer({ min: 1000, max: 1010 }) }),
      fc.record({ kind: fc.constant('lane' as const), at: fc.nat(), base: fc.string() }),
      fc.record({ kind: fc.constant('popLane' as const) }),
      fc.record({ kind: fc.constant('pushLane' as const), at: fc.nat() }),
    );
    const apply = (state: QueueState, e: Edit): QueueState => {
      const sessions = Object.keys(state.sessions);
      if (e.kind === 'drop' && sessions.length > 0) {
        const key = sessions[e.at % sessions.length]!;
        const { [key]: _session, ...rest } = state.sessions;
        const { [key]: _pr, ...prs } = state.pullRequests;
        return { ...state, sessions: rest, pullRequests: prs };
      }
      if (e.kind === 'retitle') {
        const key = keys[e.at % keys.length]!;
        const pr = state.pullRequests[key];
        if (pr === undefined) return state;
        return { ...state, pullRequests: { ...state.pullRequests, [key]: { ...pr, title: e.title } } };
      }
      if (e.kind === 'pause')
        return { ...state, pause: { paused: true, reason: e.reason, since: now.toISOString() } };
      if (e.kind === 'lane' && state.lanes.length > 0) {
        const at = e.at % state.lanes.length;
        return {
          ...state,
          lanes: state.lanes.map((lane, i) => (i === at ? { ...lane, base: e.base } : lane)),
        };
      }
      if (e.kind === 'popLane') return { ...state, lanes: state.lanes.slice(0, -1) };
      if (e.kind === 'pushLane' && large.lanes.length > 0) {
        return { ...state, lanes: [...state.lanes, large.lanes[e.at % large.lanes.length]!] };
      }
      if (e.kind === 'add') {
        const template = large.pullRequests[keys[0]!]!;
        return {
          ...state,
          pullRequests: { ...state.pullRequests, [String(e.number)]: { ...template, number: e.number } },
        };
      }
      return state;
    };
    await fc.assert(
      fc.asyncProperty(fc.array(edit, { minLength: 1, maxLength: 6 }), async (edits) => {
        const repo = await freshRepo();
        await saveQueueState(store.db, repo, large, now);
        let state: QueueState = large;
        for (const e of edits) {
          const next = apply(state, e);
          await saveQueueState(store.db, repo, next, now, state);
          state = next;
        }
        expect(await loadQueueState(store.db, repo)).toEqual(asJson(state));
      }),
      { numRuns: 15, seed: 20261125 },
    );
  });

  it('without a previous state, a save replaces every entry (none of an older state is left)', async () => {
    const repo = await freshRepo();
    await saveQueueState(store.db, repo, large, now);
    const small = { ...large, sessions: {}, pullRequests: {}, checkRuns: {}, lanes: [] };
    await saveQueueState(store.db, repo, small, now);
    expect((await entryVersions(repo)).size).toBe(0);
    expect(await loadQueueState(store.db, repo)).toEqual(asJson(small));
  });

  it('a state whose collection is not an object is kept whole, so the engine can refuse it on load', async () => {
    const repo = await freshRepo();
    await saveQueueState(store.db, repo, large, now);
    const broken = { ...large, sessions: ['not', 'a', 'record'] };
    await saveQueueState(store.db, repo, broken, now, large);
    expect(await loadQueueState(store.db, repo)).toEqual(asJson(broken));
    await saveQueueState(store.db, repo, large, now, broken);
    expect(await loadQueueState(store.db, repo)).toEqual(asJson(large));
  });

  it('deleting the repository deletes its entries', async () => {
    const repo = await freshRepo();
    await saveQueueState(store.db, repo, large, now);
    await sql`DELETE FROM repositories WHERE id = ${repo}::bigint`.execute(store.db);
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM queue_state_entries WHERE repository_id = ${repo}::bigint`.execute(
      store.db,
    );
    expect(rows[0]!.n).toBe(0);
  });

  it('migration 0010 moves a whole stored state into entries and loads it back unchanged', async () => {
    const repo = await freshRepo();
    await sql`INSERT INTO queue_state (repository_id, state, version, updated_at)
      VALUES (${repo}::bigint, ${JSON.stringify(large)}::jsonb, 1, ${now})`.execute(store.db);
    const migration = listMigrations().find((m) => m.name.startsWith('0010_'))!;
    // Its data statements, run again on a row in the old shape (the table exists already).
    const statements = migration.sql
      .split(/;\s*\n/)
      .map((s) => s.replace(/^(\s*--.*\n)*/g, '').trim())
      .filter((s) => s.length > 0 && !s.startsWith('CREATE TABLE'));
    expect(statements).toHaveLength(2);
    for (const statement of statements) await sql.raw(statement).execute(store.db);
    expect((await entryVersions(repo)).size).toBeGreaterThanOrEqual(120);
    expect(await loadQueueState(store.db, repo)).toEqual(asJson(large));
  });

  it('migration 0011 moves the lanes of a stored core into entries, in order', async () => {
    const repo = await freshRepo();
    const { lanes, ...core } = asJson(large) as Record<string, unknown>;
    await sql`INSERT INTO queue_state (repository_id, state, version, updated_at)
      VALUES (${repo}::bigint, ${JSON.stringify(core)}::jsonb, 1, ${now})`.execute(store.db);
    // A core from before 0011 still holds its lanes: loaded as they are.
    await sql`UPDATE queue_state SET state = state || jsonb_build_object('lanes', ${JSON.stringify(lanes)}::jsonb)
      WHERE repository_id = ${repo}::bigint`.execute(store.db);
    expect(await loadQueueState(store.db, repo)).toEqual(asJson(large));
    const migration = listMigrations().find((m) => m.name.startsWith('0011_'))!;
    for (const statement of migration.sql.split(/;\s*\n/).filter((s) => /\b(INSERT|UPDATE)\b/.test(s))) {
      await sql.raw(statement).execute(store.db);
    }
    const keys = [...(await entryVersions(repo)).keys()].filter((k) => k.startsWith('lanes/'));
    expect(keys.sort()).toEqual(large.lanes.map((_, i) => `lanes/${i}`).sort());
    const { rows } = await sql<{ state: Record<string, unknown> }>`
      SELECT state FROM queue_state WHERE repository_id = ${repo}::bigint`.execute(store.db);
    expect(Object.keys(rows[0]!.state)).not.toContain('lanes');
    expect(await loadQueueState(store.db, repo)).toEqual(asJson(large));
  });

  it('a changed lane writes that lane only, and the core not at all', async () => {
    expect(large.lanes.length).toBeGreaterThan(2);
    const lanes = large.lanes.map((lane, i) =>
      i === 1 ? { ...lane, batches: lane.batches.slice(1) } : lane,
    );
    const changes = diffStates(large, { ...large, lanes });
    expect(changes.core).toBeNull();
    expect(changes.upserts.map((u) => `${u.collection}/${u.key}`)).toEqual(['lanes/1']);
    const repo = await freshRepo();
    await saveQueueState(store.db, repo, large, now);
    const before = await entryVersions(repo);
    const fewer = { ...large, lanes: lanes.slice(0, 2) };
    await saveQueueState(store.db, repo, fewer, now, large);
    const after = await entryVersions(repo);
    expect(after.get('lanes/0')).toBe(before.get('lanes/0'));
    expect(after.get('lanes/1')).not.toBe(before.get('lanes/1'));
    expect([...after.keys()].filter((k) => k.startsWith('lanes/'))).toHaveLength(2);
    expect(await loadQueueState(store.db, repo)).toEqual(asJson(fewer));
  });

  it('diffStates: an unchanged state writes nothing, a changed entry writes only that entry', () => {
    const same = diffStates(large, large);
    expect(same).toEqual({ core: null, replaceAll: false, upserts: [], deletes: [] });
    const key = Object.keys(large.sessions)[0]!;
    const next = {
      ...large,
      sessions: { ...large.sessions, [key]: { ...large.sessions[key]!, priority: 9 } },
    };
    const changes = diffStates(large, next);
    expect(changes.core).toBeNull();
    expect(changes.upserts.map((u) => `${u.collection}/${u.key}`)).toEqual([`sessions/${key}`]);
  });
});
