import { describe, expect, it } from 'vitest';
import { FactsCache } from '../../../../app/github/translation/facts-cache.ts';
import {
  type CheckEventFacts,
  fetchFacts,
  toInputs,
} from '../../../../app/github/translation/webhooks/check-run.ts';
import type { CheckReport } from '../../../../app/queue/inputs.ts';
import { nockCombinedStatus, nockListCheckRuns } from '../../../support/nock/checks.ts';
import { checkRunJson } from '../../../support/nock/fixtures.ts';
import { useGithubNock } from '../../../support/nock/github-nock.ts';
import { nockOpenPullRequest } from '../../../support/nock/pull-request-state.ts';
import { nockPullsForCommit } from '../../../support/nock/pulls.ts';
import { checkRunEvent, checkSuiteEvent } from '../../../support/payloads.ts';
import { pullRequestState } from '../../../support/pull-request-info.ts';

const github = useGithubNock();
const noFacts: CheckEventFacts = { checks: [], pullRequests: [] };
const ctx = () => ({ client: github.client(), cache: new FactsCache() });

const report = (name: string, state: CheckReport['state']): CheckReport => ({
  name,
  state,
  url: null,
  description: '',
  avatarUrl: null,
  startedAt: null,
  completedAt: null,
});

describe('check_run completed → checks_reported, and the pull requests whose head it is', () => {
  it('reports the run on its commit', () => {
    const payload = checkRunEvent('completed', {
      name: 'ci',
      headSha: 'test-1',
      conclusion: 'failure',
      headBranch: 'trainyard/merge-queue/1a2b3c4d',
    });
    expect(toInputs(payload, noFacts)).toMatchInlineSnapshot(`
      [
        {
          "checks": [
            {
              "avatarUrl": "https://avatars1.githubusercontent.com/u/38302899?v=4",
              "completedAt": "2019-05-15T15:21:12Z",
              "description": "",
              "name": "ci",
              "startedAt": "2019-05-15T15:21:12Z",
              "state": "failure",
              "url": "https://octocoders.io",
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
    ['neutral', 'neutral'],
    ['cancelled', 'cancelled'],
    ['timed_out', 'timed_out'],
    ['action_required', 'action_required'],
    ['skipped', 'skipped'],
    ['stale', 'stale'],
    ['startup_failure', 'failure'],
  ] as const)('conclusion %s is reported as %s', (conclusion, state) => {
    const [input] = toInputs(checkRunEvent('completed', { conclusion }), noFacts);
    expect(input?.type === 'checks_reported' && input.checks[0]?.state).toBe(state);
  });

  it('then the current state of each pull request whose head is the commit', () => {
    const state = pullRequestState(2, { headSha: 'pr-2-head' }, { checks: [report('ci', 'success')] });
    const payload = checkRunEvent('completed', { name: 'ci', headSha: 'pr-2-head', conclusion: 'success' });
    expect(toInputs(payload, { checks: [], pullRequests: [state] }).map((i) => i.type)).toEqual([
      'checks_reported',
      'pull_request_updated',
    ]);
  });

  it.each(['created', 'rerequested', 'requested_action'] as const)(
    '%s: nothing is reported yet',
    (action) => {
      expect(toInputs(checkRunEvent(action), noFacts)).toEqual([]);
    },
  );

  it("Trainyard's own check run is its output, not CI: ignored", () => {
    expect(toInputs(checkRunEvent('completed', { name: 'Trainyard' }), noFacts)).toEqual([]);
  });
});

describe('check_suite completed → every check on the commit', () => {
  it("reports the commit's checks as listed, without Trainyard's own", () => {
    const payload = checkSuiteEvent('completed', {
      headSha: 'test-1',
      headBranch: 'trainyard/merge-queue/1a2b3c4d',
    });
    const facts = { checks: [report('build', 'success'), report('Trainyard', 'pending')], pullRequests: [] };
    expect(toInputs(payload, facts)).toEqual([
      { type: 'checks_reported', sha: 'test-1', checks: [report('build', 'success')] },
    ]);
  });

  it('a commit with no checks but ours reports nothing', () => {
    const payload = checkSuiteEvent('completed', { headSha: 'pr-2-head' });
    expect(toInputs(payload, { checks: [report('Trainyard', 'success')], pullRequests: [] })).toEqual([]);
  });

  it.each(['requested', 'rerequested'] as const)('%s: ignored', (action) => {
    expect(
      toInputs(checkSuiteEvent(action), { checks: [report('ci', 'success')], pullRequests: [] }),
    ).toEqual([]);
  });
});

describe('fetchFacts', () => {
  it('a run on a test branch: nothing is read (its only pull request is the batch draft)', async () => {
    github.mustNot('GET', /.*/, 'a test branch has no pull request the engine reads');
    const payload = checkRunEvent('completed', {
      headSha: 'test-1',
      headBranch: 'trainyard/merge-queue/1a2b3c4d',
      pullRequests: [{ number: 90, headRef: 'trainyard/merge-queue/1a2b3c4d' }],
    });
    expect(await fetchFacts(payload, ctx())).toEqual(noFacts);
    expect(github.isDone()).toBe(true);
  });

  it("a run on a pull request's head: the listed pull request is read, the run laid over its checks", async () => {
    // The list endpoint may not show the completion yet: the webhook's run is newer.
    nockOpenPullRequest(github, {
      number: 2,
      headSha: 'pr-2-head',
      checkRuns: [
        ['ci', null],
        ['lint', 'success'],
      ],
    });
    const payload = checkRunEvent('completed', {
      name: 'ci',
      headSha: 'pr-2-head',
      conclusion: 'failure',
      headBranch: 'feature-2',
      pullRequests: [{ number: 2 }],
    });
    const facts = await fetchFacts(payload, ctx());
    expect(github.isDone()).toBe(true);
    expect(facts.pullRequests).toMatchObject([
      {
        kind: 'open',
        snapshot: {
          number: 2,
          checkRuns: [
            { name: 'lint', state: 'success' },
            { name: 'ci', state: 'failure' },
          ],
        },
      },
    ]);
  });

  it("a pull request of another repository, or whose head moved on, is not this commit's", async () => {
    github.mustNot('GET', /\/pulls\//, 'neither listed pull request is about this commit');
    const payload = checkRunEvent('completed', {
      headSha: 'pr-2-head',
      headBranch: 'feature-2',
      pullRequests: [
        { number: 2, baseRepositoryId: 1 },
        { number: 4, headSha: 'pr-4-newer' },
      ],
    });
    expect(await fetchFacts(payload, ctx())).toEqual(noFacts);
    expect(github.isDone()).toBe(true);
  });

  it('a run that lists no pull request (a fork): GitHub is asked which are open on the commit', async () => {
    nockPullsForCommit(github, { sha: 'fork-head', pulls: [{ number: 5, headSha: 'fork-head' }] });
    nockOpenPullRequest(github, { number: 5, headSha: 'fork-head', checkRuns: [['ci', 'success']] });
    const payload = checkRunEvent('completed', {
      name: 'ci',
      headSha: 'fork-head',
      headBranch: null,
      pullRequests: [],
    });
    const facts = await fetchFacts(payload, ctx());
    expect(github.isDone()).toBe(true);
    expect(facts.pullRequests).toMatchObject([{ kind: 'open', snapshot: { number: 5 } }]);
  });

  it("a suite: the commit's checks are listed once, and reused for the pull request on it", async () => {
    nockListCheckRuns(github, { sha: 'pr-2-head', pages: [[checkRunJson({ id: 1, name: 'build' })]] });
    nockCombinedStatus(github, { sha: 'pr-2-head', pages: [[]] });
    nockOpenPullRequest(github, { number: 2, headSha: 'pr-2-head', listChecks: false });
    const payload = checkSuiteEvent('completed', {
      headSha: 'pr-2-head',
      headBranch: 'feature-2',
      pullRequests: [{ number: 2 }],
    });
    const facts = await fetchFacts(payload, ctx());
    expect(github.isDone()).toBe(true);
    expect(facts.checks.map((c) => c.name)).toEqual(['build']);
    expect(facts.pullRequests).toMatchObject([
      { snapshot: { checkRuns: [{ name: 'build', state: 'success' }] } },
    ]);
  });

  it("Trainyard's own check run completing: nothing is read", async () => {
    github.mustNot('GET', /.*/, 'our own check run is not CI');
    const payload = checkRunEvent('completed', {
      name: 'Trainyard',
      headSha: 'pr-2-head',
      pullRequests: [{ number: 2 }],
    });
    expect(await fetchFacts(payload, ctx())).toEqual(noFacts);
    expect(github.isDone()).toBe(true);
  });

  it('a run that is not completed: nothing is read', async () => {
    github.mustNot('GET', /.*/, 'nothing to report yet');
    expect(await fetchFacts(checkRunEvent('created'), ctx())).toEqual(noFacts);
    expect(github.isDone()).toBe(true);
  });
});
