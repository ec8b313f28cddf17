import type { components } from '@octokit/openapi-webhooks-types';
import { isTestBranch } from '../../../queue/ids.ts';
import type { QueueInput } from '../../../queue/inputs.ts';
import type { RepositoryClient } from '../../client/client.ts';
import type { FactsCache } from '../facts-cache.ts';
import { fetchPullRequestState, type PullRequestState, toPullRequestInput } from '../pull-request-state.ts';

type Schemas = components['schemas'];

/** Every `pull_request` delivery: the actions Trainyard reads and those it acknowledges only. */
export type PullRequestEvent = Schemas[`webhook-pull-request-${
  | 'assigned'
  | 'auto-merge-disabled'
  | 'auto-merge-enabled'
  | 'closed'
  | 'converted-to-draft'
  | 'demilestoned'
  | 'dequeued'
  | 'edited'
  | 'enqueued'
  | 'labeled'
  | 'locked'
  | 'milestoned'
  | 'opened'
  | 'ready-for-review'
  | 'reopened'
  | 'review-request-removed'
  | 'review-requested'
  | 'synchronize'
  | 'unassigned'
  | 'unlabeled'
  | 'unlocked'}`];

/** Actions that change something the engine reads: state, head, base, title, body, labels, draft. */
const READ_ACTIONS: ReadonlySet<string> = new Set([
  'opened',
  'reopened',
  'synchronize',
  'closed',
  'edited',
  'labeled',
  'unlabeled',
  'ready_for_review',
  'converted_to_draft',
]);

export interface PullRequestEventFacts {
  /** The pull request as GitHub has it now; null when the event was not worth reading it. */
  state: PullRequestState | null;
}

function isRead(payload: PullRequestEvent): boolean {
  return READ_ACTIONS.has(payload.action) && !isTestBranch(payload.pull_request.head.ref);
}

export async function fetchFacts(
  payload: PullRequestEvent,
  ctx: { client: RepositoryClient; cache: FactsCache },
): Promise<PullRequestEventFacts> {
  if (!isRead(payload)) return { state: null };
  return {
    state: await fetchPullRequestState(ctx.client, {
      number: payload.number,
      cache: ctx.cache,
      // Open as the payload saw it: its reviews and head checks are read beside it.
      ...(payload.pull_request.state === 'open' ? { headSha: payload.pull_request.head.sha } : {}),
    }),
  };
}

/**
 * The pull request's current state, whatever the action said: a late `synchronize` after a
 * newer one, or a `closed` redelivered after a reopen, must not take the engine back in time.
 */
export function toInputs(payload: PullRequestEvent, facts: PullRequestEventFacts): QueueInput[] {
  if (!isRead(payload) || facts.state === null) return [];
  const input = toPullRequestInput(facts.state);
  return input === null ? [] : [input];
}
