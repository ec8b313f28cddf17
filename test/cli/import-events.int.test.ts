import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importEvents, parseEventLine } from '../../app/cli/import-events.ts';
import type { Store } from '../../app/store/database.ts';
import { listEvents } from '../../app/store/events.ts';
import { findRepository } from '../../app/store/repositories.ts';
import { exampleEvent, exampleNewEvent } from '../support/event-examples.ts';
import { openTestStore } from '../support/test-store.ts';

let store: Store;
const dir = mkdtempSync(join(tmpdir(), 'trainyard-import-'));
const now = new Date('2026-11-01T12:00:00Z');

beforeAll(async () => {
  store = await openTestStore();
}, 60_000);
afterAll(async () => {
  await store?.close();
});

function file(name: string, lines: unknown[]): string {
  const path = join(dir, name);
  writeFileSync(path, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n'));
  return path;
}

async function countEvents(owner: string, name: string): Promise<number> {
  const repo = await findRepository(store.db, owner, name);
  if (!repo) return 0;
  const page = await listEvents(store.db, repo.id, {}, { kind: 'newest' }, 100);
  return page.events.length;
}

describe('events import', () => {
  it('appends every line in file order, filling received_at with now when absent', async () => {
    const enter = exampleNewEvent('action.queue.enter', {
      received_at: '2026-10-01T10:00:00+02:00',
      pull_request: 5,
    });
    const merged = exampleNewEvent('action.queue.merged');
    delete (merged as { received_at?: string }).received_at;
    const path = file('good.jsonl', [enter, '', merged]);
    const report = await importEvents(store, { file: path, owner: 'acme', name: 'imported', now });
    expect(report).toEqual({ imported: 2, problems: [], badLines: 0 });
    const repo = (await findRepository(store.db, 'acme', 'imported'))!;
    const page = await listEvents(store.db, repo.id, {}, { kind: 'newest' }, 10);
    expect(page.events.map((e) => e.type)).toEqual(['action.queue.merged', 'action.queue.enter']);
    expect(page.events[1]!.receivedAt.toISOString()).toBe('2026-10-01T08:00:00.000Z');
    expect(page.events[1]!.pullRequest).toBe(5);
    expect(page.events[0]!.receivedAt.toISOString()).toBe(now.toISOString());
  });

  it('accepts events as the log shows them (id, repository and outcome are ignored)', async () => {
    const path = file('from-api.jsonl', [exampleEvent('action.queue.leave')]);
    const report = await importEvents(store, { file: path, owner: 'acme', name: 'roundtrip', now });
    expect(report.imported).toBe(1);
  });

  it('imports nothing when any line is bad, and names each bad line with its reason', async () => {
    const good = exampleNewEvent('action.queue.enter');
    const missingField = exampleNewEvent('action.queue.enter');
    delete (missingField.metadata as Record<string, unknown>)['queue_name'];
    const path = file('bad.jsonl', [
      good,
      '{not json',
      missingField,
      { ...good, type: 'action.nope' },
      '[1,2]',
      { ...good, extra: 1 },
      good,
    ]);
    const report = await importEvents(store, { file: path, owner: 'acme', name: 'untouched', now });
    expect(report.imported).toBe(0);
    expect(report.badLines).toBe(5);
    expect(report.problems.map((p) => p.line)).toEqual([2, 3, 4, 5, 6]);
    expect(report.problems[0]!.reason).toMatch(/not JSON/);
    expect(report.problems[1]!.reason).toMatch(/metadata\.queue_name/);
    expect(report.problems[2]!.reason).toMatch(/type/);
    expect(report.problems[3]!.reason).toMatch(/JSON object/);
    expect(report.problems[4]!.reason).toMatch(/extra/);
    expect(await countEvents('acme', 'untouched')).toBe(0);
  });

  it('reports at most maxReported problems but counts them all', async () => {
    const path = file(
      'many-bad.jsonl',
      Array.from({ length: 30 }, () => '{}'),
    );
    const report = await importEvents(store, {
      file: path,
      owner: 'acme',
      name: 'many',
      now,
      maxReported: 5,
    });
    expect(report.problems).toHaveLength(5);
    expect(report.badLines).toBe(30);
  });

  it('parses a blank line as nothing and never throws on garbage', () => {
    expect(parseEventLine('   ')).toEqual({ ok: true, event: null });
    for (const junk of [
      'null',
      '1',
      '"x"',
      '{"type":1}',
      '\u0000',
      '{"type":"command.queue","metadata":null}',
    ]) {
      expect(parseEventLine(junk).ok).toBe(false);
    }
  });
});
