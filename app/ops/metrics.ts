import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { failureLeaveCodes, leaveReasonCode } from '../../shared/schemas/event-outcome.ts';
import type { Db } from '../store/database.ts';
import { findRepositoryNames } from '../store/repositories.ts';
import type { CommittedStep } from '../store/step-observer.ts';
import { BoundedLabels, OTHER_LABEL } from './bounded-labels.ts';
import { StoredGauges } from './stored-gauges.ts';
import { TestedUnitEnds } from './tested-unit-outcome.ts';

export interface MetricsOptions {
  /** Where the stored gauges are read (the API's read connections: their statements are time-limited). */
  db: Db;
  mode: 'production' | 'sandbox';
  now?: () => Date;
  /** Repositories with a label of their own; the others are counted as `_other`. */
  repositoryLimit?: number;
  /** A scrape within this long of the last database read reuses it (a flood of scrapes reads once). */
  storedMaxAgeMs?: number;
}

/** Distinct GitHub routes and installations with a label of their own. */
const ROUTE_LIMIT = 200;
const INSTALLATION_LIMIT = 100;

/** The counters kept per repository id until its name is known (at the next scrape). */
interface RepositoryTally {
  metric: Counter<string>;
  labels: Record<string, string>;
  count: number;
}

/**
 * Every metric Trainyard exposes (docs/operations.md, "Metrics"), in a registry of its own, and
 * the hooks the shell calls to move them. Counters and histograms live in memory and are
 * incremented where things happen; the stored gauges (queue depth, backlogs) are read from the
 * database at scrape time with a few bounded, indexed queries (stored-gauges.ts), so a scrape's
 * cost does not follow the length of the queues.
 */
export class TrainyardMetrics {
  readonly registry = new Registry();
  private readonly repositories: BoundedLabels;
  private readonly routes = new BoundedLabels(ROUTE_LIMIT);
  private readonly installations = new BoundedLabels(INSTALLATION_LIMIT);
  /** Repository ids to labels, once looked up. */
  private readonly repositoryLabels = new Map<string, string>();
  private readonly pending = new Map<string, RepositoryTally[]>();
  private readonly stored: StoredGauges;
  private readonly unitEnds = new TestedUnitEnds();
  private rendering: Promise<string> | null = null;

