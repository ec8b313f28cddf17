import { describe, expect, it } from 'vitest';
import { executeEffect } from '../../../../app/github/outbox/effect-runner.ts';
import { reactToComment } from '../../../support/effect-builders.ts';
import { useGithubNock } from '../../../support/nock/github-nock.ts';
import { nockCreateReaction } from '../../../support/nock/issues.ts';

const github = useGithubNock();

describe('react_to_comment', () => {
  it('adds the reaction to the command comment', async () => {
    nockCreateReaction(github, { commentId: 901, reply: 201 });

    await expect(executeEffect(reactToComment(), github.client())).resolves.toEqual([]);
    expect(github.requests).toMatchInlineSnapshot(`
      [
        {
          "body": {
            "content": "eyes",
          },
          "request": "POST /repos/acme/widgets/issues/comments/901/reactions",
        },
      ]
    `);
    expect(github.isDone()).toBe(true);
  });

  it('a repeat (GitHub answers 200 for an existing reaction) does no harm', async () => {
    nockCreateReaction(github, { commentId: 901, reply: 200 });

    await expect(executeEffect(reactToComment(), github.client())).resolves.toEqual([]);
    expect(github.isDone()).toBe(true);
  });

  it('a deleted comment is nothing to react to', async () => {
    nockCreateReaction(github, { commentId: 901, reply: { status: 404, message: 'Not Found' } });

    await expect(executeEffect(reactToComment(), github.client())).resolves.toEqual([]);
    expect(github.isDone()).toBe(true);
  });

  it('a server error throws a transient error', async () => {
    nockCreateReaction(github, { commentId: 901, reply: { status: 500, message: 'Server Error' } });

    await expect(executeEffect(reactToComment(), github.client())).rejects.toMatchObject({ transient: true });
    expect(github.isDone()).toBe(true);
  });
});
