import { closeSync, existsSync, openSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { VirtualClock } from '../../../app/sandbox/clock.ts';
import { SandboxGithub } from '../../../app/sandbox/model.ts';
import { readSandboxFile, SANDBOX_FILE, type SandboxFile } from '../../../app/sandbox/sandbox-file.ts';

/*
 * What the bench reads once the product has stopped: the sandbox's persisted state (through the
 * sandbox's own reader and restore, so the bench sees what a restart would resume), the
 * product's database, and the observer's journal.
 */

/** The sandbox clock's time stored in `<sandboxDir>/sandbox.json` (what a restart resumes from), or null. */
export function storedSandboxNow(sandboxDir: string): number | null {
  const path = join(sandboxDir, SANDBOX_FILE);
  if (!existsSync(path)) return null;
  // `now` is written near the start of the file: read a little, not megabytes.
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(4096);
    const n = readSync(fd, buffer, 0, buffer.length, 0);
    const match = /"now":(\d+)/.exec(buffer.subarray(0, n).toString('utf8'));
    if (match) return Number(match[1]);
  } finally {
    closeSync(fd);
  }
  try {
    return readSandboxFile(sandboxDir)?.now ?? null;
  } catch {
    return null;
  }
}

export interface SandboxState {
  file: SandboxFile;
  github: SandboxGithub;
}

/**
 * The sandbox's stored state, read as a restart would: with its journal applied when the
 * sandbox keeps one (app/sandbox/journal-replay.ts), else sandbox.json alone.
 */
export async function readSandboxState(sandboxDir: string): Promise<SandboxState> {
  let load: (dir: string) => SandboxFile | null = readSandboxFile;
  try {
    const replay = (await import('../../../app/sandbox/journal-replay.ts')) as {
      loadSandboxState?: (dir: string) => SandboxFile | null;
    };
    if (replay.loadSandboxState) load = replay.loadSandboxState;
  } catch {
    // A sandbox without a journal: sandbox.json is all there is.
  }
  const file = load(sandboxDir);
  if (file === null) throw new Error(`no sandbox state in ${sandboxDir}`);
  const github = SandboxGithub.fromSnapshot(file.model, { clock: new VirtualClock(file.now) });
  return { file, github };
}

export interface EventRow {
  id: number;
  type: string;
  receivedAt: number;
  pullRequest: number | null;
  metadata: Record<string, unknown>;
}

export interface DeliveryRow {
  id: string;
  event: string;
  receivedAt: number;
  processedAt: number | null;
  payload: string | null;
  attempts: number;
  lastError: string | null;
}

export interface OutboxRow {
  id: number;
  key: string;
  type: string;
  effect: Record<string, unknown>;
  doneAt: number | null;
  attempts: number;
  lastError: string | null;
}

export interface DatabaseState {
  repositoryId: number | null;
  events: EventRow[];
  deliveries: DeliveryRow[];
  outbox: OutboxRow[];
}

type Query = (text: string, params?: unknown[]) => Promise<Record<string, unknown>[]>;

const ms = (value: unknown): number => (value instanceof Date ? value.getTime() : Date.parse(String(value)));
const msOrNull = (value: unknown): number | null =>
  value === null || value === undefined ? null : ms(value);
const json = (value: unknown): Record<string, unknown> =>
  typeof value === 'string'
    ? (JSON.parse(value) as Record<string, unknown>)
    : (value as Record<string, unknown>);

async function readWith(query: Query, owner: string, name: string): Promise<DatabaseState> {
  const repos = await query(
    'SELECT id FROM repositories WHERE lower(owner) = lower($1) AND lower(name) = lower($2)',
    [owner, name],
  );
  const repositoryId = repos[0] ? Number(repos[0]['id']) : null;
  const events =
    repositoryId === null
      ? []
      : (
          await query(
            'SELECT id, type, received_at, pull_request, metadata FROM events WHERE repository_id = $1 ORDER BY id',
            [repositoryId],
          )
        ).map(
          (r): EventRow => ({
            id: Number(r['id']),
            type: String(r['type']),
            receivedAt: ms(r['received_at']),
            pullRequest: r['pull_request'] === null ? null : Number(r['pull_request']),
            metadata: json(r['metadata']),
          }),
        );
  const deliveries = (
    await query(
      'SELECT delivery_id, event, received_at, processed_at, payload, attempts, last_error FROM webhook_deliveries ORDER BY seq',
    )
  ).map(
    (r): DeliveryRow => ({
      id: String(r['delivery_id']),
      event: String(r['event']),
      receivedAt: ms(r['received_at']),
      processedAt: msOrNull(r['processed_at']),
      payload: (r['payload'] as string | null) ?? null,
      attempts: Number(r['attempts'] ?? 0),
      lastError: (r['last_error'] as string | null) ?? null,
    }),
  );
  const outbox =
    repositoryId === null
      ? []
      : (
          await query(
            'SELECT id, key, effect, done_at, attempts, last_error FROM outbox WHERE repository_id = $1 ORDER BY id',
            [repositoryId],
          )
        ).map((r): OutboxRow => {
          const effect = json(r['effect']);
          return {
            id: Number(r['id']),
            key: String(r['key']),
            type: String(effect['type'] ?? ''),
            effect,
            doneAt: msOrNull(r['done_at']),
            attempts: Number(r['attempts'] ?? 0),
            lastError: (r['last_error'] as string | null) ?? null,
          };
        });
  return { repositoryId, events, deliveries, outbox };
}

/** The product's tables, from PostgreSQL (`databaseUrl`) or from the PGlite data directory. */
export async function readDatabase(
  target: { databaseUrl: string } | { dataDir: string },
  repository: { owner: string; name: string },
): Promise<DatabaseState> {
  if ('databaseUrl' in target) {
    const client = new pg.Client({ connectionString: target.databaseUrl });
    await client.connect();
    try {
      return await readWith(
        async (text, params) => (await client.query(text, params)).rows as Record<string, unknown>[],
        repository.owner,
        repository.name,
      );
    } finally {
      await client.end();
    }
  }
  const db = await PGlite.create(target.dataDir);
  try {
    return await readWith(
      async (text, params) => (await db.query<Record<string, unknown>>(text, params)).rows,
      repository.owner,
      repository.name,
    );
  } finally {
    await db.close();
  }
}

/** One line of the observer's journal (observer.ts). */
export type JournalRecord =
  | { k: 'boot'; pid: number; wall: number; life: number }
  | {
      k: 'd';
      id: string;
      event?: string;
      action?: string | null;
      status: number | null;
      error?: string;
      wall: number;
      at?: number | null;
      pr?: number | null;
      comment?: number | null;
      app?: string | null;
      life: number;
    }
  | {
      k: 'w';
      m: string;
      u: string;
      s: number;
      wall: number;
      at: number | null;
      b: Record<string, unknown> | null;
      life: number;
    }
  | { k: 'h'; id: string; status: number; wall: number; life: number }
  | { k: 'c'; at: number; first?: boolean; back?: number; wall: number; life: number }
  | { k: 'note'; what: string; wall: number; life: number };

/** The journal's records, each with the life (0-based start of the product) it was written in. */
export function readJournal(path: string): JournalRecord[] {
  if (!existsSync(path)) return [];
  const records: JournalRecord[] = [];
  let life = -1;
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue; // a line cut by the kill
    }
    if (record['k'] === 'boot') life++;
    records.push({ ...record, life } as JournalRecord);
  }
  return records;
}
