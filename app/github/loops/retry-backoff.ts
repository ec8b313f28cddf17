/**
 * How long an outbox row waits before its next attempt: exponential, capped, with "equal
 * jitter" (half fixed, half random) so that rows failing together — GitHub down for everyone —
 * do not all come back at once, while the wait still grows with every failure.
 *
 * Computed here rather than with `exponential-backoff` or `retry`: those run the retries in
 * memory around a call, whereas an outbox row's attempts live in the database and must survive
 * a restart; only the delay of attempt n is needed.
 */
export interface RetryBackoff {
  /** Delay after the first failure, before jitter. */
  baseMs: number;
  /** Longest delay, before jitter. */
  maxMs: number;
}

export const defaultRetryBackoff: RetryBackoff = { baseMs: 1_000, maxMs: 5 * 60_000 };

/** The delay after the `attempts`-th failed attempt (1 for the first); `random` is in [0, 1). */
export function computeRetryDelay(
  attempts: number,
  random: () => number,
  backoff: RetryBackoff = defaultRetryBackoff,
): number {
  const exponent = Math.min(Math.max(attempts, 1) - 1, 30);
  const ceiling = Math.min(backoff.maxMs, backoff.baseMs * 2 ** exponent);
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}
