import { describe, expect, it } from 'vitest';
import { executeEffect } from '../../../../app/github/outbox/effect-runner.ts';
import { publishCheckRun } from '../../../support/effect-builders.ts';
import { nockCreateCheckRun, nockListCheckRuns, nockUpdateCheckRun } from '../../../support/nock/checks.ts';
import { checkRunJson } from '../../../support/nock/fixtures.ts';
import { REPO_PATH, useGithubNock } from '../../../support/nock/github-nock.ts';

const github = useGithubNock();
const APP_ID = 777;
/** The lookup of our own run: by name, and by the app's id. */
const lookup = { check_name: 'Trainyard', app_id: String(APP_ID) };

describe('publish_check_run', () => {
  it('creates the "Trainyard" check run on the head when there is none', async () => {
    nockListCheckRuns(github, { sha: 'pr-3-head', query: lookup, pages: [[]] });
    nockCreateCheckRun(github, { id: 31 });

    const inputs = await executeEffect(publishCheckRun(), github.client(undefined, { appId: APP_ID }));

    expect(inputs).toEqual([]);
    expect(github.requests).toMatchInlineSnapshot(`
      [
        {
          "request": "GET /repos/acme/widgets/commits/pr-3-head/check-runs?check_name=Trainyard&app_id=777&per_page=100",
        },
        {
          "body": {
            "head_sha": "pr-3-head",
            "name": "Trainyard",
            "output": {
              "summary": "Position 2 in queue \`default\` (priority medium, partition \`__default__\`).

      Waiting for a batch: the pull requests ahead are tested first.",
              "title": "Waiting in queue default at position 2",
            },
            "status": "queued",
          },
          "request": "POST /repos/acme/widgets/check-runs",
        },
      ]
    `);
    expect(github.isDone()).toBe(true);
  });

  it('updates the existing run, with its conclusion once completed, instead of creating a second', async () => {
    github.mustNot('POST', `${REPO_PATH}/check-runs`, 'must not create a second check run');
    nockListCheckRuns(github, {
      sha: 'pr-3-head',
      query: lookup,
      pages: [[checkRunJson({ id: 31, name: 'Trainyard', status: 'in_progress', conclusion: null })]],
    });
    nockUpdateCheckRun(github, { id: 31 });

    await executeEffect(
      publishCheckRun({
        status: 'completed',
        conclusion: 'success',
        details: { kind: 'left', merged: true, code: 'PR_MERGED', detail: null },
      }),
      github.client(undefined, { appId: APP_ID }),
    );

    expect(github.requests.at(-1)).toMatchInlineSnapshot(`
      {
        "body": {
          "conclusion": "success",
          "output": {
            "summary": "Merged by the merge queue.",
            "title": "Merged by the merge queue",
          },
          "status": "completed",
        },
        "request": "PATCH /repos/acme/widgets/check-runs/31",
      }
    `);
    expect(github.isDone()).toBe(true);
  });

  it('running twice leaves one check run', async () => {
    nockListCheckRuns(github, { sha: 'pr-3-head', query: lookup, pages: [[]] });
    nockCreateCheckRun(github, { id: 31 });
    await executeEffect(publishCheckRun(), github.client(undefined, { appId: APP_ID }));

    github.mustNot('POST', `${REPO_PATH}/check-runs`, 'must not create a second check run');
    nockListCheckRuns(github, {
      sha: 'pr-3-head',
      query: lookup,
      pages: [[checkRunJson({ id: 31, name: 'Trainyard', status: 'queued', conclusion: null })]],
    });
    nockUpdateCheckRun(github, { id: 31 });
    await executeEffect(publishCheckRun(), github.client(undefined, { appId: APP_ID }));

    expect(github.requests.map((r) => r.request)).toMatchInlineSnapshot(`
      [
        "GET /repos/acme/widgets/commits/pr-3-head/check-runs?check_name=Trainyard&app_id=777&per_page=100",
        "POST /repos/acme/widgets/check-runs",
        "GET /repos/acme/widgets/commits/pr-3-head/check-runs?check_name=Trainyard&app_id=777&per_page=100",
        "PATCH /repos/acme/widgets/check-runs/31",
      ]
    `);
    expect(github.isDone()).toBe(true);
  });
});
