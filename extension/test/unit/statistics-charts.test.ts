import { describe, expect, it } from 'vitest';
import { dequeueConfirmation } from '../../src/queue/dequeue-text.ts';
import { type StatisticsAnswers, statisticsCharts } from '../../src/statistics/statistics-charts.ts';

const keys = {
  base_ref: 'main',
  partition_name: '__default__',
  queue_name: 'default',
  priority_rule_name: null,
};
const b = (start: string) => ({ start, end: start });

describe('statistics charts', () => {
  it('folds the groups per bucket into six charts with summaries', () => {
    const answers = {
      total_queue_time: {
        groups: [
          {
            ...keys,
            stats: [
              {
                ...b('2026-11-02T00:00:00Z'),
                avg_queue_time: 600,
                max_queue_time: 900,
                min_queue_time: 300,
                sum_queue_time: 1200,
                count_queue_time: 2,
              },
            ],
          },
        ],
      },
      time_to_merge: [
        {
          partition_name: '__default__',
          queues: [{ queue_name: 'default', time_to_merge: { mean: 660, median: 600 } }],
        },
      ],
      queue_size: {
        groups: [
          { ...keys, stats: [{ ...b('2026-11-02T00:00:00Z'), avg_size: 3.26, max_size: 5, min_size: 0 }] },
        ],
      },
      failure_rate: {
        groups: [
          { ...keys, stats: [{ ...b('2026-11-02T00:00:00Z'), total: 3, failures: 1, failure_rate: 1 / 3 }] },
          {
            ...keys,
            queue_name: 'hotfix',
            stats: [{ ...b('2026-11-02T00:00:00Z'), total: 1, failures: 0, failure_rate: 0 }],
          },
        ],
      },
      batch_size: {
        groups: [
          {
            ...keys,
            stats: [
              {
                ...b('2026-11-02T00:00:00Z'),
                avg_batch_size: 3,
                max_batch_size: 3,
                min_batch_size: 3,
                sum_batch_size: 6,
                count_batch_size: 2,
              },
            ],
          },
        ],
      },
      average_ci_runtime: { groups: [{ ...keys, stats: null }] },
      queues_pr_exit_reasons: {
        groups: [
          {
            ...keys,
            stats: [
              { ...b('2026-11-02T00:00:00Z'), exit_reason: 'PR_MERGED', count: 2 },
              { ...b('2026-11-03T00:00:00Z'), exit_reason: 'PR_MERGED', count: 1 },
            ],
          },
        ],
      },
    } as unknown as StatisticsAnswers;
    const charts = statisticsCharts(answers);
    expect(charts.map((c) => c.id)).toEqual([
      'time-to-merge',
      'queue-size',
      'failure-rate',
      'batch-size',
      'ci-runtime',
      'exit-reasons',
    ]);
    const [ttm, size, failure, batch, ci, exits] = charts;
    expect(ttm!.series).toEqual([
      { label: 'mean', data: [10] },
      { label: 'longest', data: [15] },
    ]);
    expect(ttm!.summary).toBe('Last 90 days, default: median 10 min');
    expect(size!.series[0]).toEqual({ label: 'mean', data: [3.3] });
    expect(failure!.series[0]!.data).toEqual([25]);
    expect(failure!.summary).toBe('1 of 4 left the queue failing (25 %)');
    expect(batch!.summary).toBe('2 batches started, 3 pull requests each on average');
    expect(ci!.labels).toEqual([]);
    expect(ci!.summary).toBe('No checks ended in this period');
    expect(exits).toMatchObject({ type: 'bar', labels: ['PR_MERGED'], series: [{ data: [3] }] });
  });
});

describe('dequeue confirmation', () => {
  it('states what dequeuing stops and tests again', () => {
    expect(
      dequeueConfirmation(7, 'Fix', {
        interrupted_batches: 2,
        rechecked_pull_requests: 3,
        cascaded_pull_requests: 0,
      }),
    ).toBe(
      'Remove #7 "Fix" from the merge queue? 2 batches are stopped and 3 other pull requests are tested again.',
    );
    expect(
      dequeueConfirmation(7, 'Fix', {
        interrupted_batches: 0,
        rechecked_pull_requests: 0,
        cascaded_pull_requests: 0,
      }),
    ).toBe(
      'Remove #7 "Fix" from the merge queue? No running batch is stopped and no other pull request is tested again.',
    );
  });
});
