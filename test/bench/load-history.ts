import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { resolve } from 'node:path';
import { importEvents } from '../../app/cli/import-events.ts';
import { createApiKey } from '../../app/store/api-keys.ts';
import type { Store } from '../../app/store/database.ts';
import { saveQueueState } from '../../app/store/queue-state.ts';
import { findRepository } from '../../app/store/repositories.ts';
import { buildLargeState, LARGE_STATE_TIME } from '../support/large-state.ts';
import { BUSIEST, ensureDataset, OWNER } from './support/generate-events.ts';

export interface LoadHistory {
  owner: string;
  name: string;
  events: number;
  /** The newest event's time: the server's clock, so "the last day" holds data. */
  newest: string;
  readToken: string;
  adminToken: string;
}

/** The last line's `received_at` of a history file (events are written oldest first). */
function newestOf(file: string): string {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    const tail = Buffer.alloc(Math.min(size, 64 * 1024));
    readSync(fd, tail, 0, tail.length, size - tail.length);
    const lines = tail.toString('utf8').trimEnd().split('\n');
    return (JSON.parse(lines.at(-1)!) as { received_at: string }).received_at;
  } finally {
    closeSync(fd);
  }
}

/**
 * bench:logs' 90-day history of one repository (test/bench/support/generate-events.ts, the same
 * files in `.bench-data/`), imported through the real append path (projections on), with an
 * engine state of `queued` pull requests for the status route and two application keys.
 */
export async function seedLoadHistory(
  store: Store,
  options: { events: number; queued: number; log: (message: string) => void },
): Promise<LoadHistory> {
  const dataset = await ensureDataset(
    resolve('.bench-data'),
    { busiest: options.events, others: 0, otherRepositories: 0, seed: 1 },
    options.log,
  );
  const file = dataset.busiest;
  const started = performance.now();
  const report = await importEvents(store, { file: file.file, owner: OWNER, name: BUSIEST, now: new Date() });
  if (report.imported !== file.events)
    throw new Error(`imported ${report.imported} of ${file.events} events`);
  options.log(
    `imported ${file.events.toLocaleString('en')} events in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  const repository = await findRepository(store.db, OWNER, BUSIEST);
  if (!repository) throw new Error('the imported repository is missing');
  if (options.queued > 0) {
    await saveQueueState(store.db, repository.id, buildLargeState(options.queued), LARGE_STATE_TIME);
  }
  const key = async (role: 'read' | 'admin') =>
    (
      await createApiKey(store.db, {
        name: `load-${role}`,
        owner: OWNER,
        repository: null,
        role,
        now: new Date(),
      })
    ).secret;
  return {
    owner: OWNER,
    name: BUSIEST,
    events: file.events,
    newest: newestOf(file.file),
    readToken: await key('read'),
    adminToken: await key('admin'),
  };
}
