import { Gauge, type Registry } from 'prom-client';
import { KEY_SEPARATOR } from '../queue/composite-key.ts';
import { readBacklog } from '../store/backlog.ts';
import type { Db } from '../store/database.ts';
import { type RepositoryQueueGauges, readQueueGauges } from '../store/queue-gauges.ts';
import { type BoundedLabels, OTHER_LABEL } from './bounded-labels.ts';

/** Repositories whose queue gauges one scrape reads, at most. */
const REPOSITORY_ROWS = 5_000;
/** Rows counted per backlog, at most: beyond, the gauge says "at least this many". */
const BACKLOG_CAP = 10_000;
/** The longest a scrape waits for the database before answering without the stored gauges. */
const READ_TIMEOUT_MS = 2_000;
const DAY_MS = 24 * 3600_000;

/**
 * The gauges read from the database, shared by every instance: queue depth and running checks
 * per repository and lane (from the small gauges part of each engine state), and the webhook and
 * outbox backlogs (through their partial indexes, counted up to a cap). One read at a time:
 * scrapes that come while one is under way, or within `maxAgeMs` of the last, reuse it. When
 * the database does not answer, the scrape still answers: the queue gauges are left out, the
 * backlog ones read 0, and `trainyard_stored_gauges_up` is 0.
 */
