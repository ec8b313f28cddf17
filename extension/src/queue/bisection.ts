import type { Batch } from '../../../shared/schemas/merge-queue.schema.ts';

export type ProbeOutcome = 'passed' | 'failed' | 'pending';

/** A bisecting batch read as a person reads it: its probes, each pull request once, the suspects. */
export interface Bisection {
  /** Each probe (sub-batch) with the pull requests shown under it: those in no smaller probe. */
  probes: { batch: Batch; outcome: ProbeOutcome; shown: number[] }[];
  /** The batch's pull requests in no probe. */
  unprobed: number[];
  /** Not cleared by a passed probe. */
  suspects: number[];
  /** The one suspect a failed probe leaves, once bisection has narrowed it down; else null. */
  culprit: number | null;
}

export function probeOutcome(batch: Batch): ProbeOutcome {
  if (batch.status.code === 'failed') return 'failed';
  if (batch.ci_finished_at !== null || batch.status.code === 'merged' || batch.status.code === 'merging')
    return 'passed';
  return 'pending';
}

export function readBisection(batch: Batch): Bisection {
  const probes = [...(batch.sub_batches ?? [])];
  const numbers = (b: Batch) => b.pull_requests.map((p) => p.number);
  const cleared = new Set(probes.filter((p) => probeOutcome(p) === 'passed').flatMap(numbers));
  const suspects = numbers(batch).filter((n) => !cleared.has(n));
  let culprit: number | null = null;
  for (const probe of probes) {
    if (probeOutcome(probe) !== 'failed') continue;
    const left = numbers(probe).filter((n) => !cleared.has(n));
    if (left.length === 1) culprit = left[0]!;
  }
  // Smallest probe first: a pull request is shown under the smallest probe that holds it.
  const bySize = probes
    .map((b, i) => ({ b, i }))
    .sort((x, y) => x.b.pull_requests.length - y.b.pull_requests.length || x.i - y.i);
  const shownIn = new Map<number, number>();
  for (const { b, i } of bySize) for (const n of numbers(b)) if (!shownIn.has(n)) shownIn.set(n, i);
  return {
    probes: probes.map((b, i) => ({
      batch: b,
      outcome: probeOutcome(b),
      shown: numbers(b).filter((n) => shownIn.get(n) === i),
    })),
    unprobed: numbers(batch).filter((n) => !shownIn.has(n)),
    suspects,
    culprit,
  };
}
