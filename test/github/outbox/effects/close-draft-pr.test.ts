import { describe, expect, it } from 'vitest';
import { executeEffect } from '../../../../app/github/outbox/effect-runner.ts';
import { appIdentityOf } from '../../../../app/github/outbox/effects/ownership.ts';
import { closeDraftPr } from '../../../support/effect-builders.ts';
import { APP_BOT } from '../../../support/nock/fixtures.ts';
import { useGithubNock } from '../../../support/nock/github-nock.ts';
import { nockFindPullsByHead, nockGetPull, nockUpdatePull } from '../../../support/nock/pulls.ts';
import { nockDeleteRef } from '../../../support/nock/refs.ts';

const github = useGithubNock();
const BRANCH = 'trainyard/merge-queue/0a1b2c3d';

/** What the effect runner passes: the app's identity and a logger (here, the warnings kept). */
function owner() {
  const warnings: { details: object; message: string }[] = [];
  return {
    identity: appIdentityOf('trainyard'),
    log: { warn: (details: object, message: string) => warnings.push({ details, message }) },
    warnings,
  };
}

/** The app's open draft from the test branch. */
const nockOwnDraft = (number: number, state: 'open' | 'closed' = 'open') =>
  nockGetPull(github, { number, headSha: 'test-head', head: BRANCH, draft: true, state, user: APP_BOT });

