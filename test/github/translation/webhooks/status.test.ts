import { describe, expect, it } from 'vitest';
import { FactsCache } from '../../../../app/github/translation/facts-cache.ts';
import { fetchFacts, toInputs } from '../../../../app/github/translation/webhooks/status.ts';
import { useGithubNock } from '../../../support/nock/github-nock.ts';
import { nockOpenPullRequest } from '../../../support/nock/pull-request-state.ts';
import { nockPullsForCommit } from '../../../support/nock/pulls.ts';
import { statusEvent } from '../../../support/payloads.ts';
import { pullRequestState } from '../../../support/pull-request-info.ts';

const github = useGithubNock();
const ctx = () => ({ client: github.client(), cache: new FactsCache() });

describe('status → checks_reported, and the pull requests whose head it is', () => {
  it('a status is a check named by its context', () => {
    const payload = statusEvent({ sha: 'test-1', context: 'ci/jenkins', state: 'success' });
    expect(toInputs(payload, { pullRequests: [] })).toMatchInlineSnapshot(`
      [
        {
          "checks": [
            {
              "avatarUrl": "https://avatars2.githubusercontent.com/oa/39145?v=4",
              "completedAt": "2019-05-15T15:20:55+00:00",
              "description": "",
              "name": "ci/jenkins",
              "startedAt": "2019-05-15T15:20:55+00:00",
              "state": "success",
              "url": null,
            },
          ],
          "sha": "test-1",
          "type": "checks_reported",
        },
      ]
    `);
  });

  it.each([
    ['success', 'success'],
    ['failure', 'failure'],
    ['error', 'error'],
    ['pending', 'pending'],
  ] as const)('state %s is reported as %s', (state, expected) => {
    const [input] = toInputs(statusEvent({ state }), { pullRequests: [] });
    expect(input?.type === 'checks_reported' && input.checks[0]?.state).toBe(expected);
  });

  it('then the current state of each open pull request on the commit', () => {
    const payload = statusEvent({ sha: 'pr-2-head', context: 'ci/jenkins', state: 'failure' });
    const inputs = toInputs(payload, { pullRequests: [pullRequestState(2, { headSha: 'pr-2-head' })] });
    expect(inputs.map((i) => i.type)).toEqual(['checks_reported', 'pull_request_updated']);
  });
});

describe('fetchFacts', () => {
  it('asks GitHub for the open pull requests on the commit, the status laid over their checks', async () => {
    nockPullsForCommit(github, { sha: 'pr-2-head', pulls: [{ number: 2, headSha: 'pr-2-head' }] });
    nockOpenPullRequest(github, { number: 2, headSha: 'pr-2-head', statuses: [['ci/jenkins', 'pending']] });
    const payload = statusEvent({
      sha: 'pr-2-head',
      context: 'ci/jenkins',
      state: 'success',
      branches: [{ name: 'feature-2', sha: 'pr-2-head' }],
    });
    const facts = await fetchFacts(payload, ctx());
    expect(github.isDone()).toBe(true);
    expect(facts.pullRequests).toMatchObject([
      { kind: 'open', snapshot: { number: 2, checkRuns: [{ name: 'ci/jenkins', state: 'success' }] } },
    ]);
  });

  it('a status on the head of a test branch: nothing is read', async () => {
    github.mustNot('GET', /.*/, "a test branch's only pull request is the batch draft");
    const payload = statusEvent({
      sha: 'test-1',
      branches: [{ name: 'trainyard/merge-queue/1a2b3c4d', sha: 'test-1' }],
    });
    expect(await fetchFacts(payload, ctx())).toEqual({ pullRequests: [] });
    expect(github.isDone()).toBe(true);
  });

  it('a commit GitHub knows no open pull request for: only that is asked', async () => {
    nockPullsForCommit(github, { sha: 'main-1', pulls: [] });
    const payload = statusEvent({ sha: 'main-1', branches: [] });
    expect(await fetchFacts(payload, ctx())).toEqual({ pullRequests: [] });
    expect(github.isDone()).toBe(true);
  });
});
