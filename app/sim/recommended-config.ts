import type { TrainyardConfigInput } from '../config/config.schema.ts';
import type { Scenario } from './scenarios.ts';
import { areaFilesPattern, areaName } from './workload.ts';

/**
 * Trainyard's recommended configuration, as the benchmark runs it (the README shows it as
 * `.github/trainyard.yml`). Partition rules are added per area for a monorepo. Each setting was
 * kept because it measured better on `npm run bench:queue`; the figures are in
 * docs/decisions/0019-recommended-configuration.md.
 */
export const RECOMMENDED_CONFIG: TrainyardConfigInput = {
  queue_rules: [
    {
      name: 'default',
      // Pairs when the queue is short, up to 10 when it is long (a batch of 10 holds a culprit
      // half the time at p = 5 %); 10 minutes to fill a pair rather than test a PR alone. Larger
      // minimums, longer waits or smaller maximums save a little CI on mid, but on the monorepo
      // the waits of the small partitions hold up the pull requests they share with the big ones.
      batch_size: { min: 2, max: 10 },
      batch_max_wait_time: '10m',
      // CI may wait for a runner: a queue must not time a batch out for that.
      checks_timeout: null,
      // A retry costs a whole run and most failures are real: bisect at once instead.
      max_checks_retries: 0,
    },
  ],
  // A hotfix goes first but does not abort the batches already running: each interruption threw
  // away up to max_parallel_checks runs and their rebuilds in every lane of the hotfix.
  priority_rules: [
    { name: 'hotfix', conditions: ['label=hotfix'], priority: 'high', allow_checks_interruption: false },
  ],
  merge_queue: {
    // Two batches in line: a third is aborted too often when a batch in three fails.
    max_parallel_checks: 2,
    // A failed batch is bisected aside; the queue does not wait for it (app/queue/aside.ts).
    bisect_aside: true,
    // Probes run beside the line and rarely merge: search by halves, one probe a round, batches in
    // several partitions too (app/queue/bisection.ts).
    bisect_aside_probes: 1,
    // A passed batch whose pull request of another partition is not validated there yet holds its
    // lane: one batch in line besides the two under test, not a growing stack rebuilt whenever a
    // batch ahead is.
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
 * thrown away when it becomes a suspect in its other lane. It trades throughput for CI; the
 * figures, and the other setting measured, are in
 * docs/decisions/0020-partitioned-monorepo-configuration.md.
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
 * cannot sustain at 40 PRs/h; the largest areas alone carry most of the traffic.
 */
export const OWN_PARTITIONS = 7;
