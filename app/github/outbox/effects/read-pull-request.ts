import type { ReadPullRequest } from '../../../queue/effects.ts';
import type { QueueInput } from '../../../queue/inputs.ts';
import type { RepositoryClient } from '../../client/client.ts';
import { FactsCache } from '../../translation/facts-cache.ts';
import { fetchPullRequestState, toPullRequestInput } from '../../translation/pull-request-state.ts';

/**
 * A pull request the engine had not seen when a command named it: its state as GitHub has it
 * now (the same reads as a `pull_request` webhook), then the command again. The reads go
 * through the installation client (its rate-limit waits and bounded retries) and the outbox
 * (back-off; a failure for good answers the command with its reason: effect-failure.ts).
 */
export async function executeReadPullRequest(
  effect: ReadPullRequest,
  client: RepositoryClient,
): Promise<QueueInput[]> {
  const state = await fetchPullRequestState(client, { number: effect.number, cache: new FactsCache(1) });
  const update = toPullRequestInput(state);
  return [...(update === null ? [] : [update]), { ...effect.command, read: { failure: null } }];
}
