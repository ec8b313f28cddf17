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
  // A hotfix goes first but does not abort the batches already running: each interruption throws
  // away up to max_parallel_checks runs and their rebuilds in every lane of the hotfix.
  priority_rules: [
    { name: 'hotfix', conditions: ['label=hotfix'], priority: 'high', allow_checks_interruption: false },
  ],
  merge_queue: {
    // Each lane tests as many batches at once as its queue needs: one per 5 queued pull requests,
    // up to 6 (app/queue/adaptive.ts). Pull requests in several partitions go first among equals.
    // The same setting serves every scenario; queued_per_check is the one knob between waiting
    // and CI (npm run bench:queue-frontier draws the frontier).
    mode: 'adaptive',
    max_parallel_checks: 6,
    queued_per_check: 5,
    // A failed batch steps aside; the queue does not wait for it (app/queue/aside.ts).
    bisect_aside: true,
    // and splits at once into 4 groups tested side by side on the base alone (app/queue/split.ts):
    // one round clears most of its innocents, where a search by halves took one round per halving
    // and sent the pull requests after the culprit back untested (docs/decisions/0036).
    bisect_aside_split: 4,
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
 * What the benchmark runs on a scenario: the recommended configuration, with partition rules by
 * area if the repository is a monorepo — the only difference between scenarios.
 */
export function recommendedConfigFor(scenario: Scenario): TrainyardConfigInput {
  if (!scenario.partitionByArea) return RECOMMENDED_CONFIG;
  return withAreaPartitions(RECOMMENDED_CONFIG, scenario.workload.areas, OWN_PARTITIONS);
}

/**
 * Areas with a partition of their own in a monorepo; the others share one. One partition per
 * area (20) tests the PRs of small areas one by one — about a CI run each — which C = 30 runners
 * cannot sustain at 40 PRs/h; the largest areas alone carry most of the traffic.
 */
export const OWN_PARTITIONS = 7;
