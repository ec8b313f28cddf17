import { describe, expect, it } from 'vitest';
import { executeEffect } from '../../../../app/github/outbox/effect-runner.ts';
import { fastForwardBase } from '../../../support/effect-builders.ts';
import { REPO_PATH, useGithubNock } from '../../../support/nock/github-nock.ts';
import { nockGetRef, nockUpdateRef, refPath } from '../../../support/nock/refs.ts';

const github = useGithubNock();

describe('fast_forward_base', () => {
  it('moves the base to the tested commit without force, merging every pull request of the batch', async () => {
    nockGetRef(github, { branch: 'main', sha: 'main-1' });
    nockUpdateRef(github, { branch: 'main', sha: 'tested-1' });

    const inputs = await executeEffect(fastForwardBase(), github.client());

    expect(inputs).toMatchInlineSnapshot(`
      [
        {
          "number": 1,
          "sha": "tested-1",
          "type": "merge_completed",
        },
        {
          "number": 2,
          "sha": "tested-1",
          "type": "merge_completed",
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
            "force": false,
            "sha": "tested-1",
          },
          "request": "PATCH /repos/acme/widgets/git/refs/heads%2Fmain",
        },
      ]
    `);
    expect(github.isDone()).toBe(true);
  });

  it('a base already at the tested commit (a second run) is a success without another update', async () => {
    github.mustNot('PATCH', `${REPO_PATH}/git/refs/${refPath('main')}`, 'must not move the base again');
    nockGetRef(github, { branch: 'main', sha: 'tested-1' });

    const inputs = await executeEffect(fastForwardBase(), github.client());

    expect(inputs).toEqual([
      { type: 'merge_completed', number: 1, sha: 'tested-1' },
      { type: 'merge_completed', number: 2, sha: 'tested-1' },
    ]);
    expect(github.isDone()).toBe(true);
  });

  it('a base that moved elsewhere is refused: each pull request gets merge_failed with the reason', async () => {
    nockGetRef(github, { branch: 'main', sha: 'main-2' });
    nockUpdateRef(github, {
      branch: 'main',
      sha: 'tested-1',
      reply: { status: 422, message: 'Update is not a fast forward' },
    });

    const inputs = await executeEffect(fastForwardBase(), github.client());

    expect(inputs).toMatchInlineSnapshot(`
      [
        {
          "number": 1,
          "reason": "GitHub refused to fast-forward main to tested-1 (422): Update is not a fast forward",
          "type": "merge_failed",
        },
        {
          "number": 2,
          "reason": "GitHub refused to fast-forward main to tested-1 (422): Update is not a fast forward",
          "type": "merge_failed",
        },
      ]
    `);
    expect(github.isDone()).toBe(true);
  });

  it('a protected base refuses the update', async () => {
    nockGetRef(github, { branch: 'main', sha: 'main-1' });
    nockUpdateRef(github, {
      branch: 'main',
      sha: 'tested-1',
      reply: { status: 422, message: 'Protected branch update failed for refs/heads/main.' },
    });

    const inputs = await executeEffect(fastForwardBase({ numbers: [4] }), github.client());

    expect(inputs).toEqual([
      {
        type: 'merge_failed',
        number: 4,
        reason:
          'GitHub refused to fast-forward main to tested-1 (422): Protected branch update failed for refs/heads/main.',
      },
    ]);
    expect(github.isDone()).toBe(true);
  });

  it('a base branch that was deleted', async () => {
    nockGetRef(github, { branch: 'main', sha: null });

    const inputs = await executeEffect(fastForwardBase({ numbers: [4] }), github.client());

    expect(inputs).toEqual([{ type: 'merge_failed', number: 4, reason: 'base branch main does not exist' }]);
    expect(github.isDone()).toBe(true);
  });
});
