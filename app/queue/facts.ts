import type { PullRequestFacts } from '../config/conditions/pull-request-facts.ts';
import type { CheckReport, PullRequestSnapshot } from './inputs.ts';

/** What the conditions language reads about a pull request. */
export function computeFacts(pr: PullRequestSnapshot): PullRequestFacts {
  return {
    number: pr.number,
    base: pr.base,
    head: pr.head,
    author: pr.author.login,
    labels: pr.labels.map((label) => label.name),
    title: pr.title,
    body: pr.body,
    draft: pr.draft,
    files: pr.files,
    checkRuns: pr.checkRuns,
    approvedReviewsBy: pr.approvedReviewsBy,
    changesRequestedReviewsBy: pr.changesRequestedReviewsBy,
  };
}

/**
 * A pull request as tested in a batch: its own facts, with the check runs of the tested commit
 * in place of its head's (merge conditions are about the tested commit).
 */
export function computeTestedFacts(
  pr: PullRequestSnapshot,
  checks: readonly CheckReport[],
): PullRequestFacts {
  return { ...computeFacts(pr), checkRuns: checks.map(({ name, state }) => ({ name, state })) };
}
