/*
 * The words for what GitHub does that is not a plain success or a plain refusal: a branch
 * protection rule refusing a merge, and an effect given up after GitHub kept failing (5xx, a
 * secondary rate limit, no answer). They end up in the "Trainyard" check run of the pull
 * request (the `detail` of the queue's leave reason) and in the merge queue status.
 */

/** What GitHub last answered before the app gave up (plain facts: render/ imports no client). */
export interface LastGithubFailure {
  /** 0 when no answer came. */
  status: number;
  githubMessage: string;
  /** `PUT /repos/acme/widgets/pulls/3/merge` */
  request: string;
  rateLimited: boolean;
  retryAfterSeconds: number | null;
}

/** An effect's transient failures stopped being retried: what happened, and what to do. */
export function renderGaveUp(params: { attempts: number; minutes: number; last: LastGithubFailure }): string {
  const { attempts, minutes, last } = params;
  const over = `${attempts} attempts over ${minutes < 1 ? 'less than a minute' : `${Math.round(minutes)} min`}`;
  const what = last.rateLimited
    ? `GitHub's rate limit refused the app's requests (${last.status}: ${last.githubMessage}${last.retryAfterSeconds === null ? '' : `; it asked to wait ${last.retryAfterSeconds} s`})`
    : last.status === 0
      ? `GitHub could not be reached (${last.githubMessage})`
      : `GitHub answered ${last.status} (${last.githubMessage})`;
  return `${what} to \`${last.request}\` on each of ${over}; Trainyard stopped retrying. Queue the pull request again once GitHub answers`;
}

/**
 * GitHub's refusal of a merge, explained when it is one GitHub words for a rule of the base
 * branch (branch protection); null for any other message.
 */
export function explainGithubRefusal(detail: string): string | null {
  const check = /Required status check "([^"]+)" is (expected|failing|in progress)/i.exec(detail);
  if (check) {
    const state = check[2]!.toLowerCase();
    const now =
      state === 'expected' ? 'has not reported on' : state === 'failing' ? 'fails on' : 'is still running on';
    return `The base branch's protection requires the status check \`${check[1]}\` on the pull request itself, and it ${now} the pull request's head. Trainyard tests on its own branch: make \`${check[1]}\` run on pull requests too, or drop it from the required checks, then queue the pull request again.`;
  }
  const reviews = /At least (\d+) approving reviews? (?:is|are) required/i.exec(detail);
  if (reviews) {
    const n = Number(reviews[1]);
    return `The base branch's protection requires ${n} approving review${n === 1 ? '' : 's'} from people with write access before a merge. Have the pull request approved, then queue it again (the queue condition \`#approved-reviews-by>=${n}\` keeps it out of the queue until then).`;
  }
  if (/Head branch is not up to date with the base branch/i.test(detail)) {
    return `The base branch's protection requires branches to be up to date before merging, and the pull request's own branch does not contain the current base. Trainyard tests each batch on top of the current base, so the setting adds nothing the queue does not check: turn "Require branches to be up to date" off for the base branch, or test one pull request at a time in place (\`max_parallel_checks: 1\`, where the queue updates the pull request's branch itself).`;
  }
  if (/Changes must be made through a pull request|Protected branch update failed/i.test(detail)) {
    return `The base branch's protection refused a direct update of the branch. Allow the Trainyard app to bypass the rule, or use a merge method that goes through the pull request.`;
  }
  return null;
}
