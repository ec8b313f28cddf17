import { afterEach, describe, expect, it } from 'vitest';
import { failWith } from '../../../app/sandbox/faults.ts';
import type { MergeQueueStatus } from '../../../shared/schemas/merge-queue.schema.ts';
import { installRepository, startTrainyard, type Tester } from '../../support/trainyard-tester.ts';

/*
 * Crash test finding C5: an effect that failed for good was marked done in the outbox like a
 * success, its error only in the log. Now the row is failed with its error, and the merge
 * queue status lists it.
 */

const MINUTE = 60_000;
let t: Tester;
afterEach(async () => {
  await t?.close();
});

describe('an effect that fails for good', () => {
  it('is recorded failed in the outbox with its error and shown in the merge queue status', async () => {
    t = await startTrainyard();
    const repo = installRepository(t, 'widgets', {
      'README.md': 'hello\n',
      '.github/trainyard.yml': 'queue_rules:\n  - name: default\n',
    });
    await t.settle();
    const pr = t.github.openPullRequest(repo, { author: 'alice', title: 'One', files: { 'one.txt': '1\n' } });
    await t.settle();
    t.comment(repo, pr.number, '@trainyard queue');
    await t.advance(MINUTE);
    expect(t.drafts(repo)).toHaveLength(1);

    // The app may no longer write refs: the batch's cleanup cannot delete its test branch.
    repo.pushBehaviour = failWith(403, 'Resource not accessible by integration');
    await t.advance(15 * MINUTE);
    expect(t.merges).toEqual([{ repo: 'widgets', number: pr.number }]);

    const failed = await t.store.db
      .selectFrom('outbox')
      .select(['key', 'done_at', 'failed_at', 'last_error'])
      .where('failed_at', 'is not', null)
      .execute();
    expect(failed).toEqual([
      {
        key: expect.stringMatching(/^close_draft_pr:/),
        done_at: failed[0]!.failed_at,
        failed_at: expect.any(Date),
        last_error: expect.stringContaining('Resource not accessible by integration'),
      },
    ]);
    // Only that one: every other effect succeeded, and nothing is left to run.
    expect(await t.leftovers()).toEqual({ outbox: 0, deliveries: 0, dueTimers: 0 });

    const status = await t.api<MergeQueueStatus>('/v1/repos/acme/widgets/merge-queue/status');
    expect(status.status).toBe(200);
    expect(status.body.failed_effects).toEqual([
      {
        key: failed[0]!.key,
        type: 'close_draft_pr',
        pull_requests: [],
        error: failed[0]!.last_error,
        failed_at: failed[0]!.failed_at!.toISOString(),
      },
    ]);
  });
});
