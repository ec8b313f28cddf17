import { describe, expect, it } from 'vitest';
import { executeEffect } from '../../../../app/github/outbox/effect-runner.ts';
import { cancelChecks } from '../../../support/effect-builders.ts';
import { nockCancelWorkflowRun, nockListWorkflowRuns } from '../../../support/nock/actions.ts';
import { workflowRunJson } from '../../../support/nock/fixtures.ts';
import { REPO_PATH, useGithubNock } from '../../../support/nock/github-nock.ts';

const github = useGithubNock();

describe('cancel_checks', () => {
  it('cancels the unfinished workflow runs on the commit, across pages', async () => {
    github.mustNot('POST', `${REPO_PATH}/actions/runs/11/cancel`, 'must not cancel a completed run');
    nockListWorkflowRuns(github, {
      sha: 'tested-1',
      pages: [
        [workflowRunJson(11, 'completed'), workflowRunJson(12, 'in_progress')],
        [workflowRunJson(13, 'queued')],
      ],
    });
    nockCancelWorkflowRun(github, { id: 12 });
    nockCancelWorkflowRun(github, { id: 13 });

    await expect(executeEffect(cancelChecks(), github.client())).resolves.toEqual([]);
    expect(github.requests.map((r) => r.request)).toMatchInlineSnapshot(`
      [
        "GET /repos/acme/widgets/actions/runs?head_sha=tested-1&per_page=100",
        "GET /repos/acme/widgets/actions/runs?head_sha=tested-1&per_page=100&page=2",
        "POST /repos/acme/widgets/actions/runs/12/cancel",
        "POST /repos/acme/widgets/actions/runs/13/cancel",
      ]
    `);
    expect(github.isDone()).toBe(true);
  });

  it('a run that completed meanwhile (409) does not stop the others', async () => {
    nockListWorkflowRuns(github, {
      sha: 'tested-1',
      pages: [[workflowRunJson(12, 'in_progress'), workflowRunJson(13, 'in_progress')]],
    });
    nockCancelWorkflowRun(github, {
      id: 12,
      reply: { status: 409, message: 'Cannot cancel a workflow run that is completed.' },
    });
    nockCancelWorkflowRun(github, { id: 13 });

    await expect(executeEffect(cancelChecks(), github.client())).resolves.toEqual([]);
    expect(github.isDone()).toBe(true);
  });

  it('a repository without Actions access is best effort: nothing to cancel', async () => {
    nockListWorkflowRuns(github, {
      sha: 'tested-1',
      status: 403,
      message: 'Resource not accessible by integration',
    });

    await expect(executeEffect(cancelChecks(), github.client())).resolves.toEqual([]);
    expect(github.isDone()).toBe(true);
  });

  it('a server error throws a transient error', async () => {
    nockListWorkflowRuns(github, { sha: 'tested-1', status: 502, message: 'Server Error' });

    await expect(executeEffect(cancelChecks(), github.client())).rejects.toMatchObject({ transient: true });
    expect(github.isDone()).toBe(true);
  });
});
