import type { components } from '@octokit/openapi-webhooks-types';
import { isTestBranch } from '../../../queue/ids.ts';
import type { CheckReport, QueueInput } from '../../../queue/inputs.ts';
import { parseCommitStatus } from '../../client/check-report.ts';
import type { RepositoryClient } from '../../client/client.ts';
import type { FactsCache } from '../facts-cache.ts';
import { fetchPullRequestState, type PullRequestState, toPullRequestInput } from '../pull-request-state.ts';

export type StatusEvent = components['schemas']['webhook-status'];

export interface StatusEventFacts {
  /** Open pull requests whose head is the commit. */
  pullRequests: PullRequestState[];
}

/** A commit status is a check named by its context; pending ones count too (they replace an old result). */
function reportOf(payload: StatusEvent): CheckReport {
  return parseCommitStatus({
    context: payload.context,
    state: payload.state,
    description: payload.description,
    target_url: payload.target_url,
    avatar_url: payload.avatar_url ?? null,
    created_at: payload.created_at,
    updated_at: payload.updated_at,
  });
}

/**
 * A status names no pull request, so GitHub is asked, unless every branch whose head is the
 * commit is one of the engine's test branches (their only pull request is the batch's draft).
 */
function mayHavePullRequests(payload: StatusEvent): boolean {
  const heads = payload.branches.filter((branch) => branch.commit.sha === payload.sha);
  return heads.length === 0 || heads.some((branch) => !isTestBranch(branch.name));
}

export async function fetchFacts(
  payload: StatusEvent,
  ctx: { client: RepositoryClient; cache: FactsCache },
): Promise<StatusEventFacts> {
  if (!mayHavePullRequests(payload)) return { pullRequests: [] };
  const numbers = await ctx.client.listPullRequestsForCommit(payload.sha);
  const known = { sha: payload.sha, checks: [reportOf(payload)], complete: false };
  const pullRequests = await Promise.all(
    numbers.map((number) => fetchPullRequestState(ctx.client, { number, cache: ctx.cache, known })),
  );
  return { pullRequests };
}

export function toInputs(payload: StatusEvent, facts: StatusEventFacts): QueueInput[] {
  const inputs: QueueInput[] = [{ type: 'checks_reported', sha: payload.sha, checks: [reportOf(payload)] }];
  for (const state of facts.pullRequests) {
    const input = toPullRequestInput(state);
    if (input !== null) inputs.push(input);
  }
  return inputs;
}
