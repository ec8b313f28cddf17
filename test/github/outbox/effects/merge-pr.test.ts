import { describe, expect, it } from 'vitest';
import { executeEffect } from '../../../../app/github/outbox/effect-runner.ts';
import { mergePr } from '../../../support/effect-builders.ts';
import { type ErrorReply, REPO_PATH, useGithubNock } from '../../../support/nock/github-nock.ts';
import { nockGetPull, nockMergePull } from '../../../support/nock/pulls.ts';

const github = useGithubNock();
const MERGE_PATH = `${REPO_PATH}/pulls/3/merge`;

describe('merge_pr', () => {
  it('merges the pull request at the tested head with the queue rule method', async () => {
    nockGetPull(github, { number: 3, headSha: 'pr-3-head' });
    nockMergePull(github, { number: 3, reply: { sha: 'main-2' } });

    const inputs = await executeEffect(mergePr(), github.client());

    expect(inputs).toMatchInlineSnapshot(`
      [
        {
          "number": 3,
          "sha": "main-2",
          "type": "merge_completed",
        },
      ]
    `);
    expect(github.requests).toMatchInlineSnapshot(`
      [
        {
          "request": "GET /repos/acme/widgets/pulls/3",
        },
        {
          "body": {
            "merge_method": "squash",
            "sha": "pr-3-head",
          },
          "request": "PUT /repos/acme/widgets/pulls/3/merge",
        },
      ]
    `);
    expect(github.isDone()).toBe(true);
  });

  describe("GitHub's refusal becomes merge_failed with its reason", () => {
    it.each<[string, ErrorReply]>([
      ['not mergeable (405)', { status: 405, message: 'Pull Request is not mergeable' }],
      [
        'a required review missing (405)',
        { status: 405, message: 'At least 1 approving review is required by reviewers with write access.' },
      ],
      [
        'the head moved since it was tested (409)',
        { status: 409, message: 'Head branch was modified. Review and try the merge again.' },
      ],
      [
        'an invalid merge method (422)',
        { status: 422, message: 'Merge method squash merging is not allowed on this repository.' },
      ],
      ['no permission (403)', { status: 403, message: 'Resource not accessible by integration' }],
    ])('%s', async (_case, reply) => {
      nockGetPull(github, { number: 3, headSha: 'pr-3-head' });
      nockMergePull(github, { number: 3, reply });
      nockGetPull(github, { number: 3, headSha: 'pr-3-head' });

      const inputs = await executeEffect(mergePr(), github.client());

      expect(inputs).toEqual([
        {
          type: 'merge_failed',
          number: 3,
          reason: `GitHub refused the merge (${reply.status}): ${reply.message}`,
        },
      ]);
      expect(github.isDone()).toBe(true);
    });

    it('a pull request closed without merging is not merged', async () => {
      github.mustNot('PUT', MERGE_PATH, 'must not merge a closed pull request');
      nockGetPull(github, { number: 3, headSha: 'pr-3-head', state: 'closed' });

      const inputs = await executeEffect(mergePr(), github.client());

      expect(inputs).toEqual([{ type: 'merge_failed', number: 3, reason: '#3 is closed' }]);
      expect(github.isDone()).toBe(true);
    });
  });

  describe('idempotency', () => {
    it('a second run finds the pull request merged at the tested head and answers merge_completed without merging again', async () => {
      nockGetPull(github, { number: 3, headSha: 'pr-3-head' });
      nockMergePull(github, { number: 3, reply: { sha: 'main-2' } });
      const first = await executeEffect(mergePr(), github.client());

      github.mustNot('PUT', MERGE_PATH, 'must not merge twice');
      nockGetPull(github, {
        number: 3,
        headSha: 'pr-3-head',
        state: 'closed',
        merged: true,
        mergeSha: 'main-2',
      });
      const second = await executeEffect(mergePr(), github.client());

      expect(second).toEqual(first);
      expect(second).toEqual([{ type: 'merge_completed', number: 3, sha: 'main-2' }]);
      expect(github.isDone()).toBe(true);
    });

    it('a merge whose answer was lost, refused on retry, is recognised as done', async () => {
      nockGetPull(github, { number: 3, headSha: 'pr-3-head' });
      nockMergePull(github, { number: 3, reply: { status: 405, message: 'Pull Request is not mergeable' } });
      nockGetPull(github, {
        number: 3,
        headSha: 'pr-3-head',
        state: 'closed',
        merged: true,
        mergeSha: 'main-2',
      });

      const inputs = await executeEffect(mergePr(), github.client());

      expect(inputs).toEqual([{ type: 'merge_completed', number: 3, sha: 'main-2' }]);
      expect(github.isDone()).toBe(true);
    });

    it('a pull request merged by someone else at another head is not the tested merge', async () => {
      github.mustNot('PUT', MERGE_PATH, 'must not merge a merged pull request');
      nockGetPull(github, {
        number: 3,
        headSha: 'pr-3-pushed',
        state: 'closed',
        merged: true,
        mergeSha: 'main-9',
      });

      const inputs = await executeEffect(mergePr(), github.client());

      expect(inputs).toEqual([
        {
          type: 'merge_failed',
          number: 3,
          reason: '#3 was merged at pr-3-pushed, not at the tested pr-3-head',
        },
      ]);
      expect(github.isDone()).toBe(true);
    });
  });

  describe('transient failures throw for the outbox to retry', () => {
    it.each<[string, ErrorReply]>([
      ['a server error', { status: 502, message: 'Server Error' }],
      [
        'the base moving during the merge',
        { status: 405, message: 'Base branch was modified. Review and try the merge again.' },
      ],
    ])('%s', async (_case, reply) => {
      nockGetPull(github, { number: 3, headSha: 'pr-3-head' });
      nockMergePull(github, { number: 3, reply });

      await expect(executeEffect(mergePr(), github.client())).rejects.toMatchObject({
        status: reply.status,
        transient: true,
        githubMessage: reply.message,
      });
      expect(github.isDone()).toBe(true);
    });
  });
});
