import { isTestBranch } from '../../queue/ids.ts';
import type { CheckReport, PullRequestSnapshot, QueueInput } from '../../queue/inputs.ts';
import type { PullRequestInfo, RepositoryClient } from '../client/client.ts';
import { CHECK_RUN_NAME } from '../render/check-run.ts';
import type { FactsCache } from './facts-cache.ts';

/**
 * A pull request as GitHub has it now. Webhooks arrive late, twice or out of order, so the
 * shell tells the engine the pull request's current state, never the state a payload describes.
 */
export type PullRequestState =
  | { kind: 'open'; snapshot: PullRequestSnapshot }
  | { kind: 'closed'; number: number; head: string; merged: boolean; mergeSha: string | null };

export interface PullRequestFacts {
  pullRequest: PullRequestInfo;
  files: string[];
  reviews: { approvedBy: string[]; changesRequestedBy: string[] };
  /** Check runs and statuses on the head commit. */
  checks: CheckReport[];
}

export function computePullRequestState(facts: PullRequestFacts): PullRequestState {
  const pr = facts.pullRequest;
  if (pr.state === 'closed') {
    return { kind: 'closed', number: pr.number, head: pr.head, merged: pr.merged, mergeSha: pr.mergeSha };
  }
  return {
    kind: 'open',
    snapshot: {
      number: pr.number,
      title: pr.title,
      body: pr.body,
      url: pr.url,
      author: pr.author,
      base: pr.base,
      head: pr.head,
      headSha: pr.headSha,
      draft: pr.draft,
      labels: pr.labels,
      files: facts.files,
      // Trainyard's own check run says where the pull request is in the queue: not a CI result.
      checkRuns: facts.checks
        .filter((check) => check.name !== CHECK_RUN_NAME)
        .map((check) => ({ name: check.name, state: check.state })),
      approvedReviewsBy: facts.reviews.approvedBy,
      changesRequestedReviewsBy: facts.reviews.changesRequestedBy,
    },
  };
}

/** What the engine is told; nothing about the draft pull requests of its own test branches. */
export function toPullRequestInput(state: PullRequestState): QueueInput | null {
  if (state.kind === 'closed') {
    if (isTestBranch(state.head)) return null;
    return {
      type: 'pull_request_closed',
      number: state.number,
      merged: state.merged,
      mergeSha: state.mergeSha,
    };
  }
  if (isTestBranch(state.snapshot.head)) return null;
  return { type: 'pull_request_updated', pullRequest: state.snapshot };
}

/** Checks on a commit that the caller already has, for pull requests whose head it is. */
export interface KnownChecks {
  sha: string;
  checks: CheckReport[];
  /**
   * true: every check on the commit, just listed (no need to list them again). false: reports
   * that came with the webhook, newer than what the list endpoint may still answer for a
   * moment; they replace the listed check of the same name.
   */
  complete: boolean;
}

/**
 * Reads the pull request and (while it is open) its files, reviews and head checks. When the
 * caller expects an open pull request at a head (`known`'s sha or `headSha`), the reviews and that
 * head's checks are asked for beside the pull request rather than after it: one GitHub round trip
 * instead of two in sequence. When the head turns out to be another commit, its checks are asked
 * for then; when the pull request turns out closed, the early answers are dropped.
 */
export async function fetchPullRequestState(
  client: RepositoryClient,
  params: { number: number; cache: FactsCache; known?: KnownChecks; headSha?: string },
): Promise<PullRequestState> {
  const expected = params.known?.sha ?? params.headSha;
  // Only when the caller expects an open pull request at a known head (a closed one needs neither).
  const early =
    expected === undefined
      ? null
      : {
          reviews: quiet(client.listReviews(params.number)),
          listed:
            params.known?.complete === true
              ? null
              : { sha: expected, checks: quiet(client.listChecks(expected)) },
        };
  const pullRequest = await client.getPullRequest(params.number);
  if (pullRequest.state === 'closed' || isTestBranch(pullRequest.head)) {
    return computePullRequestState({
      pullRequest,
      files: [],
      reviews: { approvedBy: [], changesRequestedBy: [] },
      checks: [],
    });
  }
  const known = params.known?.sha === pullRequest.headSha ? params.known : null;
  const [files, reviews, listed] = await Promise.all([
    params.cache.fetchFiles(client, {
      number: pullRequest.number,
      headSha: pullRequest.headSha,
      base: pullRequest.base,
    }),
    early?.reviews ?? client.listReviews(pullRequest.number),
    known?.complete === true
      ? Promise.resolve([])
      : early?.listed?.sha === pullRequest.headSha
        ? early.listed.checks
        : client.listChecks(pullRequest.headSha),
  ]);
  const latest = known?.checks ?? [];
  const replaced = new Set(latest.map((check) => check.name));
  const checks = [...listed.filter((check) => !replaced.has(check.name)), ...latest];
  return computePullRequestState({ pullRequest, files, reviews, checks });
}

/** A read that may go unused: its failure is reported only to whoever awaits it. */
function quiet<T>(read: Promise<T>): Promise<T> {
  read.catch(() => {});
  return read;
}
