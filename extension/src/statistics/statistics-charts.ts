import type {
  AverageCiRuntimeResponse,
  BatchSizeResponse,
  FailureRateResponse,
  QueueSizeResponse,
  QueuesPrExitReasonsResponse,
  TimeToMergeResponse,
  TotalQueueTimeResponse,
} from '../../../shared/schemas/stats-response.schema.ts';

/** The statistics the view charts, as the API answered them for one period. */
export interface StatisticsAnswers {
  total_queue_time: TotalQueueTimeResponse;
  time_to_merge: TimeToMergeResponse;
  queue_size: QueueSizeResponse;
  failure_rate: FailureRateResponse;
  batch_size: BatchSizeResponse;
  average_ci_runtime: AverageCiRuntimeResponse;
  queues_pr_exit_reasons: QueuesPrExitReasonsResponse;
}

/** One chart, ready for the webview: x labels (bucket starts or categories) and series. */
export interface ChartSpec {
  id: string;
  title: string;
  unit: string;
  type: 'line' | 'bar';
  labels: string[];
  series: { label: string; data: (number | null)[] }[];
  /** A sentence under the title: the figure a person looks for first. */
  summary: string;
}

export const periods = [1, 7, 30] as const;
export type PeriodDays = (typeof periods)[number];

type Bucket = { start: string };

/** Buckets of every group, summed per bucket start by `fold` (groups are partitions/queues/rules). */
function byStart<B extends Bucket, A>(
  groups: { stats: B[] | null }[],
  empty: () => A,
  fold: (acc: A, b: B) => void,
): Map<string, A> {
  const out = new Map<string, A>();
  for (const g of groups)
    for (const b of g.stats ?? []) {
      const acc = out.get(b.start) ?? empty();
      fold(acc, b);
      out.set(b.start, acc);
    }
  return new Map([...out].sort(([a], [b]) => a.localeCompare(b)));
}

const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;
const minutes = (s: number) => round(s / 60);

function line(
  id: string,
  title: string,
  unit: string,
  points: Map<string, Record<string, number | null>>,
  summary: string,
): ChartSpec {
  const labels = [...points.keys()];
  const names = [...new Set([...points.values()].flatMap((p) => Object.keys(p)))];
  return {
    id,
    title,
    unit,
    type: 'line',
    labels,
    series: names.map((label) => ({ label, data: labels.map((l) => points.get(l)?.[label] ?? null) })),
    summary,
  };
}

/** The six charts: time to merge, queue size, failure rate, batch size, CI runtime, exit reasons. */
export function statisticsCharts(a: StatisticsAnswers): ChartSpec[] {
  const queueTime = byStart(
    a.total_queue_time.groups,
    () => ({ sum: 0, n: 0, max: 0 }),
    (acc, b) => {
      acc.sum += b.sum_queue_time;
      acc.n += b.count_queue_time;
      acc.max = Math.max(acc.max, b.max_queue_time);
    },
  );
  const medians = a.time_to_merge.flatMap((p) =>
    p.queues.flatMap((q) =>
      q.time_to_merge.median !== null
        ? [`${q.queue_name}: median ${minutes(q.time_to_merge.median)} min`]
        : [],
    ),
  );
  const size = byStart(
    a.queue_size.groups,
    () => ({ avg: 0, max: 0 }),
    (acc, b) => {
      acc.avg += b.avg_size;
      acc.max += b.max_size;
    },
  );
  const failures = byStart(
    a.failure_rate.groups,
    () => ({ total: 0, failures: 0 }),
    (acc, b) => {
      acc.total += b.total;
      acc.failures += b.failures;
    },
  );
  const batches = byStart(
    a.batch_size.groups,
    () => ({ sum: 0, n: 0, max: 0 }),
    (acc, b) => {
      acc.sum += b.sum_batch_size;
      acc.n += b.count_batch_size;
      acc.max = Math.max(acc.max, b.max_batch_size);
    },
  );
  const ci = byStart(
    a.average_ci_runtime.groups,
    () => ({ sum: 0, n: 0 }),
    (acc, b) => {
      acc.sum += b.sum_runtime;
      acc.n += b.count_runtime;
    },
  );
  const reasons = new Map<string, number>();
  for (const g of a.queues_pr_exit_reasons.groups)
    for (const b of g.stats ?? []) reasons.set(b.exit_reason, (reasons.get(b.exit_reason) ?? 0) + b.count);
  const total = <T>(m: Map<string, T>, f: (v: T) => number) => [...m.values()].reduce((s, v) => s + f(v), 0);
  const left = total(failures, (v) => v.total);
  const failed = total(failures, (v) => v.failures);
  const ciRuns = total(ci, (v) => v.n);
  const started = total(batches, (v) => v.n);
  const mapValues = <T>(m: Map<string, T>, f: (v: T) => Record<string, number | null>) =>
    new Map([...m].map(([k, v]) => [k, f(v)]));
  return [
    line(
      'time-to-merge',
      'Time to merge',
      'minutes',
      mapValues(queueTime, (v) => ({ mean: v.n ? minutes(v.sum / v.n) : null, longest: minutes(v.max) })),
      medians.length ? `Last 90 days, ${medians.join('; ')}` : 'Nothing merged in the last 90 days',
    ),
    line(
      'queue-size',
      'Queue size',
      'pull requests',
      mapValues(size, (v) => ({ mean: round(v.avg), largest: v.max })),
      size.size
        ? `Largest: ${Math.max(...[...size.values()].map((v) => v.max))} pull requests`
        : 'No data in this period',
    ),
    line(
      'failure-rate',
      'Failure rate',
      '%',
      mapValues(failures, (v) => ({ 'failed %': v.total ? round((100 * v.failures) / v.total) : null })),
      left
        ? `${failed} of ${left} left the queue failing (${round((100 * failed) / left)} %)`
        : 'No pull request left the queue in this period',
    ),
    line(
      'batch-size',
      'Batch size',
      'pull requests',
      mapValues(batches, (v) => ({ mean: v.n ? round(v.sum / v.n) : null, largest: v.max })),
      started
        ? `${started} batches started, ${round(total(batches, (v) => v.sum) / started)} pull requests each on average`
        : 'No batch started in this period',
    ),
    line(
      'ci-runtime',
      'CI runtime',
      'minutes',
      mapValues(ci, (v) => ({ mean: v.n ? minutes(v.sum / v.n) : null })),
      ciRuns
        ? `${ciRuns} runs, ${minutes(total(ci, (v) => v.sum) / ciRuns)} min on average`
        : 'No checks ended in this period',
    ),
    {
      id: 'exit-reasons',
      title: 'Exit reasons',
      unit: 'pull requests',
      type: 'bar',
      labels: [...reasons.keys()],
      series: [{ label: 'pull requests', data: [...reasons.values()] }],
      summary: reasons.size
        ? `${total(reasons, (v) => v)} pull requests left the queue`
        : 'No pull request left the queue in this period',
    },
  ];
}
