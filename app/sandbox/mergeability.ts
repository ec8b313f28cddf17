import type { Repository } from './entities.ts';

/**
 * GitHub computes a pull request's mergeability in the background: right after a push to it or
 * to its base, `GET /pulls/{n}` answers `mergeable: null` (`mergeable_state: "unknown"`) until
 * the job has run. A switchable setting of the sandbox: the next `reads` renderings of the
 * repository's open pull requests answer null, then the computed value again.
 */
const pending = new WeakMap<Repository, number>();

export function computeMergeabilityLater(repo: Repository, reads: number): void {
  pending.set(repo, reads);
}

/** Whether this rendering is one of those still waiting for GitHub's computation (and counts it). */
export function mergeabilityStillComputing(repo: Repository): boolean {
  const left = pending.get(repo) ?? 0;
  if (left <= 0) return false;
  pending.set(repo, left - 1);
  return true;
}
