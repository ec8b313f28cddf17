import type { ReactToComment } from '../../../queue/effects.ts';
import type { QueueInput } from '../../../queue/inputs.ts';
import type { RepositoryClient } from '../../client/client.ts';
import { NotFoundError } from '../../client/errors.ts';

/** Acknowledges a command with a reaction; GitHub keeps one per user and content, so repeats are free. */
export async function executeReactToComment(
  effect: ReactToComment,
  client: RepositoryClient,
): Promise<QueueInput[]> {
  try {
    await client.addReaction({ commentId: effect.commentId, content: effect.content });
  } catch (error) {
    // The comment was deleted: there is nothing left to acknowledge.
    if (!(error instanceof NotFoundError)) throw error;
  }
  return [];
}
