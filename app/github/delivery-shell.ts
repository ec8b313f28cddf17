import type { IdSource } from '../queue/ids.ts';
import type { QueueInput } from '../queue/inputs.ts';
import type { Store } from '../store/database.ts';
import {
  detachRepository,
  removeRepository,
  renameRepository,
  saveInstalledRepository,
} from '../store/repositories.ts';
import { runStep } from '../store/step-transaction.ts';
import {
  completeDeliveries,
  completeDelivery,
  type DeliveryLease,
  DeliveryLeaseLostError,
} from '../store/webhook-deliveries.ts';
import type { FactsCache } from './facts-cache.ts';
import type { InstallationOctokits } from './octokit.ts';
import { createInstallationRepositoryClient } from './repository-client.ts';
import {
  fetchConfigInput,
  type RepositoryContext,
  type RepositoryPayload,
  resolveRepositoryContext,
} from './repository-context.ts';
import type { RepositoryLookup } from './repository-lookup.ts';
import { stepOnLookedUpRepository } from './stale-repository.ts';
import type { RepositoryChange } from './webhooks/repository-change.ts';

/** What the Probot handlers need from the process: resolved once, at start-up. */
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
  /** The lease the delivery processor holds on a delivery (none when received outside it). */
  leaseOf(deliveryId: string): ShellLease | undefined;
  /** Something was stepped: the outbox and the scheduler may have new work. */
  stepped(): void;
}

/** A delivery's engine step, handed to the processor to commit with others of its repository. */
export interface DeferredStep {
  repositoryId: string;
  /** A repository seen for the first time: its configuration, applied before the group's inputs. */
  bootstrap: QueueInput[];
  inputs: QueueInput[];
}

/** The processor's lease on a delivery, as the handlers see it. */
export interface ShellLease extends DeliveryLease {
  /**
   * Set when the delivery is committed with others (group commit): the handler hands its step
   * here instead of running it, and the processor commits the group (`commitDeliveryGroup`).
   */
  defer?: ((step: DeferredStep) => void) | undefined;
  /**
   * Shared by the deliveries of one group, translated side by side: each repository is looked up
   * once, and its client's reads are asked of GitHub once (shared-reads.ts).
   */
  shared?: SharedContexts | undefined;
}

/** Repository contexts being resolved for a group, by installation and repository. */
export type SharedContexts = Map<string, Promise<RepositoryContext | null>>;

/** One delivery of a group: its lease and its step (null: only to be marked processed). */
export interface GroupEntry {
  lease: DeliveryLease;
  step: DeferredStep | null;
}

/**
 * One repository delivery: resolve the repository, translate (fetching facts from GitHub
 * first, outside any transaction), then step the engine and mark the delivery processed in
 * one transaction, so a delivery's inputs apply exactly once.
 */
export async function applyRepositoryDelivery(
  shell: DeliveryShell,
  delivery: { id: string; payload: object },
  translate: (context: RepositoryContext) => Promise<QueueInput[]>,
): Promise<void> {
  const lease = shell.leaseOf(delivery.id);
  // Every repository event carries these fields; their generated types differ in details.
  const context = await resolveContext(shell, delivery.payload as RepositoryPayload, lease?.shared);
  if (context === null) return;
  const inputs = await translate(context);
  if (lease?.defer !== undefined) {
    lease.defer({ repositoryId: context.repository.id, bootstrap: context.bootstrap, inputs });
    return;
  }
  await stepWithDelivery(shell, delivery.id, context.repository.id, [...context.bootstrap, ...inputs]);
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

/** Installation and repository events: which repositories Trainyard serves. */
export async function applyRepositoryChanges(
  shell: DeliveryShell,
  delivery: { id: string },
  changes: RepositoryChange[],
): Promise<void> {
  const db = shell.store.db;
  // Rows change here: the lookups read them again (also when a change below fails half-way).
  shell.repositories.forgetAll();
  for (const change of changes) {
    switch (change.kind) {
      case 'added': {
        const repository = await saveInstalledRepository(db, change);
        const client = createInstallationRepositoryClient(shell.octokits, {
          installationId: change.installationId,
          owner: change.owner,
          repo: change.name,
        });
        const config = await fetchConfigInput(client, change.defaultBranch);
        await stepWithDelivery(shell, null, repository.id, [config]);
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
  const lease = shell.leaseOf(delivery.id);
  if (lease !== undefined && !lease.completed) {
    await completeDelivery(db, lease, { now: shell.now() });
    lease.completed = true;
  }
}

/**
 * Group commit: several deliveries of one repository, already translated, applied in order in
 * one step transaction that marks every one of them processed (all or none: a lost lease rolls
 * the group back). Deliveries without a step are only marked processed.
 */
export async function commitDeliveryGroup(
  shell: DeliveryShell,
  entries: readonly GroupEntry[],
): Promise<void> {
  const leases = entries.map((e) => e.lease);
  const repositories = new Set(entries.flatMap((e) => (e.step === null ? [] : [e.step.repositoryId])));
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
        inputs: [
          ...entries.flatMap((e) => e.step?.bootstrap ?? []),
          ...entries.flatMap((e) => e.step?.inputs ?? []),
        ],
        now,
        ids: shell.ids,
        deliveries: leases,
      }),
    );
    if (outcome.enqueued.length > 0 || outcome.wakeUps.length > 0) shell.stepped();
  } else {
    // A repository renamed onto another's name within the group: each on its own, in order.
    for (const entry of entries) await commitDeliveryGroup(shell, [entry]);
    return;
  }
  for (const lease of leases) lease.completed = true;
}

async function stepWithDelivery(
  shell: DeliveryShell,
  deliveryId: string | null,
  repositoryId: string,
  inputs: QueueInput[],
): Promise<void> {
  const now = shell.now();
  const lease = deliveryId === null ? undefined : shell.leaseOf(deliveryId);
  const outcome = await stepOnLookedUpRepository(shell.repositories, repositoryId, () =>
    runStep({
      db: shell.store.db,
      repositoryId,
      inputs,
      now,
      ids: shell.ids,
      ...(lease === undefined ? {} : { deliveries: [lease] }),
    }),
  );
  // Committed: the processor need not mark the delivery processed again.
  if (lease !== undefined) lease.completed = true;
  if (outcome.enqueued.length > 0 || outcome.wakeUps.length > 0) shell.stepped();
}
