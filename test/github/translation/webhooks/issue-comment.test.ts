import { describe, expect, it } from 'vitest';
import {
  fetchFacts,
  type IssueCommentFacts,
  toInputs,
} from '../../../../app/github/translation/webhooks/issue-comment.ts';
import { useGithubNock } from '../../../support/nock/github-nock.ts';
import { nockGetPermission } from '../../../support/nock/repos.ts';
import { issueCommentEvent } from '../../../support/payloads.ts';

const github = useGithubNock();

const writer: IssueCommentFacts = { appSlug: 'trainyard', permission: 'write' };
const comment = (body: string) =>
  issueCommentEvent('created', {
    number: 3,
    body,
    commentId: 901,
    author: { login: 'alice', id: 1001, type: 'User' },
  });

describe('issue_comment → command_received', () => {
  it('a queue command: the command, its author and comment', () => {
    expect(toInputs(comment('@trainyard queue'), writer)).toEqual([
      {
        type: 'command_received',
        number: 3,
        command: 'queue',
        queueName: null,
        author: { id: 1001, login: 'alice', type: 'User' },
        commentId: 901,
        authorized: true,
      },
    ]);
  });

  it('a queue command with a rule', () => {
    expect(toInputs(comment('@trainyard queue hotfix'), writer)).toMatchObject([
      { command: 'queue', queueName: 'hotfix' },
    ]);
  });

  it('requeue with a rule', () => {
    expect(toInputs(comment('@trainyard requeue slow'), writer)).toMatchObject([
      { command: 'requeue', queueName: 'slow' },
    ]);
  });

  it.each(['dequeue', 'refresh'] as const)('%s', (command) => {
    expect(toInputs(comment(`@trainyard ${command}`), writer)).toMatchObject([{ command, queueName: null }]);
  });

  it.each(['admin', 'maintain', 'write'] as const)('%s permission may run commands', (permission) => {
    expect(toInputs(comment('@trainyard queue'), { ...writer, permission })).toMatchObject([
      { authorized: true },
    ]);
  });

  it.each(['triage', 'read', 'none'] as const)('%s permission may not: the engine answers', (permission) => {
    expect(toInputs(comment('@trainyard dequeue'), { ...writer, permission })).toMatchObject([
      { type: 'command_received', command: 'dequeue', authorized: false },
    ]);
  });

  it("a bot's command keeps the bot's account type", () => {
    const payload = issueCommentEvent('created', {
      body: '@trainyard queue',
      author: { login: 'renovate[bot]', id: 29139614, type: 'Bot' },
    });
    expect(toInputs(payload, writer)).toMatchObject([
      { author: { login: 'renovate[bot]', id: 29139614, type: 'Bot' } },
    ]);
  });

  it('an unknown command is answered with what went wrong and the commands there are', () => {
    expect(toInputs(comment('@trainyard merge'), writer)).toMatchInlineSnapshot(`
      [
        {
          "commentId": 901,
          "number": 3,
          "reply": "\`merge\` is not a command.

      Commands:
      - \`@trainyard queue [rule]\`: queue this pull request (in \`rule\`, or the first queue rule that accepts it)
      - \`@trainyard dequeue\`: take it out of the queue
      - \`@trainyard requeue [rule]\`: queue it again after it left the queue
      - \`@trainyard refresh\`: publish its Trainyard check run again",
          "type": "command_not_understood",
        },
      ]
    `);
  });

  it('an extra argument is answered too, without asking who wrote it', () => {
    expect(toInputs(comment('@trainyard dequeue now'), { ...writer, permission: null })).toMatchObject([
      { type: 'command_not_understood', reply: expect.stringMatching(/^`dequeue` takes no argument/) },
    ]);
  });

  it('a comment without a command: ignored', () => {
    expect(toInputs(comment('LGTM'), writer)).toEqual([]);
  });

  it('a comment on an issue, not a pull request: ignored', () => {
    const payload = issueCommentEvent('created', { body: '@trainyard queue', onPullRequest: false });
    expect(toInputs(payload, writer)).toEqual([]);
  });

  it('an edited comment is not run again', () => {
    const payload = issueCommentEvent('edited', { body: '@trainyard queue' });
    expect(toInputs(payload, writer)).toEqual([]);
  });

  it('a deleted comment: ignored', () => {
    expect(toInputs(issueCommentEvent('deleted', { body: '@trainyard queue' }), writer)).toEqual([]);
  });

  it("the app's own replies are never read as commands", () => {
    const payload = issueCommentEvent('created', {
      body: '@trainyard queue',
      author: { login: 'trainyard[bot]', type: 'Bot' },
    });
    expect(toInputs(payload, writer)).toEqual([]);
  });

  it('the slug the app was registered with is the one that counts', () => {
    const facts = { appSlug: 'merge-train', permission: 'write' } as const;
    expect(toInputs(comment('@trainyard queue'), facts)).toEqual([]);
    expect(toInputs(comment('@merge-train queue'), facts)).toMatchObject([{ command: 'queue' }]);
  });
});

describe('fetchFacts: the author permission, only for a command', () => {
  it('a command: asks GitHub for the author permission', async () => {
    nockGetPermission(github, { login: 'alice', reply: { permission: 'write', role_name: 'maintain' } });
    const facts = await fetchFacts(comment('@trainyard queue'), {
      client: github.client(),
      appSlug: 'trainyard',
    });
    expect(github.isDone()).toBe(true);
    expect(facts).toEqual({ appSlug: 'trainyard', permission: 'maintain' });
  });

  it('a comment without a command: nothing is asked', async () => {
    github.mustNot('GET', /.*/, 'no command, no permission check');
    const facts = await fetchFacts(comment('Thanks!'), { client: github.client(), appSlug: 'trainyard' });
    expect(facts).toEqual({ appSlug: 'trainyard', permission: null });
    expect(github.isDone()).toBe(true);
  });

  it('a command that is not understood: nothing is asked', async () => {
    github.mustNot('GET', /.*/, 'the help answer does not depend on who asked');
    const facts = await fetchFacts(comment('@trainyard merge'), {
      client: github.client(),
      appSlug: 'trainyard',
    });
    expect(facts.permission).toBeNull();
    expect(github.isDone()).toBe(true);
  });
});
