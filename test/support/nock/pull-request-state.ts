import { nockCombinedStatus, nockListCheckRuns } from './checks.ts';
import { checkRunJson, commitStatusJson, type PullRequestFixture, reviewJson } from './fixtures.ts';
import type { GithubNock } from './github-nock.ts';
import { nockGetPull, nockListPullFiles, nockListReviews } from './pulls.ts';

/**
 * GitHub answering everything the shell reads about an open pull request: the pull request,
 * its files (unless cached), its reviews, and the check runs and statuses on its head.
 */
export function nockOpenPullRequest(
  github: GithubNock,
  pr: PullRequestFixture & {
    files?: string[] | 'cached';
    reviews?: [login: string, state: string][];
    checkRuns?: [name: string, conclusion: string | null][];
    statuses?: [context: string, state: string][];
    /** false: the head's checks are not listed (the caller already has them). */
    listChecks?: boolean;
  },
): void {
  nockGetPull(github, pr);
  if (pr.files !== 'cached') {
    nockListPullFiles(github, {
      number: pr.number,
      pages: [(pr.files ?? [`src/file-${pr.number}.ts`]).map((filename) => ({ filename }))],
    });
  }
  nockListReviews(github, {
    number: pr.number,
    pages: [(pr.reviews ?? []).map(([login, state]) => reviewJson(login, state))],
  });
  if (pr.listChecks === false) return;
  nockListCheckRuns(github, {
    sha: pr.headSha,
    pages: [
      (pr.checkRuns ?? []).map(([name, conclusion], i) =>
        checkRunJson({
          id: 100 + i,
          name,
          ...(conclusion === null
            ? { status: 'in_progress', conclusion: null, completed_at: null }
            : { conclusion: conclusion as 'success' }),
        }),
      ),
    ],
  });
  nockCombinedStatus(github, {
    sha: pr.headSha,
    pages: [(pr.statuses ?? []).map(([context, state]) => commitStatusJson({ context, state }))],
  });
}