export class StoredGauges {
  private readonly queueDepth: Gauge<string>;
  private readonly checksRunning: Gauge<string>;
  private readonly deliveriesPending: Gauge<string>;
  private readonly deliveryAge: Gauge<string>;
  private readonly outboxPending: Gauge<string>;
  private readonly outboxAge: Gauge<string>;
  private readonly outboxFailed: Gauge<string>;
  private readonly up: Gauge<string>;
  private readonly readSeconds: Gauge<string>;
  /** Each repository's gauges as last read, with its state's version and label. */
  private readonly queues = new Map<
    string,
    { version: string; label: string; sizes: Record<string, number>; running: Record<string, number> }
  >();
  private reading: Promise<void> | null = null;
  private readAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly options: {
      db: Db;
      registry: Registry;
      repositories: BoundedLabels;
      now: () => Date;
      maxAgeMs: number;
    },
  ) {
    const registers = [options.registry];
    const lane = ['repository', 'base', 'partition', 'queue'];
    this.queueDepth = new Gauge({
      name: 'trainyard_queue_depth',
      help: 'Pull requests waiting or being tested, by repository, base branch, partition and queue rule',
      labelNames: lane,
      registers,
    });
    this.checksRunning = new Gauge({
      name: 'trainyard_checks_running',
      help: 'Batches whose checks are running, by repository, base branch, partition and queue rule',
      labelNames: lane,
      registers,
    });
    this.deliveriesPending = new Gauge({
      name: 'trainyard_webhook_deliveries_pending',
      help: `Webhook deliveries stored and not processed yet (all instances; counted up to ${BACKLOG_CAP})`,
      registers,
    });
    this.deliveryAge = new Gauge({
      name: 'trainyard_webhook_oldest_pending_age_seconds',
      help: 'Age of the oldest unprocessed webhook delivery (0: none)',
      registers,
    });
    this.outboxPending = new Gauge({
      name: 'trainyard_outbox_pending',
      help: `Effects in the outbox not done yet (all instances; counted up to ${BACKLOG_CAP})`,
      registers,
    });
    this.outboxAge = new Gauge({
      name: 'trainyard_outbox_oldest_pending_age_seconds',
      help: 'Age of the oldest pending outbox effect (0: none)',
      registers,
    });
    this.outboxFailed = new Gauge({
      name: 'trainyard_outbox_failed_last_24h',
      help: 'Effects that failed for good in the last 24 hours (all instances)',
      registers,
    });
    this.up = new Gauge({
      name: 'trainyard_stored_gauges_up',
      help: '1 when the last scrape read the stored gauges (queue depth, backlogs) from the database, else 0',
      registers,
    });
    this.readSeconds = new Gauge({
      name: 'trainyard_stored_gauges_read_seconds',
      help: 'How long the last read of the stored gauges took',
      registers,
    });
  }

  /** Reads the gauges unless a read is under way (joined) or the last is fresh enough. */
  refresh(): Promise<void> {
    if (this.reading !== null) return this.reading;
    if (performance.now() - this.readAt < this.options.maxAgeMs) return Promise.resolve();
    this.reading = this.read().finally(() => {
      this.readAt = performance.now();
      this.reading = null;
    });
    return this.reading;
  }

  private async read(): Promise<void> {
    const startedAt = performance.now();
    const now = this.options.now();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('no answer in time')), READ_TIMEOUT_MS);
    });
    try {
      // PGlite has no statement timeout: the scrape stops waiting, the query finishes on its own.
      const [queues, backlog] = await Promise.race([
        Promise.all([
          readQueueGauges(this.options.db, { limit: REPOSITORY_ROWS, known: this.knownVersions() }),
          readBacklog(this.options.db, { cap: BACKLOG_CAP, failedSince: new Date(now.getTime() - DAY_MS) }),
        ]),
        timeout,
      ]);
      if (this.applyQueues(queues)) {
        this.queueDepth.reset();
        this.checksRunning.reset();
        for (const queue of this.queues.values()) {
          // Summed over priority rules: a lane's depth is what operators watch.
          for (const [key, size] of Object.entries(queue.sizes)) {
            this.queueDepth.inc(laneLabels(queue.label, key), size);
          }
          for (const [key, running] of Object.entries(queue.running)) {
            this.checksRunning.inc(laneLabels(queue.label, key), running);
          }
        }
      }
      const ageOf = (at: Date | null) =>
        at === null ? 0 : Math.max(0, (now.getTime() - at.getTime()) / 1_000);
      this.deliveriesPending.set(backlog.deliveriesPending);
      this.deliveryAge.set(ageOf(backlog.oldestDeliveryReceivedAt));
      this.outboxPending.set(backlog.outboxPending);
      this.outboxAge.set(ageOf(backlog.oldestOutboxCreatedAt));
      this.outboxFailed.set(backlog.outboxFailed);
      this.up.set(1);
    } catch {
      // Stale values would mislead: none (0 for the unlabelled ones) rather than old ones.
      for (const gauge of [
        this.queueDepth,
        this.checksRunning,
        this.deliveriesPending,
        this.deliveryAge,
        this.outboxPending,
        this.outboxAge,
        this.outboxFailed,
      ]) {
        gauge.reset();
      }
      this.queues.clear();
      this.up.set(0);
    } finally {
      clearTimeout(timer);
      this.readSeconds.set((performance.now() - startedAt) / 1_000);
    }
  }

  private knownVersions(): Map<string, string> {
    return new Map([...this.queues].map(([id, q]) => [id, q.version]));
  }

  /** Takes in what was read; returns whether any repository's gauges changed (or went). */
  private applyQueues(rows: readonly RepositoryQueueGauges[]): boolean {
    let changed = rows.length !== this.queues.size;
    const present = new Set<string>();
    for (const row of rows) {
      present.add(row.repositoryId);
      if (row.gauges === null) continue;
      changed = true;
      this.queues.set(row.repositoryId, {
        version: row.version,
        label: this.options.repositories.labelOf(`${row.owner}/${row.name}`),
        ...row.gauges,
      });
    }
    for (const id of this.queues.keys()) if (!present.has(id)) this.queues.delete(id);
    // Unchanged: the gauges of the last read stand (after a failure, `queues` is empty and every row is sent again).
    return changed;
  }
}

function laneLabels(repository: string, key: string): Record<string, string> {
  const [base = '', partition = '', queue = ''] = key.split(KEY_SEPARATOR);
  return { repository: repository || OTHER_LABEL, base, partition, queue };
}
