import type { MergeQueueStatus } from '../../../shared/schemas/merge-queue.schema.ts';

/** What changed between two statuses that a person wants to hear about. */
export type Transition =
  | { kind: 'paused'; reason: string }
  | { kind: 'left'; number: number; title: string; url: string };

/** Queue paused, or one of my pull requests (by number) left the queue (merged or removed). */
export function transitions(
  before: MergeQueueStatus | null,
  after: MergeQueueStatus,
  mine: ReadonlySet<number>,
): Transition[] {
  if (!before) return [];
  const out: Transition[] = [];
  if (!before.pause && after.pause) out.push({ kind: 'paused', reason: after.pause.reason });
  const queued = (s: MergeQueueStatus) => [
    ...s.batches.flatMap((b) => b.pull_requests),
    ...s.waiting_pull_requests,
  ];
  const still = new Set(queued(after).map((p) => p.number));
  const seen = new Set<number>();
  for (const pr of queued(before)) {
    if (!mine.has(pr.number) || still.has(pr.number) || seen.has(pr.number)) continue;
    seen.add(pr.number);
    out.push({ kind: 'left', number: pr.number, title: pr.title, url: pr.url });
  }
  return out;
}
