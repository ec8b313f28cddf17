import type { PullRequestFacts } from '../../../app/config/conditions/pull-request-facts.ts';

/** A plain open pull request; each test states only the facts it depends on. */
export function facts(overrides: Partial<PullRequestFacts> = {}): PullRequestFacts {
  return {
    number: 42,
    base: 'main',
    head: 'feature/login',
    author: 'octocat',
    labels: [],
    title: 'feat: add login',
    body: 'Adds a login page.',
    draft: false,
    files: ['web/login.ts'],
    checkRuns: [],
    approvedReviewsBy: [],
    changesRequestedReviewsBy: [],
    ...overrides,
  };
}
