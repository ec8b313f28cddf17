import type { PauseSet, QueueInput } from '../../app/queue/inputs.ts';
import { pullRequest } from '../queue/support/scenario.ts';

/* Engine inputs the store and shell tests feed through runStep, as GitHub would cause them. */

const author = { id: 1001, login: 'alice', type: 'User' as const };

/** A pull request opened, then `@trainyard queue` commented on it (comment id 10,000 + number). */
export function openedAndQueued(number: number): QueueInput[] {
  const command = {
    type: 'command_received' as const,
    number,
    command: 'queue' as const,
    queueName: null,
    author,
    commentId: 10_000 + number,
    authorized: true,
  };
  return [{ type: 'pull_request_updated', pullRequest: pullRequest(number) }, command];
}

export function pauseSet(reason: string): PauseSet {
  return { type: 'pause_set', reason, by: { type: 'user', id: 7, name: 'ops' } };
}
