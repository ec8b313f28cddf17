import { describe, expect, it } from 'vitest';
import { GithubRequestError } from '../../../../app/github/client/errors.ts';
import { productionRequestPolicy, testRequestPolicy } from '../../../../app/github/client/octokit.ts';
import { executeEffect } from '../../../../app/github/outbox/effect-runner.ts';
import { appIdentityOf } from '../../../../app/github/outbox/effects/ownership.ts';
import { prepareTestBranch } from '../../../support/effect-builders.ts';
import { APP_BOT } from '../../../support/nock/fixtures.ts';
import { REPO_PATH, useGithubNock } from '../../../support/nock/github-nock.ts';
import { mergeConflict, nockMergeBranches } from '../../../support/nock/merges.ts';
import { nockCreatePull, nockFindPullsByHead, nockGetPull } from '../../../support/nock/pulls.ts';
import { nockDeleteRef, nockGetRef, nockSetBranch, refPath } from '../../../support/nock/refs.ts';

const github = useGithubNock();
const BRANCH = 'trainyard/merge-queue/0a1b2c3d';
const WORK = `${BRANCH}-work`;
const identity = appIdentityOf('trainyard');
/** The app's open draft from the test branch. */
const nockOwnDraft = (number: number) =>
  nockGetPull(github, { number, headSha: 'test-head', head: BRANCH, draft: true, user: APP_BOT });

/** The merges on the work branch, the test branch moved to the result, the work branch deleted. */
function nockBuild(params: { start: string; merged: string[]; testBranchExists: boolean }) {
  nockSetBranch(github, { branch: WORK, sha: params.start, exists: false });
  for (const sha of params.merged) nockMergeBranches(github, { reply: { sha } });
  nockSetBranch(github, { branch: BRANCH, sha: params.merged.at(-1)!, exists: params.testBranchExists });
  nockDeleteRef(github, { branch: WORK });
}

