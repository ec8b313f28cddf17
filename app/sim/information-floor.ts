import type { CiModel, PullRequestTruth } from './ci-model.ts';
import type { WorkloadItem } from './workload.ts';

/**
 * A floor on CI minutes per merged PR for any queue that does not know which PRs are bad: it
 * must tell the culprits (bad PRs and the later side of each conflict) from the rest, that is
 * N·H(p) bits of information for N PRs with a culprit share p, and a CI run answers at most one
 * bit (pass or fail), so it needs at least N·H(p) runs of mean duration T·e^(σ²/2). Flaky
 * failures only raise it. The CI oracle sits below it: it is told the answer.
 */
export function computeInformationFloor(
  workload: readonly WorkloadItem[],
  ci: Omit<CiModel, 'seed'>,
): number {
  const n = workload.length;
  if (n === 0) return 0;
  const culprits = workload.filter((w) => isCulprit(w.pullRequest)).length;
  const p = culprits / n;
  const entropy = p <= 0 || p >= 1 ? 0 : -p * Math.log2(p) - (1 - p) * Math.log2(1 - p);
  const meanRunMinutes = (ci.medianMs / 60_000) * Math.exp((ci.spread * ci.spread) / 2);
  return (n * entropy * meanRunMinutes) / (n - culprits);
}

/**
 * A pull request no queue can merge without breaking the base: a bad one, or the later side of
 * a conflict (once the earlier one is in). The others are the good ones.
 */
export function isCulprit(pr: PullRequestTruth): boolean {
  return pr.bad || pr.conflictsWith.some((other) => other < pr.number);
}
