import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PullRequest, Repository } from '../../../app/sandbox/entities.ts';
import { installRepository, startTrainyard, type Tester } from '../../support/trainyard-tester.ts';

const MINUTE = 60_000;
let t: Tester;
let repo: Repository;
let pr: PullRequest;

beforeEach(async () => {
  t = await startTrainyard();
  repo = installRepository(t, 'widgets', {
    'README.md': 'hello\n',
    '.github/trainyard.yml': 'queue_rules:\n  - name: default\n',
  });
  await t.settle();
  pr = t.github.openPullRequest(repo, { author: 'alice', title: 'Add a', files: { 'a.txt': 'a\n' } });
  await t.settle();
});
afterEach(async () => {
  await t?.close();
});

/** Writes a comment, settles, and answers with Trainyard's reactions to it and its new comments. */
async function command(body: string, login = 'alice') {
  const before = t.appComments(repo, pr.number).length;
  const comment = t.github.issues.comment(repo, { number: pr.number, body, user: t.github.account(login) });
  await t.settle();
  return {
    reactions: comment.reactions.filter((r) => r.user.id === t.github.app.bot.id).map((r) => r.content),
    replies: t
      .appComments(repo, pr.number)
      .slice(before)
      .map((c) => c.body),
  };
}

const queued = async () =>
  (
    await t.api<{
      waiting_pull_requests: { number: number }[];
      batches: { pull_requests: { number: number }[] }[];
    }>('/v1/repos/acme/widgets/merge-queue/status')
  ).body;

function isQueued(status: Awaited<ReturnType<typeof queued>>, number: number): boolean {
  return (
    status.waiting_pull_requests.some((p) => p.number === number) ||
    status.batches.some((b) => b.pull_requests.some((p) => p.number === number))
  );
}

describe('comment commands (sandbox code host)', () => {
  it('a user with read permission: -1, a comment saying why, command.queue with session_id null, not queued', async () => {
    const answer = await command('@trainyard queue', 'mallory');
    expect(answer.reactions).toEqual(['-1']);
    expect(answer.replies).toHaveLength(1);
    expect(answer.replies[0]).toContain('@mallory cannot run `queue`');
    expect(answer.replies[0]).toContain('write access');
    const events = await t.events(repo);
    expect(events.map((e) => e.type)).toEqual(['command.queue']);
    expect(events[0]!.metadata).toMatchObject({ author: { login: 'mallory' }, session_id: null });
    expect(isQueued(await queued(), pr.number)).toBe(false);
    await t.advance(30 * MINUTE);
    expect(t.merges).toEqual([]);
    expect(t.drafts(repo, true)).toEqual([]);

    // Nor can mallory take alice's queued PR out.
    await command('@trainyard queue');
    const refused = await command('@trainyard dequeue', 'mallory');
    expect(refused.reactions).toEqual(['-1']);
    expect(refused.replies[0]).toContain('@mallory cannot run `dequeue`');
    expect(isQueued(await queued(), pr.number)).toBe(true);
    // Recorded with the session it named, which it did not touch.
    const later = await t.events(repo);
    const session = later.find((e) => e.type === 'action.queue.enter')!.metadata.session_id;
    expect(later.find((e) => e.type === 'command.dequeue')?.metadata).toMatchObject({ session_id: session });
    expect(later.filter((e) => e.type === 'action.queue.leave')).toEqual([]);
  });

  it('queue, refresh, dequeue, requeue: each acknowledged with +1 and its event; the requeued PR gets a new session and merges', async () => {
    expect((await command('@trainyard queue')).reactions).toEqual(['+1']);
    await t.advance(MINUTE);
    expect(t.drafts(repo)).toHaveLength(1);
    const check = t.trainyardCheck(repo, pr.number)!;
    expect(check.status).toBe('in_progress');

    // refresh publishes the check run again: a stale one is rewritten.
    const summary = check.summary;
    check.summary = 'stale';
    check.title = 'stale';
    expect((await command('@trainyard refresh')).reactions).toEqual(['+1']);
    expect(t.trainyardCheck(repo, pr.number)).toMatchObject({ id: check.id, summary });
    expect(t.trainyardCheck(repo, pr.number)!.title).not.toBe('stale');

    const draft = t.drafts(repo)[0]!;
    expect((await command('@trainyard dequeue')).reactions).toEqual(['+1']);
    expect(t.github.pulls.get(repo, draft.number).state).toBe('closed');
    expect(isQueued(await queued(), pr.number)).toBe(false);
    const leave = (await t.events(repo)).find((e) => e.type === 'action.queue.leave')!;
    expect(leave.metadata).toMatchObject({ merged: false });
    expect(String(leave.metadata.reason)).toMatch(/^PR_MANUALLY_DEQUEUED: dequeued by @alice/);
    expect(t.trainyardCheck(repo, pr.number)).toMatchObject({ status: 'completed', conclusion: 'cancelled' });
    await t.advance(30 * MINUTE);
    expect(t.merges).toEqual([]);

    expect((await command('@trainyard requeue')).reactions).toEqual(['+1']);
    await t.advance(15 * MINUTE);
    expect(t.merges).toEqual([{ repo: 'widgets', number: pr.number }]);
    const events = await t.events(repo);
    const commands = events.filter((e) => e.type.startsWith('command.'));
    expect(commands.map((e) => e.type)).toEqual(['command.queue', 'command.dequeue', 'command.requeue']);
    const sessions = events.filter((e) => e.type === 'action.queue.enter').map((e) => e.metadata.session_id);
    expect(sessions).toHaveLength(2);
    expect(sessions[0]).not.toBe(sessions[1]);
    expect(commands.map((e) => e.metadata.session_id)).toEqual([sessions[0], sessions[0], sessions[1]]);
    expect(t.trainyardCheck(repo, pr.number)).toMatchObject({ status: 'completed', conclusion: 'success' });
    expect(await t.leftovers()).toEqual({ outbox: 0, deliveries: 0, dueTimers: 0 });
  });

  it('an unknown command gets a reply naming it, a suggestion and the list of commands; nothing is queued', async () => {
    const answer = await command('@trainyard merge');
    expect(answer.reactions).toEqual(['confused']);
    expect(answer.replies).toHaveLength(1);
    const reply = answer.replies[0]!;
    expect(reply).toContain('`merge` is not a command.');
    for (const usage of [
      '@trainyard queue [rule]',
      '@trainyard dequeue',
      '@trainyard requeue [rule]',
      '@trainyard refresh',
    ])
      expect(reply).toContain(usage);
    const typo = await command('@trainyard queeu');
    expect(typo.replies[0]).toContain('Did you mean `@trainyard queue`?');
    const extra = await command('@trainyard dequeue now');
    expect(extra.replies[0]).toContain('`dequeue` takes no argument');
    // Text that only mentions the app is no command at all: no answer.
    const mention = await command('thanks to `@trainyard queue` in the docs');
    expect(mention).toEqual({ reactions: [], replies: [] });
    expect(
      (await t.events(repo)).filter((e) => e.type.startsWith('command.') || e.type.startsWith('action.')),
    ).toEqual([]);
    expect(isQueued(await queued(), pr.number)).toBe(false);
  });
});
