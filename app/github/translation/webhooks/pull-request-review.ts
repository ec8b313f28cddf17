import type { components } from '@octokit/openapi-webhooks-types';
import { isTestBranch } from '../../../queue/ids.ts';
import type { QueueInput } from '../../../queue/inputs.ts';
import type { RepositoryClient } from '../../client/client.ts';
import type { FactsCache } from '../facts-cache.ts';
import { fetchPullRequestState, type PullRequestState, toPullRequestInput } from '../pull-request-state.ts';

type Schemas = components['schemas'];

export type PullRequestReviewEvent =
  Schemas[`webhook-pull-request-review-${'submitted' | 'dismissed' | 'edited'}`];

export interface PullRequestReviewEventFacts {
  state: PullRequestState | null;
}

/**
 * Approvals and change requests are what the conditions read. A plain comment review does not
 * replace a reviewer's earlier decision, and editing a review changes only its text.
 */
function isRead(payload: PullRequestReviewEvent): boolean {
  if (isTestBranch(payload.pull_request.head.ref)) return false;
  if (payload.action === 'dismissed') return true;
  return payload.action === 'submitted' && payload.review.state.toLowerCase() !== 'commented';
}

export async function fetchFacts(
  payload: PullRequestReviewEvent,
  ctx: { client: RepositoryClient; cache: FactsCache },
): Promise<PullRequestReviewEventFacts> {
  if (!isRead(payload)) return { state: null };
  const number = payload.pull_request.number;
  return {
    state: await fetchPullRequestState(ctx.client, {
      number,
      cache: ctx.cache,
      // Open as the payload saw it: its reviews and head checks are read beside it.
      ...(payload.pull_request.state === 'open' ? { headSha: payload.pull_request.head.sha } : {}),
    }),
  };
}

export function toInputs(payload: PullRequestReviewEvent, facts: PullRequestReviewEventFacts): QueueInput[] {
  if (!isRead(payload) || facts.state === null) return [];
  const input = toPullRequestInput(facts.state);
  return input === null ? [] : [input];
}
