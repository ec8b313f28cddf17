import { describe, expect, it } from 'vitest';
import { FactsCache } from '../../../../app/github/translation/facts-cache.ts';
import {
  fetchFacts,
  type PullRequestEvent,
  toInputs,
} from '../../../../app/github/translation/webhooks/pull-request.ts';
import { useGithubNock } from '../../../support/nock/github-nock.ts';
import { nockOpenPullRequest } from '../../../support/nock/pull-request-state.ts';
import { nockGetPull } from '../../../support/nock/pulls.ts';
import { pullRequestEvent } from '../../../support/payloads.ts';
import { pullRequestState } from '../../../support/pull-request-info.ts';

const github = useGithubNock();

const readActions = [
  'opened',
  'reopened',
  'synchronize',
  'edited',
  'labeled',
  'unlabeled',
  'ready_for_review',
  'converted_to_draft',
] as const;

const ignoredActions = [
  'assigned',
  'unassigned',
  'locked',
  'unlocked',
  'review_requested',
  'review_request_removed',
] as const;

describe('pull_request → pull_request_updated / pull_request_closed', () => {
  it.each(readActions)('%s: the pull request as GitHub has it now', (action) => {
    const state = pullRequestState(3, { headSha: 'pr-3-v2', labels: [] }, { files: ['src/a.ts'] });
    const inputs = toInputs(pullRequestEvent(action, { number: 3 }), { state });
    expect(inputs).toEqual([
      { type: 'pull_request_updated', pullRequest: state.kind === 'open' && state.snapshot },
    ]);
  });

  it('the snapshot carries everything the conditions read', () => {
    const state = pullRequestState(
      3,
      {
        title: 'Fix the parser',
        body: 'Closes #1',
        draft: true,
        headSha: 'pr-3-v2',
        labels: [{ id: 7, name: 'hotfix', color: 'd73a4a', default: false }],
      },
      {
        files: ['src/parser.ts'],
        reviews: { approvedBy: ['bob'], changesRequestedBy: ['carol'] },
        checks: [
          {
            name: 'ci',
            state: 'success',
            url: null,
            description: '',
            avatarUrl: null,
            startedAt: null,
            completedAt: null,
          },
        ],
      },
    );
    expect(toInputs(pullRequestEvent('synchronize', { number: 3 }), { state })).toMatchInlineSnapshot(`
      [
        {
          "pullRequest": {
            "approvedReviewsBy": [
              "bob",
            ],
            "author": {
              "id": 1001,
              "login": "alice",
              "type": "User",
            },
            "base": "main",
            "body": "Closes #1",
            "changesRequestedReviewsBy": [
              "carol",
            ],
            "checkRuns": [
              {
                "name": "ci",
                "state": "success",
              },
            ],
            "draft": true,
            "files": [
              "src/parser.ts",
            ],
            "head": "feature-3",
            "headSha": "pr-3-v2",
            "labels": [
              {
                "color": "d73a4a",
                "default": false,
                "id": 7,
                "name": "hotfix",
              },
            ],
            "number": 3,
            "title": "Fix the parser",
            "url": "https://github.com/acme/widgets/pull/3",
          },
          "type": "pull_request_updated",
        },
      ]
    `);
  });

  it('closed and merged: pull_request_closed with the merge commit', () => {
    const state = pullRequestState(3, { state: 'closed', merged: true, mergeSha: 'merge-3' });
    const payload = pullRequestEvent('closed', { number: 3, merged: true, mergeSha: 'merge-3' });
    expect(toInputs(payload, { state })).toEqual([
      { type: 'pull_request_closed', number: 3, merged: true, mergeSha: 'merge-3' },
    ]);
  });

  it('closed without merging: pull_request_closed, not merged', () => {
    const state = pullRequestState(3, { state: 'closed' });
    expect(toInputs(pullRequestEvent('closed', { number: 3 }), { state })).toEqual([
      { type: 'pull_request_closed', number: 3, merged: false, mergeSha: null },
    ]);
  });

  it('a synchronize delivered after a newer one tells the current head, not the old one', () => {
    const payload = pullRequestEvent('synchronize', { number: 3, headSha: 'pr-3-v1' });
    const state = pullRequestState(3, { headSha: 'pr-3-v2' });
    expect(toInputs(payload, { state })).toMatchObject([
      { type: 'pull_request_updated', pullRequest: { headSha: 'pr-3-v2' } },
    ]);
  });

  it('a closed event redelivered after the pull request was reopened does not close it', () => {
    const payload = pullRequestEvent('closed', { number: 3 });
    expect(toInputs(payload, { state: pullRequestState(3) })).toMatchObject([
      { type: 'pull_request_updated' },
    ]);
  });

  it("Trainyard's own check run is not one of the pull request's checks", () => {
    const report = (name: string) => ({
      name,
      state: 'pending' as const,
      url: null,
      description: '',
      avatarUrl: null,
      startedAt: null,
      completedAt: null,
    });
    const state = pullRequestState(3, {}, { checks: [report('Trainyard'), report('ci')] });
    const [input] = toInputs(pullRequestEvent('synchronize', { number: 3 }), { state });
    expect(input?.type === 'pull_request_updated' && input.pullRequest.checkRuns).toEqual([
      { name: 'ci', state: 'pending' },
    ]);
  });

  it.each(ignoredActions)('%s: acknowledged and ignored', (action) => {
    expect(toInputs(pullRequestEvent(action, { number: 3 }), { state: pullRequestState(3) })).toEqual([]);
  });

  it("the draft pull request of one of the engine's test branches is ignored", () => {
    const payload = pullRequestEvent('opened', { number: 90, headRef: 'trainyard/merge-queue/1a2b3c4d' });
    const state = pullRequestState(90, { head: 'trainyard/merge-queue/1a2b3c4d', draft: true });
    expect(toInputs(payload, { state })).toEqual([]);
  });

  it('a pull request whose head became a test branch is ignored even if the payload said otherwise', () => {
    const state = pullRequestState(90, { head: 'trainyard/merge-queue/1a2b3c4d' });
    expect(toInputs(pullRequestEvent('synchronize', { number: 90 }), { state })).toEqual([]);
  });
});

