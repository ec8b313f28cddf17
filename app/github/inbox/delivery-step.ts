import type { IdSource } from '../../queue/ids.ts';
import type { QueueInput } from '../../queue/inputs.ts';
import type { Store } from '../../store/database.ts';
import {
  detachRepository,
  removeRepository,
  renameRepository,
  saveInstalledRepository,
} from '../../store/repositories.ts';
import { runStep } from '../../store/step-transaction.ts';
import {
  completeDeliveries,
  completeDelivery,
  type DeliveryLease,
  DeliveryLeaseLostError,
} from '../../store/webhook-deliveries.ts';
import type { RepositoryClient } from '../client/client.ts';
import type { InstallationOctokits } from '../client/octokit.ts';
import { createInstallationRepositoryClient } from '../client/repository-client.ts';
import type { FactsCache } from '../translation/facts-cache.ts';
import {
  fetchConfigInput,
  type RepositoryContext,
  type RepositoryPayload,
  resolveRepositoryContext,
} from '../translation/repository-context.ts';
import type { RepositoryLookup } from '../translation/repository-lookup.ts';
import * as checkRun from '../translation/webhooks/check-run.ts';
import * as installation from '../translation/webhooks/installation.ts';
import * as issueComment from '../translation/webhooks/issue-comment.ts';
import * as pullRequest from '../translation/webhooks/pull-request.ts';
import * as pullRequestReview from '../translation/webhooks/pull-request-review.ts';
import * as push from '../translation/webhooks/push.ts';
import * as repository from '../translation/webhooks/repository.ts';
import type { RepositoryChange } from '../translation/webhooks/repository-change.ts';
import * as status from '../translation/webhooks/status.ts';
import { stepOnLookedUpRepository } from './stale-repository.ts';

/*
 * From a delivery to a step. The delivery processor hands each claimed delivery to
 * `translateDelivery()`, which answers with what it comes to (a `DeliveryStep`, or null), and
 * hands the group's answers to `commitDeliveries()`, which applies them in one transaction that
 * also marks the deliveries processed. No decision is made here.
 */

/** What translating and committing deliveries need from the process: resolved once, at start-up. */
export interface DeliveryShell {
  store: Store;
  octokits: InstallationOctokits;
  cache: FactsCache;
  /** Repository rows by name, kept a few seconds (one round trip fewer per delivery group). */
  repositories: RepositoryLookup;
  /** The GitHub App's slug: commands are `@<slug> queue`. */
  appSlug: string;
  ids: IdSource;
  now: () => Date;
  /** Something was stepped: the outbox and the scheduler may have new work. */
  stepped(): void;
}

/** A claimed delivery, its payload parsed. */
export interface Delivery {
  id: string;
  name: string;
  payload: unknown;
}

/**
 * What a delivery comes to: inputs for its repository's engine (committed with the others of
 * its group), or changes to which repositories are served (applied on their own).
 */
export type DeliveryStep =
  | {
      kind: 'inputs';
      repositoryId: string;
      /** A repository seen for the first time: its configuration, applied before the group's inputs. */
      bootstrap: QueueInput[];
      inputs: QueueInput[];
    }
  | { kind: 'repositories'; changes: RepositoryChange[] };

/** One delivery of a group: its lease and its step (null: only to be marked processed). */
export interface GroupEntry {
  lease: DeliveryLease;
  step: DeliveryStep | null;
}

/**
 * Repository contexts resolved for the deliveries of one group, translated side by side: each
 * repository is looked up once, and its client's reads are asked of GitHub once (translation/shared-reads.ts).
 */
export type SharedContexts = Map<string, Promise<RepositoryContext | null>>;

// A payload is typed as its translator reads it: the inbox checked, before storing it, that it
// has those fields (translation/webhooks/payload.schema.ts).
type Translate<P> = (payload: P, client: RepositoryClient, shell: DeliveryShell) => Promise<QueueInput[]>;
const on = <P>(translate: Translate<P>) => translate as Translate<unknown>;

