import type { StatsEndpoint } from '../../shared/schemas/stats-query.schema.ts';
import type { StatsResponse } from '../../shared/schemas/stats-response.schema.ts';
import type { Queryable } from '../store/database.ts';
import { loadAverageCiRuntime } from './average-ci-runtime.ts';
import { loadAverageQueueTime } from './average-queue-time.ts';
import { loadBatchBisection } from './batch-bisection.ts';
import { loadBatchSize } from './batch-size.ts';
import { loadMergeQueueChecksOutcome, loadQueuesChecksOutcomeCount } from './checks-outcomes.ts';
import { loadChecksRetries } from './checks-retries.ts';
import { loadFailureRate } from './failure-rate.ts';
import { loadQueueSize } from './queue-size.ts';
import { loadQueuesEnteredCount } from './queues-entered-count.ts';
import { loadQueuesMergedCount } from './queues-merged-count.ts';
import { loadQueuesPrExitReasons } from './queues-pr-exit-reasons.ts';
import { loadRunningSpeculativeChecks } from './running-speculative-checks.ts';
import type { StatsParams } from './stats-params.ts';
import { loadTimeToMerge, type TimeToMergeParams } from './time-to-merge.ts';
import { loadTotalQueueTime } from './total-queue-time.ts';

/** Every statistics endpoint but time_to_merge: filters and period in, the documented body out. */
export type PeriodEndpoint = Exclude<StatsEndpoint, 'time_to_merge'>;

export const periodStatsLoaders: {
  [E in PeriodEndpoint]: (db: Queryable, params: StatsParams) => Promise<StatsResponse<E>>;
} = {
  merge_queue_checks_outcome: loadMergeQueueChecksOutcome,
  queues_checks_outcome_count: loadQueuesChecksOutcomeCount,
  queues_entered_count: loadQueuesEnteredCount,
  queues_merged_count: loadQueuesMergedCount,
  average_ci_runtime: loadAverageCiRuntime,
  average_queue_time: loadAverageQueueTime,
  total_queue_time: loadTotalQueueTime,
  queue_size: loadQueueSize,
  running_speculative_checks: loadRunningSpeculativeChecks,
  batch_size: loadBatchSize,
  batch_bisection: loadBatchBisection,
  checks_retries: loadChecksRetries,
  failure_rate: loadFailureRate,
  queues_pr_exit_reasons: loadQueuesPrExitReasons,
};

export function loadStats<E extends PeriodEndpoint>(
  endpoint: E,
  db: Queryable,
  params: StatsParams,
): Promise<StatsResponse<E>> {
  return periodStatsLoaders[endpoint](db, params) as Promise<StatsResponse<E>>;
}

export { loadTimeToMerge, type TimeToMergeParams };
