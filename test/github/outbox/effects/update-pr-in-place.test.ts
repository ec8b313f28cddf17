import { describe, expect, it } from 'vitest';
import { executeEffect } from '../../../../app/github/outbox/effect-runner.ts';
import type { HeadPolling } from '../../../../app/github/outbox/effects/update-pr-in-place.ts';
import { updatePrInPlace } from '../../../support/effect-builders.ts';
import { useGithubNock } from '../../../support/nock/github-nock.ts';
import { nockGetPull, nockUpdatePullBranch } from '../../../support/nock/pulls.ts';

const github = useGithubNock();

/** Records the waits instead of sleeping. */
function polling(delaysMs: number[]): HeadPolling & { slept: number[] } {
  const slept: number[] = [];
  return { delaysMs, slept, sleep: async (ms) => void slept.push(ms) };
}

describe('update_pr_in_place', () => {
  it('asks GitHub to merge the base in, then answers with the head GitHub moved the pull request to', async () => {
    nockGetPull(github, { number: 3, headSha: 'pr-3-head' });
    nockUpdatePullBranch(github, { number: 3 });
    nockGetPull(github, { number: 3, headSha: 'pr-3-head' });
    nockGetPull(github, { number: 3, headSha: 'pr-3-updated' });
    const waits = polling([10, 20, 40]);

    const inputs = await executeEffect(updatePrInPlace(), github.client(), { headPolling: waits });

    expect(inputs).toMatchInlineSnapshot(`
      [
        {
          "attempt": 1,
          "batchId": "batch-a",
          "draftPullRequest": null,
          "sha": "pr-3-updated",
          "type": "test_branch_prepared",
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
            "expected_head_sha": "pr-3-head",
          },
          "request": "PUT /repos/acme/widgets/pulls/3/update-branch",
        },
        {
          "request": "GET /repos/acme/widgets/pulls/3",
        },
        {
          "request": "GET /repos/acme/widgets/pulls/3",
        },
      ]
    `);
    expect(waits.slept).toEqual([10, 20]);
    expect(github.isDone()).toBe(true);
  });

  it('a pull request already up to date is tested at its head (a second run after the update landed)', async () => {
    nockGetPull(github, { number: 3, headSha: 'pr-3-updated' });
    nockUpdatePullBranch(github, {
      number: 3,
      reply: { status: 422, message: 'There are no new commits on the base branch.' },
    });

    const inputs = await executeEffect(updatePrInPlace(), github.client(), { headPolling: polling([10]) });

    expect(inputs).toEqual([
      {
        type: 'test_branch_prepared',
        batchId: 'batch-a',
        attempt: 1,
        sha: 'pr-3-updated',
        draftPullRequest: null,
      },
    ]);
    expect(github.isDone()).toBe(true);
  });

  it('a head GitHub has not moved yet fails as transient, for the outbox to ask again', async () => {
    nockGetPull(github, { number: 3, headSha: 'pr-3-head' });
    nockUpdatePullBranch(github, { number: 3 });
    nockGetPull(github, { number: 3, headSha: 'pr-3-head' });
    nockGetPull(github, { number: 3, headSha: 'pr-3-head' });

    const running = executeEffect(updatePrInPlace(), github.client(), { headPolling: polling([10, 20]) });

    await expect(running).rejects.toMatchObject({ transient: true, status: 202 });
    expect(github.isDone()).toBe(true);
  });

  it('a head pushed between reading and updating fails as transient', async () => {
    nockGetPull(github, { number: 3, headSha: 'pr-3-head' });
    nockUpdatePullBranch(github, {
      number: 3,
      reply: { status: 422, message: "expected head sha didn't match current head ref." },
    });

    const running = executeEffect(updatePrInPlace(), github.client(), { headPolling: polling([10]) });

    await expect(running).rejects.toMatchObject({ transient: true, status: 422 });
    expect(github.isDone()).toBe(true);
  });

  describe('permanent failures become test_branch_failed', () => {
    it('a conflict with the base', async () => {
      nockGetPull(github, { number: 3, headSha: 'pr-3-head' });
      nockUpdatePullBranch(github, {
        number: 3,
        reply: { status: 422, message: 'merge conflict between base and head' },
      });

      const inputs = await executeEffect(updatePrInPlace(), github.client(), { headPolling: polling([10]) });

      expect(inputs).toMatchInlineSnapshot(`
        [
          {
            "attempt": 1,
            "batchId": "batch-a",
            "message": "merge conflict between base and head",
            "pullRequest": 3,
            "reason": "conflict_with_base",
            "type": "test_branch_failed",
          },
        ]
      `);
      expect(github.isDone()).toBe(true);
    });

    it('an update GitHub refuses (a fork that does not allow edits)', async () => {
      nockGetPull(github, { number: 3, headSha: 'pr-3-head' });
      nockUpdatePullBranch(github, {
        number: 3,
        reply: { status: 403, message: 'Resource not accessible by integration' },
      });

      const inputs = await executeEffect(updatePrInPlace(), github.client(), { headPolling: polling([10]) });

      expect(inputs).toMatchObject([
        {
          type: 'test_branch_failed',
          reason: 'branch_update_failed',
          pullRequest: 3,
          message: 'Resource not accessible by integration',
        },
      ]);
      expect(github.isDone()).toBe(true);
    });

    it('a closed pull request is not updated', async () => {
      github.mustNot(
        'PUT',
        '/api/v3/repos/acme/widgets/pulls/3/update-branch',
        'must not update a closed pull request',
      );
      nockGetPull(github, { number: 3, headSha: 'pr-3-head', state: 'closed' });

      const inputs = await executeEffect(updatePrInPlace(), github.client(), { headPolling: polling([10]) });

      expect(inputs).toMatchObject([
        { type: 'test_branch_failed', reason: 'branch_update_failed', message: '#3 is closed' },
      ]);
      expect(github.isDone()).toBe(true);
    });
  });
});