/** Events about a repository's pull requests and commits: GitHub reads (`fetchFacts`), then inputs. */
const repositoryEvents: Record<string, Translate<unknown>> = {
  pull_request: on<pullRequest.PullRequestEvent>(async (payload, client, { cache }) =>
    pullRequest.toInputs(payload, await pullRequest.fetchFacts(payload, { client, cache })),
  ),
  pull_request_review: on<pullRequestReview.PullRequestReviewEvent>(async (payload, client, { cache }) =>
    pullRequestReview.toInputs(payload, await pullRequestReview.fetchFacts(payload, { client, cache })),
  ),
  issue_comment: on<issueComment.IssueCommentEvent>(async (payload, client, { appSlug }) =>
    issueComment.toInputs(payload, await issueComment.fetchFacts(payload, { client, appSlug })),
  ),
  check_run: on<checkRun.CheckRunEvent>(async (payload, client, { cache }) =>
    checkRun.toInputs(payload, await checkRun.fetchFacts(payload, { client, cache })),
  ),
  check_suite: on<checkRun.CheckSuiteEvent>(async (payload, client, { cache }) =>
    checkRun.toInputs(payload, await checkRun.fetchFacts(payload, { client, cache })),
  ),
  status: on<status.StatusEvent>(async (payload, client, { cache }) =>
    status.toInputs(payload, await status.fetchFacts(payload, { client, cache })),
  ),
  push: on<push.PushEvent>(async (payload, client) =>
    push.toInputs(payload, await push.fetchFacts(payload, { client })),
  ),
};

type InstallationPayload = installation.InstallationEvent | installation.InstallationRepositoriesEvent;
async function installationChanges(payload: InstallationPayload, shell: DeliveryShell) {
  const clientFor = (name: { owner: string; name: string }) =>
    createInstallationRepositoryClient(shell.octokits, {
      installationId: payload.installation.id,
      owner: name.owner,
      repo: name.name,
    });
  return installation.toRepositoryChanges(payload, await installation.fetchFacts(payload, { clientFor }));
}

/** Events that change which repositories Trainyard serves rather than a queue. */
const repositoryChangeEvents: Record<
  string,
  (payload: unknown, shell: DeliveryShell) => Promise<RepositoryChange[]>
> = {
  installation: (payload, shell) => installationChanges(payload as InstallationPayload, shell),
  installation_repositories: (payload, shell) => installationChanges(payload as InstallationPayload, shell),
  repository: async (payload) => repository.toRepositoryChanges(payload as repository.RepositoryEvent),
};

/** The webhook events Trainyard subscribes to; any other is acknowledged and dropped. */
export const handledEvents: ReadonlySet<string> = new Set([
  ...Object.keys(repositoryEvents),
  ...Object.keys(repositoryChangeEvents),
]);

/**
 * Whether the event's deliveries may be translated side by side and committed together. Those
 * that change which repositories are served are applied one at a time, before anything behind
 * them is translated.
 */
export function isGroupable(event: string): boolean {
  return !Object.hasOwn(repositoryChangeEvents, event);
}

/**
 * What a delivery comes to. A repository event: its repository resolved (an unknown one is
 * stored and its configuration read), the facts it needs read from GitHub, outside any
 * transaction, and its inputs. An installation or repository event: the changes to apply.
 * Null: nothing to apply (no repository in the payload, or an event without a translator).
 */
export async function translateDelivery(
  shell: DeliveryShell,
  delivery: Delivery,
  shared: SharedContexts | undefined,
): Promise<DeliveryStep | null> {
  const changes = repositoryChangeEvents[delivery.name];
  if (changes !== undefined) return { kind: 'repositories', changes: await changes(delivery.payload, shell) };
  const translate = repositoryEvents[delivery.name];
  if (translate === undefined) return null;
  // Every repository event carries these fields; their generated types differ in details.
  const context = await resolveContext(shell, delivery.payload as RepositoryPayload, shared);
  if (context === null) return null;
  const inputs = await translate(delivery.payload, context.client, shell);
  return { kind: 'inputs', repositoryId: context.repository.id, bootstrap: context.bootstrap, inputs };
}

