import type { ProbotOctokit } from 'probot';

/** octokit.ts's GithubOctokit, named here: octokit.ts installs this hook, so importing it would make a cycle. */
type GithubOctokit = InstanceType<typeof ProbotOctokit>;

/** How failed requests are retried (octokit reports a network failure as a 500). */
export interface RequestRetries {
  /** Retries after the first attempt; 0 turns retrying off. */
  retries: number;
  /** Retry i waits i² times this many milliseconds. */
  baseDelayMs: number;
  /** Statuses that are answers, not failures: never retried. */
  doNotRetry: readonly number[];
}

/**
 * Retries a request that failed with a status GitHub may answer differently next time (5xx, a
 * network failure, a 4xx that is not an answer), as @octokit/plugin-retry does (same statuses,
 * same waits), without its cost: that plugin runs every request through a new Bottleneck limiter
 * whose store yields to the event loop (setTimeout) several times per request, each yield a loop
 * turn that a busy server makes long (decision 0013). Rate limits are the throttling plugin's.
 */
export function useRequestRetries(octokit: GithubOctokit, retries: RequestRetries): void {
  if (retries.retries <= 0) return;
  octokit.hook.wrap('request', async (request, options) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await request(options);
      } catch (error) {
        const status = (error as { status?: unknown }).status;
        const retryable = typeof status === 'number' && status >= 400 && !retries.doNotRetry.includes(status);
        if (!retryable || attempt > retries.retries) throw error;
        await new Promise((resolve) => setTimeout(resolve, attempt * attempt * retries.baseDelayMs));
      }
    }
  });
}