  private readonly httpDuration = new Histogram({
    name: 'trainyard_http_request_duration_seconds',
    help: 'Time to answer an HTTP request (API, webhooks, operations), by method, route template and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  private readonly deliveriesReceived = new Counter({
    name: 'trainyard_webhook_deliveries_received_total',
    help: 'Webhook deliveries stored (redeliveries and ignored events excluded), by event',
    labelNames: ['event'],
    registers: [this.registry],
  });
  private readonly deliveriesProcessed = new Counter({
    name: 'trainyard_webhook_deliveries_processed_total',
    help: 'Webhook deliveries whose step committed, by event',
    labelNames: ['event'],
    registers: [this.registry],
  });
  private readonly deliveryFailures = new Counter({
    name: 'trainyard_webhook_delivery_failures_total',
    help: 'Failed attempts at processing a delivery, by event and what followed (retried, given_up, parked)',
    labelNames: ['event', 'outcome'],
    registers: [this.registry],
  });
  private readonly deliveryLag = new Histogram({
    name: 'trainyard_webhook_delivery_lag_seconds',
    help: 'From a delivery stored to its step committed, by event',
    labelNames: ['event'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600],
    registers: [this.registry],
  });
  private readonly effects = new Counter({
    name: 'trainyard_outbox_effects_total',
    help: 'Outbox effect attempts, by effect type and outcome (done, retried, failed for good)',
    labelNames: ['effect', 'outcome'],
    registers: [this.registry],
  });
  private readonly stepDuration = new Histogram({
    name: 'trainyard_step_duration_seconds',
    help: "An engine step's transaction, the repository lock included, by its first input's type",
    labelNames: ['input'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });
  private readonly merged = new Counter({
    name: 'trainyard_pull_requests_merged_total',
    help: 'Pull requests the merge queue merged, by repository',
    labelNames: ['repository'],
    registers: [this.registry],
  });
  private readonly ejected = new Counter({
    name: 'trainyard_pull_requests_ejected_total',
    help: 'Pull requests that left the queue because something failed (checks, conflicts, merge), by repository and leave code',
    labelNames: ['repository', 'reason'],
    registers: [this.registry],
  });
  private readonly dequeued = new Counter({
    name: 'trainyard_pull_requests_dequeued_total',
    help: 'Pull requests that left the queue unmerged for another reason (dequeued, closed, updated, configuration), by repository and leave code',
    labelNames: ['repository', 'reason'],
    registers: [this.registry],
  });
  private readonly verified = new Counter({
    name: 'trainyard_merge_verifications_total',
    help: 'Merged pull requests whose batch had its landed tree compared with the tested tree (merge integrity), by repository and outcome (equal, different, base_moved_outside, tree_unknown)',
    labelNames: ['repository', 'outcome'],
    registers: [this.registry],
  });
  private readonly batches = new Counter({
    name: 'trainyard_batches_total',
    help: 'Tested batches (and bisection sub-batches) whose checks ended, by repository and outcome (success, failure, aborted, other)',
    labelNames: ['repository', 'outcome'],
    registers: [this.registry],
  });
  private readonly githubRequests = new Counter({
    name: 'trainyard_github_requests_total',
    help: 'Requests to GitHub (each attempt), by route template and status (network: no answer)',
    labelNames: ['route', 'status'],
    registers: [this.registry],
  });
  private readonly githubDuration = new Histogram({
    name: 'trainyard_github_request_duration_seconds',
    help: 'Time GitHub took to answer, by route template',
    labelNames: ['route'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });
  private readonly rateLimitRemaining = new Gauge({
    name: 'trainyard_github_rate_limit_remaining',
    help: 'Requests left in the current rate-limit window, as the last answer said, by installation and resource',
    labelNames: ['installation', 'resource'],
    registers: [this.registry],
  });

  constructor(private readonly options: MetricsOptions) {
    this.repositories = new BoundedLabels(options.repositoryLimit ?? 100);
    new Gauge({
      name: 'trainyard_info',
      help: 'Always 1; the mode (production: a GitHub App; sandbox: the local code host)',
      labelNames: ['mode'],
      registers: [this.registry],
    }).set({ mode: options.mode }, 1);
    this.stored = new StoredGauges({
      db: options.db,
      registry: this.registry,
      repositories: this.repositories,
      now: options.now ?? (() => new Date()),
      maxAgeMs: options.storedMaxAgeMs ?? 1_000,
    });
    collectDefaultMetrics({ register: this.registry });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /**
   * The exposition text: the stored gauges read (or reused, when fresh), the tallies named.
   * Scrapes that come while one is being made get the same text: the rendering is done once.
   */
  scrape(): Promise<string> {
    this.rendering ??= (async () => {
      await Promise.all([this.stored.refresh(), this.nameTallies()]);
      return this.registry.metrics();
    })().finally(() => {
      this.rendering = null;
    });
    return this.rendering;
  }

  /** An HTTP request answered; `route` is the route's template (null: none matched). */
  readonly httpRequestServed = (
    method: string,
    route: string | null,
    status: number,
    seconds: number,
  ): void => {
    this.httpDuration.observe({ method, route: route ?? 'unmatched', status: String(status) }, seconds);
  };

  /** A webhook delivery stored. */
  readonly webhookReceived = (event: string): void => {
    this.deliveriesReceived.inc({ event });
  };

  /** The delivery processor's hooks. */
  readonly deliveries = {
    processed: (event: string, lagSeconds: number): void => {
      this.deliveriesProcessed.inc({ event });
      this.deliveryLag.observe({ event }, lagSeconds);
    },
    failed: (event: string, outcome: 'retried' | 'given_up' | 'parked'): void => {
      this.deliveryFailures.inc({ event, outcome });
    },
  };

  /** The outbox worker's hook. */
  readonly effectsObserver = {
    effectHandled: (effect: string, outcome: 'done' | 'retried' | 'failed'): void => {
      this.effects.inc({ effect, outcome });
    },
  };

  /** A request to GitHub ended. */
  readonly githubRequest = (report: {
    route: string;
    status: string;
    seconds: number;
    installationId: number;
    rateLimit: { resource: string; remaining: number } | null;
  }): void => {
    const route = this.routes.labelOf(report.route);
    this.githubRequests.inc({ route, status: report.status });
    this.githubDuration.observe({ route }, report.seconds);
    if (report.rateLimit === null) return;
    const installation = this.installations.labelOf(String(report.installationId));
    // The remaining count of "the others" would be any one of them: not worth a series.
    if (installation !== String(report.installationId)) return;
    this.rateLimitRemaining.set(
      { installation, resource: report.rateLimit.resource },
      report.rateLimit.remaining,
    );
  };

  /** A step committed (app/store/step-observer.ts): its time, and what its events count. */
  readonly stepCommitted = (step: CommittedStep): void => {
    this.stepDuration.observe({ input: step.inputs[0]?.type ?? 'none' }, step.seconds);
    for (const event of step.events) {
      if (event.type === 'action.queue.merged') this.tally(step.repositoryId, this.merged, {});
      else if (event.type === 'action.queue.merge_verified')
        this.tally(step.repositoryId, this.verified, { outcome: String(event.metadata.outcome) });
      else if (event.type === 'action.queue.leave' && event.metadata.merged !== true) {
        const code = leaveReasonCode(String(event.metadata.reason ?? ''));
        const metric = code !== null && failureLeaveCodes.has(code) ? this.ejected : this.dequeued;
        this.tally(step.repositoryId, metric, { reason: code ?? 'OTHER' });
      }
    }
    for (const outcome of this.unitEnds.outcomesOf(step.events)) {
      this.tally(step.repositoryId, this.batches, { outcome });
    }
  };

  /** Counted now under the repository's label when known, else kept until the next scrape names it. */
  private tally(repositoryId: string, metric: Counter<string>, labels: Record<string, string>): void {
    const known = this.repositoryLabels.get(repositoryId);
    if (known !== undefined) {
      metric.inc({ ...labels, repository: known });
      return;
    }
    let tallies = this.pending.get(repositoryId);
    if (tallies === undefined) {
      tallies = [];
      this.pending.set(repositoryId, tallies);
    }
    const key = JSON.stringify(labels);
    // A few series per repository between two scrapes: a search is enough.
    const tally = tallies.find((t) => t.metric === metric && JSON.stringify(t.labels) === key);
    if (tally === undefined) tallies.push({ metric, labels, count: 1 });
    else tally.count++;
  }

  /** Looks up the names of the repositories counted since the last scrape (one indexed query). */
  private async nameTallies(): Promise<void> {
    if (this.pending.size === 0) return;
    let names: Map<string, string>;
    try {
      names = await findRepositoryNames(this.options.db, [...this.pending.keys()]);
    } catch {
      return; // Kept for the next scrape.
    }
    for (const [id, tallies] of this.pending) {
      const name = names.get(id);
      // A repository deleted since: counted with the others.
      const label = name === undefined ? OTHER_LABEL : this.repositories.labelOf(name);
      this.repositoryLabels.set(id, label);
      for (const t of tallies) t.metric.inc({ ...t.labels, repository: label }, t.count);
    }
    this.pending.clear();
  }
}
