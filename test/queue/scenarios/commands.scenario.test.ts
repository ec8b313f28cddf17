import { describe, expect, it } from 'vitest';
import type { GithubAccount } from '../../../app/queue/inputs.ts';
import type { NewEventOf } from '../../../shared/schemas/event.schema.ts';
import { pullRequest, scenario } from '../support/scenario.ts';

const mallory: GithubAccount = { id: 2002, login: 'mallory', type: 'User' };
const readOnly = { author: mallory, authorized: false };

describe('comment commands and who may run them', () => {
  it('a queue command from a user without write access is recorded and answered, and queues nothing', () => {
    const s = scenario();
    s.open(1).command(1, 'queue', null, readOnly);
    s.runUntilIdle();
    expect(s.timeline()).toMatchInlineSnapshot(`
      "
      0s     pull_request_updated #1 head=pr-1-head
      0s     command queue #1 by @mallory (no write access)
               command.queue #1
               → react -1
               → comment #1: @mallory cannot run \`queue\`: merge queue commands need write access to this repository.
      "
    `);
    const command = s.events('command.queue')[0] as NewEventOf<'command.queue'>;
    expect(command.metadata).toEqual({
      author: mallory,
      comment_id: command.metadata.comment_id,
      session_id: null,
    });
    expect(s.state.sessions).toEqual({});
  });

  it('a dequeue command from a user without write access names the session and leaves it queued', () => {
    const s = scenario();
    s.queue(1);
    const sessionId = Object.values(s.state.sessions)[0]!.sessionId;
    const from = s.mark();
    s.command(1, 'dequeue', null, readOnly);
    expect(s.timeline({ from })).toMatchInlineSnapshot(`
      "
      0s     command dequeue #1 by @mallory (no write access)
               command.dequeue #1
               → react -1
               → comment #1: @mallory cannot run \`dequeue\`: merge queue commands need write access to this repository.
      "
    `);
    const dequeue = s.events('command.dequeue')[0] as NewEventOf<'command.dequeue'>;
    expect(dequeue.metadata.session_id).toBe(sessionId);
    expect(s.events('action.queue.leave')).toEqual([]);
    expect(s.state.sessions['1']?.sessionId).toBe(sessionId);
  });

  it('a requeue command from a user without write access emits command.requeue and nothing else', () => {
    const s = scenario();
    s.open(1).command(1, 'requeue', 'default', readOnly);
    expect(s.log.at(-1)!.events.map((e) => e.type)).toEqual(['command.requeue']);
    expect(s.state.sessions).toEqual({});
  });

  it('a refresh from a user without write access is answered and emits no event', () => {
    const s = scenario();
    s.queue(1);
    const from = s.mark();
    s.command(1, 'refresh', null, readOnly);
    expect(s.timeline({ from, checkRuns: true })).toMatchInlineSnapshot(`
      "
      0s     command refresh #1 by @mallory (no write access)
               → react -1
               → comment #1: @mallory cannot run \`refresh\`: merge queue commands need write access to this repository.
      "
    `);
  });

  it('a refresh publishes the check run again though its title did not change, in memory or loaded', () => {
    for (const reload of [false, true]) {
      const s = scenario();
      s.reload = reload;
      s.queue(1, 2);
      const published = () =>
        s.log
          .at(-1)!
          .effects.filter((e) => e.type === 'publish_check_run')
          .map((e) => e.number);
      const before = s.state.checkRuns['2']!;
      s.command(2, 'refresh');
      expect(published()).toEqual([2]);
      expect(s.state.checkRuns['2']).toEqual({ title: before.title, version: before.version + 1 });
      // Nothing changed since: nothing to publish.
      s.send({ type: 'tick' });
      expect(published()).toEqual([]);
    }
  });

  it("a comment the shell could not read is answered with the shell's words and changes nothing", () => {
    const s = scenario();
    s.queue(1);
    const before = s.state;
    const from = s.mark();
    s.commandNotUnderstood(1, 'Unknown command `merge`.\n\nCommands: …');
    expect(s.timeline({ from })).toMatchInlineSnapshot(`
      "
      0s     command_not_understood #1
               → react confused
               → comment #1: Unknown command \`merge\`.
      "
    `);
    const comment = s.log.at(-1)!.effects.find((e) => e.type === 'post_comment');
    expect(comment).toMatchObject({
      reply: { kind: 'command_not_understood', text: 'Unknown command `merge`.\n\nCommands: …' },
    });
    expect(s.state.sessions).toEqual(before.sessions);
  });

  it('queue of a pull request the engine has not seen: it is read from GitHub first, then the command is taken once', () => {
    const s = scenario();
    // Known to GitHub (the shell), never stepped: opened before the app was installed.
    s.snapshots.set(7, pullRequest(7));
    s.command(7, 'queue');
    expect(s.timeline({ from: 0 })).toMatchInlineSnapshot(`
      "
      0s     command queue #7
               → read_pull_request #7
      "
    `);
    s.runUntilIdle({ until: '1m' });
    expect(s.timeline({ from: 1 })).toMatchInlineSnapshot(`
      "
      0s     pull_request_updated #7 head=pr-7-head
      0s     command queue #7
               command.queue #7
               action.queue.enter #7
               → react +1
               → prepare_test_branch batch-1 [#7]
      0s     test_branch_prepared batch-1 (attempt 1) sha=test-batch-1-1
               action.queue.checks_start #7 batch-1 [#7]
      "
    `);
    expect(s.events('command.queue')).toHaveLength(1);
  });

  it('queue of a pull request GitHub says is closed: refused once it was read, and said why', () => {
    const s = scenario();
    s.command(8, 'queue').runUntilIdle({ until: '1m' });
    expect(s.effects('read_pull_request')).toHaveLength(1);
    expect(s.effects('post_comment').map((e) => e.reply)).toEqual([
      { kind: 'not_queued', refusal: { kind: 'pull_request_not_open' } },
    ]);
    expect(s.events().map((e) => e.type)).toEqual(['command.queue']);
  });

  it('the read failed for good: the command is answered with the reason, never read again', () => {
    const s = scenario();
    s.command(9, 'queue');
    const [read] = s.effects('read_pull_request');
    s.send({ ...read!.command, read: { failure: 'GitHub answered 404 (Not Found)' } });
    expect(s.effects('read_pull_request')).toHaveLength(1);
    expect(s.effects('post_comment').map((e) => e.reply)).toEqual([
      {
        kind: 'not_queued',
        refusal: { kind: 'pull_request_unreadable', reason: 'GitHub answered 404 (Not Found)' },
      },
    ]);
  });
});