describe('fetchFacts: what GitHub says about the pull request now', () => {
  const ctx = () => ({ client: github.client(), cache: new FactsCache() });

  it('an open pull request: the pull request, its files, reviews and head checks', async () => {
    nockOpenPullRequest(github, {
      number: 3,
      headSha: 'pr-3-v2',
      files: ['src/a.ts', 'docs/b.md'],
      reviews: [
        ['bob', 'APPROVED'],
        ['carol', 'CHANGES_REQUESTED'],
      ],
      checkRuns: [
        ['ci', 'success'],
        ['Trainyard', null],
      ],
      statuses: [['legacy/ci', 'pending']],
    });

    const facts = await fetchFacts(pullRequestEvent('synchronize', { number: 3 }), ctx());

    expect(github.isDone()).toBe(true);
    expect(facts.state).toMatchObject({
      kind: 'open',
      snapshot: {
        number: 3,
        headSha: 'pr-3-v2',
        files: ['src/a.ts', 'docs/b.md'],
        approvedReviewsBy: ['bob'],
        changesRequestedReviewsBy: ['carol'],
        checkRuns: [
          { name: 'ci', state: 'success' },
          { name: 'legacy/ci', state: 'pending' },
        ],
      },
    });
  });

  it('a closed pull request: only the pull request is read', async () => {
    nockGetPull(github, {
      number: 3,
      headSha: 'pr-3-v2',
      state: 'closed',
      merged: true,
      mergeSha: 'merge-3',
    });
    const facts = await fetchFacts(pullRequestEvent('closed', { number: 3, merged: true }), ctx());
    expect(github.isDone()).toBe(true);
    expect(facts.state).toEqual({
      kind: 'closed',
      number: 3,
      head: 'feature-3',
      merged: true,
      mergeSha: 'merge-3',
    });
  });

  it('the files of a head already read are not asked for again', async () => {
    const shared = ctx();
    nockOpenPullRequest(github, { number: 3, headSha: 'pr-3-v2', files: ['src/a.ts'] });
    await fetchFacts(pullRequestEvent('labeled', { number: 3 }), shared);
    nockOpenPullRequest(github, { number: 3, headSha: 'pr-3-v2', files: 'cached' });
    const facts = await fetchFacts(pullRequestEvent('unlabeled', { number: 3 }), shared);
    expect(github.isDone()).toBe(true);
    expect(facts.state).toMatchObject({ snapshot: { files: ['src/a.ts'] } });
  });

  it.each(ignoredActions)('%s: nothing is read', async (action) => {
    github.mustNot('GET', /.*/, 'an ignored action reads nothing');
    const facts = await fetchFacts(pullRequestEvent(action, { number: 3 }) as PullRequestEvent, ctx());
    expect(facts).toEqual({ state: null });
    expect(github.isDone()).toBe(true);
  });

  it('a test branch draft pull request: nothing is read', async () => {
    github.mustNot('GET', /.*/, 'the engine knows its own draft pull requests');
    const payload = pullRequestEvent('opened', { number: 90, headRef: 'trainyard/merge-queue/1a2b3c4d' });
    expect(await fetchFacts(payload, ctx())).toEqual({ state: null });
    expect(github.isDone()).toBe(true);
  });
});
