import { describe, expect, it } from 'vitest';
import { executeEffect } from '../../../../app/github/outbox/effect-runner.ts';
import { postComment } from '../../../support/effect-builders.ts';
import { REPO_PATH, useGithubNock } from '../../../support/nock/github-nock.ts';
import { nockCreateComment, nockListComments } from '../../../support/nock/issues.ts';

const github = useGithubNock();

describe('post_comment', () => {
  it("posts the reply, in the shell's words, with the effect key hidden in it", async () => {
    nockListComments(github, { number: 3, pages: [[{ id: 1, body: 'Looks good' }]] });
    nockCreateComment(github, { number: 3, id: 2 });

    const inputs = await executeEffect(postComment(), github.client());

    expect(inputs).toEqual([]);
    expect(github.requests).toMatchInlineSnapshot(`
      [
        {
          "request": "GET /repos/acme/widgets/issues/3/comments?per_page=100",
        },
        {
          "body": {
            "body": "This pull request is already queued in \`default\`.

      <!-- trainyard:post_comment:session-3:queued -->",
          },
          "request": "POST /repos/acme/widgets/issues/3/comments",
        },
      ]
    `);
    expect(github.isDone()).toBe(true);
  });

  it('a second run finds its comment (on any page) and posts nothing', async () => {
    github.mustNot('POST', `${REPO_PATH}/issues/3/comments`, 'must not comment twice');
    nockListComments(github, {
      number: 3,
      pages: [
        [{ id: 1, body: 'Looks good' }],
        [
          {
            id: 2,
            body: 'This pull request is already queued in `default`.\n\n<!-- trainyard:post_comment:session-3:queued -->',
          },
        ],
      ],
    });

    await expect(executeEffect(postComment(), github.client())).resolves.toEqual([]);
    expect(github.isDone()).toBe(true);
  });

  it('a locked conversation refuses the comment: the permanent error is thrown, not retried', async () => {
    nockListComments(github, { number: 3, pages: [[]] });
    const scope = github.scope();
    scope
      .post(`${REPO_PATH}/issues/3/comments`)
      .reply(403, { message: 'Unable to create comment because issue is locked.' });

    await expect(executeEffect(postComment(), github.client())).rejects.toMatchObject({
      status: 403,
      transient: false,
    });
    expect(github.isDone()).toBe(true);
  });
});
