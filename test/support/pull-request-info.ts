import type { PullRequestInfo } from '../../app/github/client/client.ts';
import {
  computePullRequestState,
  type PullRequestFacts,
  type PullRequestState,
} from '../../app/github/translation/pull-request-state.ts';

/** A pull request as the RepositoryClient answers it: plain data for the pure translators' facts. */
export function pullRequestInfo(number: number, overrides: Partial<PullRequestInfo> = {}): PullRequestInfo {
  return {
    number,
    title: `Change ${number}`,
    body: '',
    url: `https://github.com/acme/widgets/pull/${number}`,
    state: 'open',
    merged: false,
    mergeSha: null,
    draft: false,
    author: { id: 1001, login: 'alice', type: 'User' },
    base: 'main',
    head: `feature-${number}`,
    headSha: `pr-${number}-head`,
    labels: [],
    ...overrides,
  };
}

/** The state the shell would compute from these facts (files, reviews and checks default to none). */
export function pullRequestState(
  number: number,
  overrides: Partial<PullRequestInfo> = {},
  facts: Partial<Omit<PullRequestFacts, 'pullRequest'>> = {},
): PullRequestState {
  return computePullRequestState({
    pullRequest: pullRequestInfo(number, overrides),
    files: facts.files ?? [],
    reviews: facts.reviews ?? { approvedBy: [], changesRequestedBy: [] },
    checks: facts.checks ?? [],
  });
}
