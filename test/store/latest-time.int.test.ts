import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../app/store/database.ts';
import { findLatestRecordedTime } from '../../app/store/latest-time.ts';
import { ensureRepository } from '../../app/store/repositories.ts';
import { runStep } from '../../app/store/step-transaction.ts';
import { createCountingIds } from '../queue/support/scenario.ts';
import { openedAndQueued } from '../support/queue-inputs.ts';
import { backend, openTestStore } from '../support/test-store.ts';

/*
 * Crash test finding C3: the sandbox's clock, which the app stamps everything with, went back
 * after a crash. On start the sandbox resumes no earlier than what the app recorded last.
 */

let store: Store;
beforeAll(async () => {
  store = await openTestStore();
});
afterAll(async () => {
  await store?.close();
});

describe(`the latest time the app recorded (${backend})`, () => {
  it('is none on an empty store, then the newest event or effect', async () => {
    expect(await findLatestRecordedTime(store.db)).toBeNull();
    const repo = await ensureRepository(store.db, { owner: 'acme', name: 'clock' });
    const at = new Date('2031-05-06T07:08:09.000Z');
    await runStep({
      db: store.db,
      repositoryId: repo.id,
      inputs: openedAndQueued(1),
      now: at,
      ids: createCountingIds(),
    });
    expect(await findLatestRecordedTime(store.db)).toEqual(at);
  });
});