describe('prepare_test_branch', () => {
  it('merges each pull request into the base on a work branch, moves the test branch there and opens the draft', async () => {
    nockGetRef(github, { branch: 'main', sha: 'main-1' });
    nockBuild({ start: 'main-1', merged: ['merge-1', 'merge-2'], testBranchExists: false });
    nockFindPullsByHead(github, { branch: BRANCH, open: [] });
    nockCreatePull(github, { reply: { number: 50, branch: BRANCH } });

    const inputs = await executeEffect(prepareTestBranch(), github.client());

    expect(inputs).toMatchInlineSnapshot(`
      [
        {
          "attempt": 1,
          "batchId": "batch-a",
          "draftPullRequest": 50,
          "sha": "merge-2",
          "trees": [
            "tree-of-merge-1",
            "tree-of-merge-2",
          ],
          "type": "test_branch_prepared",
        },
      ]
    `);
    expect(github.requests).toMatchInlineSnapshot(`
      [
        {
          "request": "GET /repos/acme/widgets/git/ref/heads%2Fmain",
        },
        {
          "body": {
            "force": true,
            "sha": "main-1",
          },
          "request": "PATCH /repos/acme/widgets/git/refs/heads%2Ftrainyard%2Fmerge-queue%2F0a1b2c3d-work",
        },
        {
          "body": {
            "ref": "refs/heads/trainyard/merge-queue/0a1b2c3d-work",
            "sha": "main-1",
          },
          "request": "POST /repos/acme/widgets/git/refs",
        },
        {
          "body": {
            "base": "trainyard/merge-queue/0a1b2c3d-work",
            "commit_message": "Merge #1 (pr-1-head) into trainyard/merge-queue/0a1b2c3d

      Trainyard batch batch-a, attempt 1: #1, #2 on main.",
            "head": "pr-1-head",
          },
          "request": "POST /repos/acme/widgets/merges",
        },
        {
          "body": {
            "base": "trainyard/merge-queue/0a1b2c3d-work",
            "commit_message": "Merge #2 (pr-2-head) into trainyard/merge-queue/0a1b2c3d

      Trainyard batch batch-a, attempt 1: #1, #2 on main.",
            "head": "pr-2-head",
          },
          "request": "POST /repos/acme/widgets/merges",
        },
        {
          "body": {
            "force": true,
            "sha": "merge-2",
          },
          "request": "PATCH /repos/acme/widgets/git/refs/heads%2Ftrainyard%2Fmerge-queue%2F0a1b2c3d",
        },
        {
          "body": {
            "ref": "refs/heads/trainyard/merge-queue/0a1b2c3d",
            "sha": "merge-2",
          },
          "request": "POST /repos/acme/widgets/git/refs",
        },
        {
          "request": "DELETE /repos/acme/widgets/git/refs/heads%2Ftrainyard%2Fmerge-queue%2F0a1b2c3d-work",
        },
        {
          "request": "GET /repos/acme/widgets/pulls?head=acme%3Atrainyard%2Fmerge-queue%2F0a1b2c3d&state=open&per_page=100",
        },
        {
          "body": {
            "base": "main",
            "body": "Testing #1, #2 on top of main (queue rule default).",
            "draft": true,
            "head": "trainyard/merge-queue/0a1b2c3d",
            "title": "merge queue: batch-a — #1, #2",
          },
          "request": "POST /repos/acme/widgets/pulls",
        },
      ]
    `);
    expect(github.isDone()).toBe(true);
  });

  it('builds on baseSha without reading the base, and opens no draft when none is asked for', async () => {
    github.mustNot('GET', `${REPO_PATH}/git/ref/${refPath('main')}`, 'must not read the base');
    github.mustNot('POST', `${REPO_PATH}/pulls`, 'must not open a draft');
    nockBuild({ start: 'batch-ahead-1', merged: ['merge-3'], testBranchExists: false });

    const inputs = await executeEffect(
      prepareTestBranch({
        baseSha: 'batch-ahead-1',
        pullRequests: [{ number: 3, headSha: 'pr-3-head' }],
        draftPullRequest: null,
      }),
      github.client(),
    );

    expect(inputs).toMatchInlineSnapshot(`
      [
        {
          "attempt": 1,
          "batchId": "batch-a",
          "draftPullRequest": null,
          "sha": "merge-3",
          "trees": [
            "tree-of-merge-3",
          ],
          "type": "test_branch_prepared",
        },
      ]
    `);
    expect(github.requests.map((r) => r.request)).toMatchInlineSnapshot(`
      [
        "PATCH /repos/acme/widgets/git/refs/heads%2Ftrainyard%2Fmerge-queue%2F0a1b2c3d-work",
        "POST /repos/acme/widgets/git/refs",
        "POST /repos/acme/widgets/merges",
        "PATCH /repos/acme/widgets/git/refs/heads%2Ftrainyard%2Fmerge-queue%2F0a1b2c3d",
        "POST /repos/acme/widgets/git/refs",
        "DELETE /repos/acme/widgets/git/refs/heads%2Ftrainyard%2Fmerge-queue%2F0a1b2c3d-work",
      ]
    `);
    expect(github.isDone()).toBe(true);
  });

  it('answers test_branch_prepared at the branch head when a head was already merged (204)', async () => {
    nockGetRef(github, { branch: 'main', sha: 'main-1' });
    nockSetBranch(github, { branch: WORK, sha: 'main-1', exists: false });
    nockMergeBranches(github, { reply: 'nothing_to_merge' });
    nockGetRef(github, { branch: WORK, sha: 'main-1' });
    nockSetBranch(github, { branch: BRANCH, sha: 'main-1', exists: true });
    nockDeleteRef(github, { branch: WORK });

    const inputs = await executeEffect(
      prepareTestBranch({ pullRequests: [{ number: 1, headSha: 'pr-1-head' }], draftPullRequest: null }),
      github.client(),
    );

    expect(inputs).toEqual([
      // 204 says nothing of the tree: unknown (merge integrity then reads the tested commit).
      {
        type: 'test_branch_prepared',
        batchId: 'batch-a',
        attempt: 1,
        sha: 'main-1',
        draftPullRequest: null,
        trees: [null],
      },
    ]);
    expect(github.isDone()).toBe(true);
  });

  describe('permanent failures become test_branch_failed', () => {
    it('the first pull request conflicting is a conflict with the base', async () => {
      github.mustNot('PATCH', `${REPO_PATH}/git/refs/${refPath(BRANCH)}`, 'must not move the test branch');
      nockGetRef(github, { branch: 'main', sha: 'main-1' });
      nockSetBranch(github, { branch: WORK, sha: 'main-1', exists: false });
      nockMergeBranches(github, { reply: mergeConflict });
      nockDeleteRef(github, { branch: WORK });

      const inputs = await executeEffect(prepareTestBranch(), github.client());

      expect(inputs).toMatchInlineSnapshot(`
        [
          {
            "attempt": 1,
            "batchId": "batch-a",
            "message": "Merge conflict",
            "pullRequest": 1,
            "reason": "conflict_with_base",
            "type": "test_branch_failed",
          },
        ]
      `);
      expect(github.isDone()).toBe(true);
    });

    it('a later pull request conflicting is a conflict with the pull requests before it', async () => {
      nockGetRef(github, { branch: 'main', sha: 'main-1' });
      nockSetBranch(github, { branch: WORK, sha: 'main-1', exists: false });
      nockMergeBranches(github, { reply: { sha: 'merge-1' } });
      nockMergeBranches(github, { reply: mergeConflict });
      nockDeleteRef(github, { branch: WORK });

      const inputs = await executeEffect(prepareTestBranch(), github.client());

      expect(inputs).toEqual([
        {
          type: 'test_branch_failed',
          batchId: 'batch-a',
          attempt: 1,
          reason: 'conflict_with_pull_request',
          pullRequest: 2,
          message: 'Merge conflict',
        },
      ]);
      expect(github.isDone()).toBe(true);
    });

    it('a base branch that does not exist', async () => {
      nockGetRef(github, { branch: 'main', sha: null });

      const inputs = await executeEffect(prepareTestBranch(), github.client());

      expect(inputs).toEqual([
        {
          type: 'test_branch_failed',
          batchId: 'batch-a',
          attempt: 1,
          reason: 'branch_update_failed',
          pullRequest: null,
          message: 'base branch main does not exist',
        },
      ]);
      expect(github.isDone()).toBe(true);
    });

    it('a pull request head GitHub does not know', async () => {
      nockGetRef(github, { branch: 'main', sha: 'main-1' });
      nockSetBranch(github, { branch: WORK, sha: 'main-1', exists: false });
      nockMergeBranches(github, { reply: { status: 404, message: 'Head does not exist' } });
      nockDeleteRef(github, { branch: WORK });

      const inputs = await executeEffect(prepareTestBranch(), github.client());

      expect(inputs).toMatchObject([
        { reason: 'branch_update_failed', pullRequest: 1, message: 'head pr-1-head of #1 not found' },
      ]);
      expect(github.isDone()).toBe(true);
    });

    it('a draft pull request GitHub refuses', async () => {
      nockGetRef(github, { branch: 'main', sha: 'main-1' });
      nockBuild({ start: 'main-1', merged: ['merge-1', 'merge-2'], testBranchExists: true });
      nockFindPullsByHead(github, { branch: BRANCH, open: [] });
      nockCreatePull(github, {
        reply: { status: 422, message: 'Draft pull requests are not supported in this repository.' },
      });
      nockFindPullsByHead(github, { branch: BRANCH, open: [] });

      const inputs = await executeEffect(prepareTestBranch(), github.client());

      expect(inputs).toMatchInlineSnapshot(`
        [
          {
            "attempt": 1,
            "batchId": "batch-a",
            "message": "Draft pull requests are not supported in this repository.",
            "pullRequest": null,
            "reason": "draft_pull_request_creation_failed",
            "type": "test_branch_failed",
          },
        ]
      `);
      expect(github.isDone()).toBe(true);
    });

    it('a head branch GitHub has not indexed yet', async () => {
      nockGetRef(github, { branch: 'main', sha: 'main-1' });
      nockBuild({ start: 'main-1', merged: ['merge-1', 'merge-2'], testBranchExists: true });
      nockFindPullsByHead(github, { branch: BRANCH, open: [] });
      nockCreatePull(github, {
        reply: {
          status: 422,
          message: 'Validation Failed',
          errors: [{ resource: 'PullRequest', field: 'head', code: 'invalid' }],
        },
      });
      nockFindPullsByHead(github, { branch: BRANCH, open: [] });

      const inputs = await executeEffect(prepareTestBranch(), github.client());

      expect(inputs).toMatchObject([
        {
          type: 'test_branch_failed',
          reason: 'branch_not_indexed',
          message: 'Validation Failed: PullRequest head invalid',
        },
      ]);
      expect(github.isDone()).toBe(true);
    });
  });

  describe('idempotency', () => {
    it('a second run rebuilds the branch and reuses the open draft instead of opening another', async () => {
      nockGetRef(github, { branch: 'main', sha: 'main-1' });
      nockBuild({ start: 'main-1', merged: ['merge-1', 'merge-2'], testBranchExists: false });
      nockFindPullsByHead(github, { branch: BRANCH, open: [] });
      nockCreatePull(github, { reply: { number: 50, branch: BRANCH } });
      const first = await executeEffect(prepareTestBranch(), github.client());
      expect(github.isDone()).toBe(true);

      github.mustNot('POST', `${REPO_PATH}/pulls`, 'must not open a second draft');
      nockGetRef(github, { branch: 'main', sha: 'main-1' });
      nockBuild({ start: 'main-1', merged: ['merge-1b', 'merge-2b'], testBranchExists: true });
      nockFindPullsByHead(github, { branch: BRANCH, open: [50] });
      nockOwnDraft(50);
      const second = await executeEffect(prepareTestBranch(), github.client(), { identity });

      expect(first).toMatchObject([{ type: 'test_branch_prepared', draftPullRequest: 50 }]);
      expect(second).toMatchObject([{ type: 'test_branch_prepared', sha: 'merge-2b', draftPullRequest: 50 }]);
      expect(github.isDone()).toBe(true);
    });

    it('a draft whose creation answer was lost ("already exists") is found and reused', async () => {
      nockGetRef(github, { branch: 'main', sha: 'main-1' });
      nockBuild({ start: 'main-1', merged: ['merge-1', 'merge-2'], testBranchExists: true });
      nockFindPullsByHead(github, { branch: BRANCH, open: [] });
      nockCreatePull(github, {
        reply: {
          status: 422,
          message: 'Validation Failed',
          errors: [
            {
              resource: 'PullRequest',
              code: 'custom',
              message: `A pull request already exists for acme:${BRANCH}.`,
            },
          ],
        },
      });
      nockFindPullsByHead(github, { branch: BRANCH, open: [50] });
      nockOwnDraft(50);

      const inputs = await executeEffect(prepareTestBranch(), github.client(), { identity });

      expect(inputs).toMatchObject([{ type: 'test_branch_prepared', draftPullRequest: 50 }]);
      expect(github.isDone()).toBe(true);
    });
  });

  describe("only the app's own (crash test C2)", () => {
    it("a person's open pull request from the test branch is not taken for the draft", async () => {
      nockGetRef(github, { branch: 'main', sha: 'main-1' });
      nockBuild({ start: 'main-1', merged: ['merge-1', 'merge-2'], testBranchExists: true });
      nockFindPullsByHead(github, { branch: BRANCH, open: [60] });
      nockGetPull(github, { number: 60, headSha: 'test-head', head: BRANCH });
      const warnings: string[] = [];

      const inputs = await executeEffect(prepareTestBranch(), github.client(), {
        identity,
        log: { warn: (_details, message) => warnings.push(message) },
      });

      expect(inputs).toMatchObject([
        {
          type: 'test_branch_failed',
          reason: 'draft_pull_request_creation_failed',
          message: `#60, open from ${BRANCH}, is not the app's draft pull request`,
        },
      ]);
      expect(warnings).toEqual([
        'prepare_test_branch: an open pull request from the test branch is not the app’s; left alone',
      ]);
      expect(github.isDone()).toBe(true);
    });

    it.each(['main', 'alice/feature', 'trainyard/merge-queue/release'])(
      'a branch not named as a test branch (%s) is never force-moved or deleted',
      async (branch) => {
        const warnings: string[] = [];
        const inputs = await executeEffect(prepareTestBranch({ branch }), github.client(), {
          identity,
          log: { warn: (_details, message) => warnings.push(message) },
        });

        expect(inputs).toMatchObject([
          { type: 'test_branch_failed', reason: 'branch_update_failed', pullRequest: null },
        ]);
        expect(github.requests).toEqual([]);
        expect(warnings).toEqual(['prepare_test_branch: not a test branch name; left alone']);
      },
    );
  });

  describe('transient failures', () => {
    it('throw a transient error when retries are off, so the outbox runs the effect again', async () => {
      nockGetRef(github, { branch: 'main', sha: 'main-1' });
      nockSetBranch(github, { branch: WORK, sha: 'main-1', exists: false });
      nockMergeBranches(github, { reply: { status: 502, message: 'Server Error' } });

      const running = executeEffect(prepareTestBranch(), github.client(testRequestPolicy));

      await expect(running).rejects.toBeInstanceOf(GithubRequestError);
      await expect(running).rejects.toMatchObject({ status: 502, transient: true });
      expect(github.isDone()).toBe(true);
    });

    it('are retried inside the request when retries are on', async () => {
      nockGetRef(github, { branch: 'main', sha: 'main-1' });
      nockSetBranch(github, { branch: WORK, sha: 'main-1', exists: false });
      nockMergeBranches(github, { reply: { status: 502, message: 'Server Error' } });
      nockMergeBranches(github, { reply: { sha: 'merge-1' } });
      nockSetBranch(github, { branch: BRANCH, sha: 'merge-1', exists: true });
      nockDeleteRef(github, { branch: WORK });
      // nock intercepts the global fetch.
      const policy = {
        ...productionRequestPolicy,
        http: 'global-fetch' as const,
        retryBaseDelayMs: 0,
        throttle: false,
      };

      const inputs = await executeEffect(
        prepareTestBranch({ pullRequests: [{ number: 1, headSha: 'pr-1-head' }], draftPullRequest: null }),
        github.client(policy),
      );

      expect(inputs).toMatchObject([{ type: 'test_branch_prepared', sha: 'merge-1' }]);
      expect(github.isDone()).toBe(true);
    });
  });
});
