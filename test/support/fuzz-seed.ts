import { createApiKey, revokeApiKey } from '../../app/store/api-keys.ts';
import type { Store } from '../../app/store/database.ts';
import { saveQueueState } from '../../app/store/queue-state.ts';
import { ensureRepository } from '../../app/store/repositories.ts';
import { FAKE_GITHUB_TOKENS } from './fuzz-github.ts';
import { buildLargeState, LARGE_STATE_TIME } from './large-state.ts';
import { makeEvents, seedEvents } from './seed-events.ts';

/** The server's clock: the seeded history ends here, so default windows (the last day) hold data. */
export const FUZZ_NOW = '2026-11-01T00:00:00.000Z';
const DAY = 86_400_000;
const HISTORY_DAYS = 90;

/** What the fuzzer knows about the seeded store: repositories, credentials, the history's span. */
export interface FuzzFixtures {
  now: string;
  owner: string;
  /** Seeded with the history and a queue state. */
  repository: string;
  /** Same owner, a few events: its cursors belong to another repository. */
  otherRepository: string;
  /** Known to the installation, under another owner. */
  foreignOwner: string;
  historyStart: string;
  tokens: {
    admin: string;
    reader: string;
    /** Admin, but only on `repository`. */
    scoped: string;
    /** Admin on `otherRepository` only: refused on `repository`. */
    otherRepository: string;
    /** Admin on another owner's repositories. */
    foreignOwner: string;
    revoked: string;
    githubReader: string;
    githubWriter: string;
  };
}

export interface FuzzSeedOptions {
  /** Events in the main repository's history (spread over 90 days). */
  events: number;
  /** Pull requests queued in its engine state (status route). */
  queued: number;
}

/** Repositories, keys, a 90-day event history and an engine state: what the API reads from. */
export async function seedFuzzStore(store: Store, options: FuzzSeedOptions): Promise<FuzzFixtures> {
  const db = store.db;
  const owner = 'acme';
  const main = await ensureRepository(db, { owner, name: 'widgets' });
  const other = await ensureRepository(db, { owner, name: 'other' });
  await ensureRepository(db, { owner: 'umbrella', name: 'things' });

  const end = Date.parse(FUZZ_NOW);
  const start = end - HISTORY_DAYS * DAY;
  // makeEvents' own times span hours; spread them over the whole history instead.
  const gap = (end - start) / Math.max(1, options.events);
  const events = makeEvents(options.events, 7).map((e, i) => ({
    ...e,
    receivedAt: new Date(start + Math.floor(i * gap)),
  }));
  for (let i = 0; i < events.length; i += 5_000) await seedEvents(store, main, events.slice(i, i + 5_000));
  await seedEvents(store, other, makeEvents(30, 11, end - DAY));
  if (options.queued > 0) {
    await saveQueueState(db, main.id, buildLargeState(options.queued), LARGE_STATE_TIME);
  }

  const now = new Date(end);
  const key = async (keyOwner: string, repository: string | null, role: 'admin' | 'read') =>
    createApiKey(db, { name: `fuzz-${role}`, owner: keyOwner, repository, role, now });
  const revoked = await key(owner, null, 'admin');
  await revokeApiKey(db, revoked.key.id, now);
  return {
    now: FUZZ_NOW,
    owner,
    repository: main.name,
    otherRepository: other.name,
    foreignOwner: 'umbrella',
    historyStart: new Date(start).toISOString(),
    tokens: {
      admin: (await key(owner, null, 'admin')).secret,
      reader: (await key(owner, null, 'read')).secret,
      scoped: (await key(owner, main.name, 'admin')).secret,
      otherRepository: (await key(owner, other.name, 'admin')).secret,
      foreignOwner: (await key('umbrella', null, 'admin')).secret,
      revoked: revoked.secret,
      githubReader: FAKE_GITHUB_TOKENS.reader,
      githubWriter: FAKE_GITHUB_TOKENS.writer,
    },
  };
}
