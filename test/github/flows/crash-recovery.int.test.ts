import { afterEach, describe, expect, it } from 'vitest';
import type { PullRequest, Repository } from '../../../app/sandbox/entities.ts';
import { installRepository, startTrainyard, type Tester } from '../../support/trainyard-tester.ts';

const MINUTE = 60_000;
let t: Tester;

afterEach(async () => {
  await t?.close();
});

/** A tester whose database outlives the app (PGlite on disk, or a PostgreSQL schema). */
async function setUp(config = 'queue_rules:\n  - name: default\n'): Promise<Repository> {
  t = await startTrainyard({ persistent: true });
  const repo = installRepository(t, 'widgets', { 'README.md': 'hello\n', '.github/trainyard.yml': config });
  await t.settle();
  return repo;
}

function open(repo: Repository, n: number): PullRequest {
  return t.github.openPullRequest(repo, {
    author: 'alice',
    title: `Change ${n}`,
    files: { [`file-${n}.txt`]: `${n}\n` },
  });
}

/**
 * Webhooks delivered and applied (each step's state, events and outbox rows committed), and
 * nothing else: no effect runs, no wake-up fires. What a process did before it died.
 */
async function applyDeliveriesOnly(): Promise<void> {
  for (;;) {
    await t.sandbox.webhooks.flush();
    const done = await t.app.processor.runUntilIdle();
    if (done === 0 && t.sandbox.webhooks.pendingCount() === 0) return;
  }
}

async function pendingEffects(): Promise<string[]> {
  const rows = await t.store.db
    .selectFrom('outbox')
    .select('effect')
    .where('done_at', 'is', null)
    .orderBy('id')
    .execute();
  return rows.map((r) => String(r.effect.type));
}

/** Per event line, how many times it was recorded. */
function tally(lines: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const line of lines) counts[line] = (counts[line] ?? 0) + 1;
  return counts;
}

/** Queued, tested on its draft PR, CI passed and applied: the merge is in the outbox, not run. */
async function untilMergeIsEnqueued(repo: Repository): Promise<PullRequest> {
  const pr = open(repo, 1);
  await t.settle();
  t.comment(repo, pr.number, '@trainyard queue');
  await t.advance(MINUTE);
  t.clock.advance(10 * MINUTE); // CI concludes; its webhooks follow
  await applyDeliveriesOnly();
  expect((await pendingEffects())[0]).toBe('merge_pr');
  expect(t.merges).toEqual([]);
  return pr;
}

describe('crash recovery: the app stops between the state+outbox commit and the effect (persistent store)', () => {
  it('the merge committed to the outbox runs once after the restart; no event lost or recorded twice', async () => {
    const repo = await setUp();
    const pr = await untilMergeIsEnqueued(repo);
    const before = await t.eventLines(repo);
    expect(before).toContain(`action.queue.checks_start #${pr.number}`);
    expect(before).not.toContain(`action.queue.merged #${pr.number}`);

    await t.restart();
    expect(await pendingEffects()).toContain('merge_pr'); // it survived
    await t.settle();
    await t.advance(5 * MINUTE);

    expect(t.merges).toEqual([{ repo: 'widgets', number: pr.number }]);
    expect(t.github.fileText(repo, 'main', 'file-1.txt')).toBe('1\n');
    const after = await t.eventLines(repo);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(tally(after)).toMatchObject({
      [`command.queue #${pr.number}`]: 1,
      [`action.queue.enter #${pr.number}`]: 1,
      [`action.queue.checks_start #${pr.number}`]: 1,
      [`action.queue.checks_end #${pr.number}`]: 1,
      [`action.queue.merged #${pr.number}`]: 1,
      [`action.queue.leave #${pr.number}`]: 1,
    });
    expect(t.drafts(repo)).toEqual([]);
    expect(await t.leftovers()).toEqual({ outbox: 0, deliveries: 0, dueTimers: 0 });
  });

  it('the app died after GitHub merged but before recording it: after the restart and the lease, the merge is found done, not made again', async () => {
    const repo = await setUp();
    const pr = await untilMergeIsEnqueued(repo);
    expect(await t.crashDuringEffects()).toEqual(['merge_pr']);
    expect(t.merges).toEqual([{ repo: 'widgets', number: pr.number }]); // done on GitHub
    const before = await t.eventLines(repo);
    expect(before).not.toContain(`action.queue.merged #${pr.number}`);

    await t.restart();
    await t.settle();
    // The dead process's lease holds the row for a while; then it runs again.
    expect(await pendingEffects()).toContain('merge_pr');
    await t.advance(5 * MINUTE);

    expect(t.merges).toEqual([{ repo: 'widgets', number: pr.number }]);
    const after = await t.eventLines(repo);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(tally(after)).toMatchObject({
      [`action.queue.merged #${pr.number}`]: 1,
      [`action.queue.leave #${pr.number}`]: 1,
    });
    const leave = (await t.events(repo)).find((e) => e.type === 'action.queue.leave')!;
    expect(leave.metadata).toMatchObject({ merged: true, reason: 'PR_MERGED' });
    expect(await t.leftovers()).toEqual({ outbox: 0, deliveries: 0, dueTimers: 0 });
  });

  it('a wake-up stored before the crash fires after the restart (batch_max_wait_time)', async () => {
    const repo = await setUp(
      'queue_rules:\n  - name: default\n    batch_size: 2\n    batch_max_wait_time: 2m\n',
    );
    const pr = open(repo, 1);
    await t.settle();
    t.comment(repo, pr.number, '@trainyard queue');
    await applyDeliveriesOnly();
    const timers = await t.store.db.selectFrom('timers').select(['key', 'due_at']).execute();
    expect(timers).toHaveLength(1);
    expect(timers[0]!.due_at.getTime()).toBe(t.clock.now() + 2 * MINUTE);

    await t.restart();
    await t.advance(MINUTE);
    expect(t.drafts(repo)).toEqual([]); // still waiting for a second PR
    await t.advance(MINUTE);
    expect(t.drafts(repo)).toHaveLength(1); // the wake-up came: a batch of one
    await t.advance(12 * MINUTE);
    expect(t.merges).toEqual([{ repo: 'widgets', number: pr.number }]);
    expect(await t.leftovers()).toEqual({ outbox: 0, deliveries: 0, dueTimers: 0 });
  });
});
