import type { Logger } from 'pino';
import type { Batch } from '../shared/schemas/merge-queue.schema.ts';
import { queueStateSchema } from './queue/state.schema.ts';
import { computeMergeQueueStatus } from './queue/status-projection.ts';
import type { Queryable } from './store/database.ts';
import { loadQueueState } from './store/queue-state.ts';
import { findRepository } from './store/repositories.ts';

const HOUR = 3_600_000;

/** What the periodic line says about one repository's queue. */
export interface ActivitySummary {
  repository: string;
  /** Pull requests in the queue: in batches under test or waiting for one. */
  queued: number;
  /** Batches in line (tested or waiting to merge). */
  batches: number;
  /** Pull requests merged by the queue in the hour before `now`. */
  mergedLastHour: number;
}

/** Reads one repository's queue depth and merges of the last hour (null: the repository is unknown yet). */
export async function readActivitySummary(
  db: Queryable,
  params: { owner: string; name: string; base?: string; now: Date },
): Promise<ActivitySummary | null> {
  const repo = await findRepository(db, params.owner, params.name);
  if (repo === null) return null;
  const stored = await loadQueueState(db, repo.id);
  let queued = 0;
  let batches = 0;
  if (stored !== null) {
    const status = computeMergeQueueStatus(queueStateSchema.parse(stored), {
      base: params.base ?? repo.defaultBranch,
      now: params.now,
    });
    const numbers = new Set<number>();
    const visit = (batch: Batch) => {
      for (const pull of batch.pull_requests) numbers.add(pull.number);
      for (const sub of batch.sub_batches ?? []) visit(sub);
    };
    for (const batch of status.batches) visit(batch);
    for (const pull of status.waiting_pull_requests) numbers.add(pull.number);
    queued = numbers.size;
    batches = status.batches.length;
  }
  const merged = await db
    .selectFrom('events')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('repository_id', '=', repo.id)
    .where('type', '=', 'action.queue.merged')
    .where('received_at', '>', new Date(params.now.getTime() - HOUR))
    .where('received_at', '<=', params.now)
    .executeTakeFirstOrThrow();
  return {
    repository: `${params.owner}/${params.name}`,
    queued,
    batches,
    mergedLastHour: Number(merged.count),
  };
}

/** The line itself: short enough to read at a glance between other lines. */
export function formatActivitySummary(summary: ActivitySummary): string {
  const prs = (n: number) => `${n} pull request${n === 1 ? '' : 's'}`;
  return (
    `${summary.repository}: ${prs(summary.queued)} in the queue` +
    `${summary.batches > 0 ? ` (${summary.batches} batch${summary.batches === 1 ? '' : 'es'})` : ''}, ` +
    `${summary.mergedLastHour} merged in the last hour`
  );
}

/**
 * Logs a summary line of a repository's queue every `everyMs` (default a minute), at info, so
 * that a terminal whose per-request lines are at debug still shows that the system is alive.
 * Returns a function that stops it.
 */
export function startActivitySummary(params: {
  db: Queryable;
  logger: Pick<Logger, 'info' | 'warn'>;
  owner: string;
  name: string;
  now: () => Date;
  everyMs?: number;
}): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return; // a slow read (a busy PGlite) is not stacked
    running = true;
    readActivitySummary(params.db, { owner: params.owner, name: params.name, now: params.now() })
      .then((summary) => {
        if (summary) params.logger.info(summary, formatActivitySummary(summary));
      })
      .catch((error: unknown) =>
        params.logger.warn({ error: (error as Error).message }, 'could not read the queue summary'),
      )
      .finally(() => {
        running = false;
      });
  }, params.everyMs ?? 60_000);
  timer.unref();
  return () => clearInterval(timer);
}
