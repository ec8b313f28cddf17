import type { TrainyardConfigInput } from '../config/config.schema.ts';
import type { Scenario } from './scenarios.ts';
import { areaFilesPattern, areaName } from './workload.ts';

/**
 * Trainyard's recommended configuration, as the benchmark runs it (the README shows it as
 * `.github/trainyard.yml`). Partition rules are added per area for a monorepo.
 */
export const RECOMMENDED_CONFIG: TrainyardConfigInput = {
  queue_rules: [
    {
      name: 'default',
      // Pairs when the queue is short, up to 10 when it is long (a batch of 10 holds a culprit
      // half the time at p = 5 %); 10 minutes to fill a pair rather than test a PR alone.
      // Measured (14 days): {min 4, 30m} or max 6 save ~1 CI minute per merged PR on mid, but on
      // the monorepo the waits of the small partitions hold up the pull requests they share with
      // the big ones, and the queue falls far behind (seed 1, max 6: merged/h 23.7 → 6.6).
      batch_size: { min: 2, max: 10 },
      batch_max_wait_time: '10m',
      // CI may wait for a runner: a queue must not time a batch out for that.
      checks_timeout: null,
      // A retry costs a whole run and most failures are real: bisect at once instead.
      max_checks_retries: 0,
    },
  ],
  // A hotfix goes first but does not abort the batches already running: each interruption threw
  // away up to max_parallel_checks runs and their rebuilds in every lane of the hotfix (measured
  // on monorepo, seed 1, 14 days: merged/h 14.6 → 23.7, CI min per merged PR 109 → 66; on mid,
  // seeds 1-3: CI min per merged PR 19.9 → 19.0).
  priority_rules: [
    { name: 'hotfix', conditions: ['label=hotfix'], priority: 'high', allow_checks_interruption: false },
  ],
  merge_queue: {
    // Two batches in line: a third is aborted too often when a batch in three fails.
    max_parallel_checks: 2,
    // A failed batch is bisected aside; the queue does not wait for it (app/queue/aside.ts).
    bisect_aside: true,
    // Probes run beside the line and rarely merge: search by halves, one probe a round, batches in
    // several partitions too. Measured (mid, seeds 1-3, 14 days): CI min per merged PR 19.9 → 17.6
    // (bors-ng: 18.8), p95 465 → 427 min; burst 18.7 CI min, p95 566. Monorepo, with batches in
    // several partitions at one probe too: CI min per merged PR 42.0 → 39.3 (app/queue/bisection.ts).
    bisect_aside_probes: 1,
    // A passed batch whose pull request of another partition is not validated there yet holds its
    // lane: one batch in line besides the two under test, not a growing stack rebuilt whenever a
    // batch ahead is. Measured (monorepo, 4 days, seeds 1 / 2): CI min per merged PR 66 → 40 /
    // 57 → 43, merged/h 20.2 → 22.2 / 22.9 → 22.3, p95 3394 → 3105 / 2626 → 2705 min.
    max_batches_in_line: 3,
    skip_intermediate_results: false,
  },
};

/**
 * Partition rules by area: one partition for each of the `own` largest areas, one for all the
 * others together (all areas get their own by default).
 */
export function withAreaPartitions(
  config: TrainyardConfigInput,
  areas: number,
  own: number = areas,
): TrainyardConfigInput {
  const names = Array.from({ length: areas }, (_, i) => areaName(i));
  const rest = names.slice(own);
  return {
    ...config,
    partition_rules: [
      ...names.slice(0, own).map((name) => ({ name, conditions: [`files~=${areaFilesPattern(name)}`] })),
      ...(rest.length === 0
        ? []
        : [{ name: 'other-areas', conditions: [`files~=^areas/(${rest.join('|')})/`] }]),
    ],
  };
}

/**
 * With partitions, the lanes already test side by side: one batch under test per lane and one more
 * in line. A second speculative batch is thrown away whenever the batch ahead fails (half the time
 * at 10 pull requests), and every batch stacked behind a pull request of several partitions is
 * thrown away when it becomes a suspect in its other lane; on a monorepo that is a fifth of the CI.
 * Measured (monorepo, seeds 1-3, 14 days), against 2 parallel checks and 3 batches in line:
 * CI min per merged PR 39.3 → 31.7 (bors-ng: 33.5), merged/h 24.5 → 17.0, p95 7,388 → 10,797 min.
 * Every configuration measured lies on one line trading throughput for CI (README, "Partitions");
 * this is the one on it that is no worse than any baseline on either figure.
 */
export const PARTITIONED_MERGE_QUEUE = { max_parallel_checks: 1, max_batches_in_line: 2 } as const;

/** What the benchmark runs on a scenario: the recommended configuration, partitioned by area if the repository is. */
export function recommendedConfigFor(scenario: Scenario): TrainyardConfigInput {
  if (!scenario.partitionByArea) return RECOMMENDED_CONFIG;
  const partitioned = {
    ...RECOMMENDED_CONFIG,
    merge_queue: { ...RECOMMENDED_CONFIG.merge_queue, ...PARTITIONED_MERGE_QUEUE },
  };
  return withAreaPartitions(partitioned, scenario.workload.areas, OWN_PARTITIONS);
}

/**
 * Areas with a partition of their own in a monorepo; the others share one. One partition per
 * area (20) tests the PRs of small areas one by one — about a CI run each — which C = 30 runners
 * cannot sustain at 40 PRs/h (measured: the queue falls behind); the largest areas alone carry
 * most of the traffic.
 */
export const OWN_PARTITIONS = 7;