/** The delivery's repository context; within a group, the one its first delivery resolved. */
async function resolveContext(
  shell: DeliveryShell,
  payload: RepositoryPayload,
  shared: SharedContexts | undefined,
): Promise<RepositoryContext | null> {
  const resolve = () =>
    resolveRepositoryContext({
      store: shell.store,
      octokits: shell.octokits,
      repositories: shell.repositories,
      payload,
      shareReads: shared !== undefined,
    });
  if (shared === undefined) return resolve();
  const repo = payload.repository;
  const key = `${payload.installation?.id}:${repo?.id}:${repo?.owner.login}/${repo?.name}`;
  const known = shared.get(key);
  if (known !== undefined) {
    const context = await known;
    // Stored and bootstrapped by another of the group: the configuration applies once, first.
    return context === null ? null : { ...context, bootstrap: [] };
  }
  const resolving = resolve();
  shared.set(key, resolving);
  resolving.catch(() => {
    if (shared.get(key) === resolving) shared.delete(key);
  });
  return resolving;
}

/**
 * Applies translated deliveries of one ordering key, in order. Inputs: in one step transaction
 * that marks every delivery processed (group commit: all or none, a lost lease rolls the group
 * back); deliveries without a step are only marked processed. Repository changes come alone.
 */
export async function commitDeliveries(shell: DeliveryShell, entries: readonly GroupEntry[]): Promise<void> {
  const [first] = entries;
  if (first?.step?.kind === 'repositories') {
    if (entries.length > 1) throw new Error('repository changes are applied one delivery at a time');
    await applyRepositoryChanges(shell, first.lease, first.step.changes);
    return;
  }
  const leases = entries.map((e) => e.lease);
  const steps = entries.map((e) => {
    if (e.step?.kind === 'repositories')
      throw new Error('repository changes are applied one delivery at a time');
    return e.step;
  });
  const repositories = new Set(steps.flatMap((s) => (s === null ? [] : [s.repositoryId])));
  const now = shell.now();
  if (repositories.size === 0) {
    const marked = await completeDeliveries(shell.store.db, leases, { now });
    const lost = leases.find((l) => !marked.has(l.deliveryId));
    if (lost !== undefined) throw new DeliveryLeaseLostError(lost.deliveryId);
  } else if (repositories.size === 1) {
    const [repositoryId] = repositories as Set<string>;
    const outcome = await stepOnLookedUpRepository(shell.repositories, repositoryId!, () =>
      runStep({
        db: shell.store.db,
        repositoryId: repositoryId!,
        // A new repository's configuration first, whichever delivery of the group resolved it.
        inputs: [...steps.flatMap((s) => s?.bootstrap ?? []), ...steps.flatMap((s) => s?.inputs ?? [])],
        now,
        ids: shell.ids,
        deliveries: leases,
      }),
    );
    if (outcome.enqueued.length > 0 || outcome.wakeUps.length > 0) shell.stepped();
  } else {
    // A repository renamed onto another's name within the group: each on its own, in order.
    for (const entry of entries) await commitDeliveries(shell, [entry]);
    return;
  }
  for (const lease of leases) lease.completed = true;
}

/** Installation and repository events: which repositories Trainyard serves. */
async function applyRepositoryChanges(
  shell: DeliveryShell,
  lease: DeliveryLease,
  changes: readonly RepositoryChange[],
): Promise<void> {
  const db = shell.store.db;
  // Rows change here: the lookups read them again (also when a change below fails half-way).
  shell.repositories.forgetAll();
  for (const change of changes) {
    switch (change.kind) {
      case 'added': {
        const added = await saveInstalledRepository(db, change);
        const client = createInstallationRepositoryClient(shell.octokits, {
          installationId: change.installationId,
          owner: change.owner,
          repo: change.name,
        });
        const config = await fetchConfigInput(client, change.defaultBranch);
        const outcome = await stepOnLookedUpRepository(shell.repositories, added.id, () =>
          runStep({ db, repositoryId: added.id, inputs: [config], now: shell.now(), ids: shell.ids }),
        );
        if (outcome.enqueued.length > 0 || outcome.wakeUps.length > 0) shell.stepped();
        break;
      }
      case 'renamed':
        await renameRepository(db, change);
        break;
      case 'removed':
        if (change.reason === 'deleted') await removeRepository(db, change);
        else await detachRepository(db, change);
        break;
    }
  }
  if (!lease.completed) {
    await completeDelivery(db, lease, { now: shell.now() });
    lease.completed = true;
  }
}
