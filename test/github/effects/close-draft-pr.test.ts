import { describe, expect, it } from 'vitest';
import { executeEffect } from '../../../app/github/effects/execute-effect.ts';
import { closeDraftPr } from '../../support/effect-builders.ts';
import { useGithubNock } from '../../support/nock/github-nock.ts';
import { nockFindPullsByHead, nockUpdatePull } from '../../support/nock/pulls.ts';
import { nockDeleteRef } from '../../support/nock/refs.ts';

const github = useGithubNock();
const BRANCH = 'trainyard/merge-queue/a1';

describe('close_draft_pr', () => {
  it('closes the draft and deletes the test branch and any work branch left behind', async () => {
    nockUpdatePull(github, { number: 50 });
    nockDeleteRef(github, { branch: BRANCH });
    nockDeleteRef(github, { branch: `${BRANCH}-work`, missing: true });

    const inputs = await executeEffect(closeDraftPr(), github.client());

    expect(inputs).toEqual([]);
    expect(github.requests).toMatchInlineSnapshot(`
      [
        {
          "body": {
            "state": "closed",
          },
          "request": "PATCH /repos/acme/widgets/pulls/50",
        },
        {
          "request": "DELETE /repos/acme/widgets/git/refs/heads%2Ftrainyard%2Fmerge-queue%2Fa1",
        },
        {
          "request": "DELETE /repos/acme/widgets/git/refs/heads%2Ftrainyard%2Fmerge-queue%2Fa1-work",
        },
      ]
    `);
    expect(github.isDone()).toBe(true);
  });

  it('finds the draft by its head when the engine never learned its number', async () => {
    nockFindPullsByHead(github, { branch: BRANCH, open: [51] });
    nockUpdatePull(github, { number: 51 });
    nockDeleteRef(github, { branch: BRANCH });
    nockDeleteRef(github, { branch: `${BRANCH}-work`, missing: true });

    await executeEffect(closeDraftPr({ draftPullRequest: null }), github.client());

    expect(github.requests.map((r) => r.request)).toContain('PATCH /repos/acme/widgets/pulls/51');
    expect(github.isDone()).toBe(true);
  });

  it('a second run, with the draft closed and the branches gone, does no harm', async () => {
    nockUpdatePull(github, { number: 50 });
    nockDeleteRef(github, { branch: BRANCH, missing: true });
    nockDeleteRef(github, { branch: `${BRANCH}-work`, missing: true });

    await expect(executeEffect(closeDraftPr(), github.client())).resolves.toEqual([]);
    expect(github.isDone()).toBe(true);
  });

  it('a draft that no longer exists is not an error', async () => {
    nockUpdatePull(github, { number: 50, reply: { status: 404, message: 'Not Found' } });
    nockDeleteRef(github, { branch: BRANCH, missing: true });
    nockDeleteRef(github, { branch: `${BRANCH}-work`, missing: true });

    await expect(executeEffect(closeDraftPr(), github.client())).resolves.toEqual([]);
    expect(github.isDone()).toBe(true);
  });

  it('a server error throws a transient error', async () => {
    nockUpdatePull(github, { number: 50, reply: { status: 503, message: 'Service Unavailable' } });

    await expect(executeEffect(closeDraftPr(), github.client())).rejects.toMatchObject({ transient: true });
    expect(github.isDone()).toBe(true);
  });
});