describe('close_draft_pr', () => {
  it('closes the draft and deletes the test branch and any work branch left behind', async () => {
    nockOwnDraft(50);
    nockUpdatePull(github, { number: 50 });
    nockDeleteRef(github, { branch: BRANCH });
    nockDeleteRef(github, { branch: `${BRANCH}-work`, missing: true });

    const inputs = await executeEffect(closeDraftPr(), github.client(), owner());

    expect(inputs).toEqual([]);
    expect(github.requests).toMatchInlineSnapshot(`
      [
        {
          "request": "GET /repos/acme/widgets/pulls/50",
        },
        {
          "body": {
            "state": "closed",
          },
          "request": "PATCH /repos/acme/widgets/pulls/50",
        },
        {
          "request": "DELETE /repos/acme/widgets/git/refs/heads%2Ftrainyard%2Fmerge-queue%2F0a1b2c3d",
        },
        {
          "request": "DELETE /repos/acme/widgets/git/refs/heads%2Ftrainyard%2Fmerge-queue%2F0a1b2c3d-work",
        },
      ]
    `);
    expect(github.isDone()).toBe(true);
  });

  it('finds the draft by its head when the engine never learned its number', async () => {
    nockFindPullsByHead(github, { branch: BRANCH, open: [51] });
    nockOwnDraft(51);
    nockUpdatePull(github, { number: 51 });
    nockDeleteRef(github, { branch: BRANCH });
    nockDeleteRef(github, { branch: `${BRANCH}-work`, missing: true });

    await executeEffect(closeDraftPr({ draftPullRequest: null }), github.client(), owner());

    expect(github.requests.map((r) => r.request)).toContain('PATCH /repos/acme/widgets/pulls/51');
    expect(github.isDone()).toBe(true);
  });

  it('a second run, with the draft closed and the branches gone, does no harm', async () => {
    nockOwnDraft(50, 'closed');
    nockDeleteRef(github, { branch: BRANCH, missing: true });
    nockDeleteRef(github, { branch: `${BRANCH}-work`, missing: true });

    await expect(executeEffect(closeDraftPr(), github.client(), owner())).resolves.toEqual([]);
    expect(github.requests.map((r) => r.request)).not.toContain('PATCH /repos/acme/widgets/pulls/50');
    expect(github.isDone()).toBe(true);
  });

  it('a draft that no longer exists is not an error', async () => {
    nockGetPull(github, { number: 50, status: 404, message: 'Not Found' });
    nockDeleteRef(github, { branch: BRANCH, missing: true });
    nockDeleteRef(github, { branch: `${BRANCH}-work`, missing: true });

    await expect(executeEffect(closeDraftPr(), github.client(), owner())).resolves.toEqual([]);
    expect(github.isDone()).toBe(true);
  });

  it('a server error throws a transient error', async () => {
    nockOwnDraft(50);
    nockUpdatePull(github, { number: 50, reply: { status: 503, message: 'Service Unavailable' } });

    await expect(executeEffect(closeDraftPr(), github.client(), owner())).rejects.toMatchObject({
      transient: true,
    });
    expect(github.isDone()).toBe(true);
  });

  describe("only the app's own (crash test C2: a rolled-back code host gave a lost draft's number to a person's pull request)", () => {
    it("a person's pull request under the draft's number is left open, with a warning; the test branch still goes", async () => {
      nockGetPull(github, { number: 50, headSha: 'feature-head', head: 'alice/feature' });
      nockFindPullsByHead(github, { branch: BRANCH, open: [] });
      nockDeleteRef(github, { branch: BRANCH, missing: true });
      nockDeleteRef(github, { branch: `${BRANCH}-work`, missing: true });
      github.mustNot('PATCH', '/repos/acme/widgets/pulls/50', "must not close a person's pull request");
      const o = owner();

      await expect(executeEffect(closeDraftPr(), github.client(), o)).resolves.toEqual([]);

      expect(o.warnings).toEqual([
        {
          details: {
            key: 'close_draft_pr:batch-a',
            pullRequest: 50,
            author: 'author-50',
            head: 'alice/feature',
          },
          message: 'close_draft_pr: the pull request is not the app’s draft of this test branch; left alone',
        },
      ]);
      expect(github.isDone()).toBe(true);
    });

    it("a person's pull request from the test branch is left open", async () => {
      nockFindPullsByHead(github, { branch: BRANCH, open: [52] });
      nockGetPull(github, { number: 52, headSha: 'test-head', head: BRANCH });
      nockDeleteRef(github, { branch: BRANCH });
      nockDeleteRef(github, { branch: `${BRANCH}-work`, missing: true });
      github.mustNot('PATCH', '/repos/acme/widgets/pulls/52', "must not close a person's pull request");
      const o = owner();

      await executeEffect(closeDraftPr({ draftPullRequest: null }), github.client(), o);

      expect(o.warnings.map((w) => w.details)).toMatchObject([{ pullRequest: 52 }]);
      expect(github.isDone()).toBe(true);
    });

    it("another bot's pull request, or one from another branch, is not the app's draft", async () => {
      nockGetPull(github, {
        number: 50,
        headSha: 'x',
        head: BRANCH,
        user: { login: 'dependabot[bot]', type: 'Bot' },
      });
      nockFindPullsByHead(github, { branch: BRANCH, open: [53] });
      nockGetPull(github, {
        number: 53,
        headSha: 'x',
        head: 'trainyard/merge-queue/ffffffff',
        user: APP_BOT,
      });
      nockDeleteRef(github, { branch: BRANCH, missing: true });
      nockDeleteRef(github, { branch: `${BRANCH}-work`, missing: true });
      github.mustNot('PATCH', '/repos/acme/widgets/pulls/50', 'must not close it');
      github.mustNot('PATCH', '/repos/acme/widgets/pulls/53', 'must not close it');
      const o = owner();

      await executeEffect(closeDraftPr(), github.client(), o);

      expect(o.warnings).toHaveLength(2);
      expect(github.isDone()).toBe(true);
    });

    it('without the app identity nothing is closed', async () => {
      nockGetPull(github, { number: 50, headSha: 'test-head', head: BRANCH, user: APP_BOT });
      nockFindPullsByHead(github, { branch: BRANCH, open: [50] });
      nockDeleteRef(github, { branch: BRANCH });
      nockDeleteRef(github, { branch: `${BRANCH}-work`, missing: true });
      github.mustNot('PATCH', '/repos/acme/widgets/pulls/50', 'must not close it');

      await executeEffect(closeDraftPr(), github.client());
      expect(github.isDone()).toBe(true);
    });

    it.each([
      'main',
      'alice/feature',
      'trainyard/merge-queue/',
      'trainyard/merge-queue/release',
      'trainyard/merge-queue/0a1b2c3d/x',
    ])(
      'a branch not named as a test branch (%s) is neither deleted nor its pull request closed',
      async (branch) => {
        const o = owner();

        await expect(executeEffect(closeDraftPr({ branch }), github.client(), o)).resolves.toEqual([]);

        expect(github.requests).toEqual([]);
        expect(o.warnings.map((w) => w.message)).toEqual([
          'close_draft_pr: not a test branch of the app; left alone',
        ]);
      },
    );
  });
});
