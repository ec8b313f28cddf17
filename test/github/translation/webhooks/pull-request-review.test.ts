import { describe, expect, it } from 'vitest';
import { FactsCache } from '../../../../app/github/translation/facts-cache.ts';
import { fetchFacts, toInputs } from '../../../../app/github/translation/webhooks/pull-request-review.ts';
import { useGithubNock } from '../../../support/nock/github-nock.ts';
import { nockOpenPullRequest } from '../../../support/nock/pull-request-state.ts';
import { pullRequestReviewEvent } from '../../../support/payloads.ts';
import { pullRequestState } from '../../../support/pull-request-info.ts';

const github = useGithubNock();

describe('pull_request_review → pull_request_updated', () => {
  it.each(['approved', 'changes_requested'] as const)('submitted (%s): the updated snapshot', (review) => {
    const state = pullRequestState(3, {}, { reviews: { approvedBy: ['bob'], changesRequestedBy: [] } });
    const payload = pullRequestReviewEvent('submitted', { number: 3, review });
    expect(toInputs(payload, { state })).toEqual([
      { type: 'pull_request_updated', pullRequest: state.kind === 'open' && state.snapshot },
    ]);
  });

  it('dismissed: the updated snapshot (the dismissed approval no longer counts)', () => {
    const state = pullRequestState(3, {}, { reviews: { approvedBy: [], changesRequestedBy: [] } });
    const payload = pullRequestReviewEvent('dismissed', { number: 3 });
    expect(toInputs(payload, { state })).toMatchObject([
      { type: 'pull_request_updated', pullRequest: { number: 3, approvedReviewsBy: [] } },
    ]);
  });

  it('a review submitted on a pull request closed since then tells that it is closed', () => {
    const state = pullRequestState(3, { state: 'closed' });
    const payload = pullRequestReviewEvent('submitted', { number: 3, review: 'approved' });
    expect(toInputs(payload, { state })).toEqual([
      { type: 'pull_request_closed', number: 3, merged: false, mergeSha: null },
    ]);
  });

  it('a comment-only review changes no decision: ignored', () => {
    const payload = pullRequestReviewEvent('submitted', { number: 3, review: 'commented' });
    expect(toInputs(payload, { state: pullRequestState(3) })).toEqual([]);
  });

  it('an edited review changes only its text: ignored', () => {
    const payload = pullRequestReviewEvent('edited', { number: 3, review: 'approved' });
    expect(toInputs(payload, { state: pullRequestState(3) })).toEqual([]);
  });

  it("a review on one of the engine's draft pull requests is ignored", () => {
    const payload = pullRequestReviewEvent('submitted', {
      number: 90,
      review: 'approved',
      headRef: 'trainyard/merge-queue/1a2b3c4d',
    });
    expect(toInputs(payload, { state: pullRequestState(90) })).toEqual([]);
  });
});

describe('fetchFacts', () => {
  it('an approval: reads the pull request with its reviews now', async () => {
    nockOpenPullRequest(github, { number: 3, headSha: 'pr-3-head', reviews: [['bob', 'APPROVED']] });
    const payload = pullRequestReviewEvent('submitted', { number: 3, review: 'approved', reviewer: 'bob' });
    const facts = await fetchFacts(payload, { client: github.client(), cache: new FactsCache() });
    expect(github.isDone()).toBe(true);
    expect(facts.state).toMatchObject({ kind: 'open', snapshot: { approvedReviewsBy: ['bob'] } });
  });

  it('a comment-only review: nothing is read', async () => {
    github.mustNot('GET', /.*/, 'a comment review changes nothing the engine reads');
    const payload = pullRequestReviewEvent('submitted', { number: 3, review: 'commented' });
    expect(await fetchFacts(payload, { client: github.client(), cache: new FactsCache() })).toEqual({
      state: null,
    });
    expect(github.isDone()).toBe(true);
  });
});
