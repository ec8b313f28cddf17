import { describe, expect, it } from 'vitest';
import type { GithubAccount } from '../../../app/queue/inputs.ts';
import type { NewEventOf } from '../../../shared/schemas/event.schema.ts';
import { scenario } from '../support/scenario.ts';

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
});
