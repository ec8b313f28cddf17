import type { Effect } from '../../queue/effects.ts';
import type { OutboxRow } from '../../store/outbox.ts';
import { GithubRequestError } from '../client/errors.ts';
import { describeFailure } from '../client/failure-text.ts';
import { computeRetryDelay, type RetryBackoff } from '../loops/retry-backoff.ts';
import { type LastGithubFailure, renderGaveUp } from '../render/github-trouble.ts';
import { EffectFailedError, failureInputsOf } from './effect-failure.ts';

/**
 * How long an effect that keeps failing transiently (GitHub's 5xx, secondary rate limits, no
 * answer) is retried: `maxAttempts` attempts with the outbox's back-off (1 s doubling, so ten
 * attempts span about 8 minutes and a half), never sooner than GitHub's `retry-after`. Then it
 * fails for good with a reason that says what GitHub kept answering, and the engine is told
 * (a merge fails, a batch's preparation fails), so no pull request waits for ever on an effect
 * that silently retries.
 */
export interface RetryLimit {
  maxAttempts: number;
}

export const defaultRetryLimit: RetryLimit = { maxAttempts: 10 };

/** The wait before the next attempt: the back-off, or longer when GitHub asked for longer. */
export function nextAttemptDelayMs(
  attempts: number,
  error: unknown,
  random: () => number,
  backoff: RetryBackoff,
): number {
  const delay = computeRetryDelay(attempts, random, backoff);
  const asked = error instanceof GithubRequestError ? error.retryAfterSeconds : null;
  return asked === null ? delay : Math.max(delay, asked * 1000);
}

/** The failure to record once `row` used its last attempt on `error`; null while attempts are left. */
export function gaveUpFailure(
  row: OutboxRow,
  error: unknown,
  params: { limit: RetryLimit; now: Date },
): EffectFailedError | null {
  if (row.attempts < params.limit.maxAttempts) return null;
  const reason = renderGaveUp({
    attempts: row.attempts,
    minutes: (params.now.getTime() - row.createdAt.getTime()) / 60_000,
    last: lastFailure(error),
  });
  const effect: Effect = row.effect;
  return new EffectFailedError(reason, effect, failureInputsOf(effect, reason));
}

function lastFailure(error: unknown): LastGithubFailure {
  if (error instanceof GithubRequestError) {
    return {
      status: error.status,
      githubMessage: error.githubMessage,
      request: error.request,
      rateLimited: error.retryAfterSeconds !== null || error.status === 429,
      retryAfterSeconds: error.retryAfterSeconds,
    };
  }
  return {
    status: 0,
    githubMessage: describeFailure(error),
    request: 'the effect',
    rateLimited: false,
    retryAfterSeconds: null,
  };
}
