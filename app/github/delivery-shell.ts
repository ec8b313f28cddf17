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
import { completeDelivery, type DeliveryLease } from '../store/webhook-deliveries.ts';
import type { FactsCache } from './facts-cache.ts';
import type { InstallationOctokits } from './octokit.ts';
import { createInstallationRepositoryClient } from './repository-client.ts';
import {
  fetchConfigInput,
  type RepositoryContext,
  type RepositoryPayload,
  resolveRepositoryContext,
} from './repository-context.ts';
import type { RepositoryChange } from './webhooks/repository-change.ts';

/** What the Probot handlers need from the process: resolved once, at start-up. */
export interface DeliveryShell {
  store: Store;
  octokits: InstallationOctokits;
  cache: FactsCache;
  /** The GitHub App's slug: commands are `@<slug> queue`. */
  appSlug: string;
  ids: IdSource;
  now: () => Date;
  /** The lease the delivery processor holds on a delivery (none when received outside it). */
  leaseOf(deliveryId: string): DeliveryLease | undefined;
  /** Something was stepped: the outbox and the scheduler may have new work. */
  stepped(): void;
}

/** The delivery was claimed again elsewhere after this lease ran out: its inputs must not apply twice. */
export class DeliveryLeaseLostError extends Error {
  constructor(deliveryId: string) {
    super(`delivery ${deliveryId}: lease lost, another claim applies it`);
    this.name = 'DeliveryLeaseLostError';
  }
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
  const context = await resolveRepositoryContext({
    store: shell.store,
    octokits: shell.octokits,
    // Every repository event carries these fields; their generated types differ in details.
    payload: delivery.payload as RepositoryPayload,
  });
  if (context === null) return;
  const inputs = [...context.bootstrap, ...(await translate(context))];
  await stepWithDelivery(shell, delivery.id, context.repository.id, inputs);
}

/** Installation and repository events: which repositories Trainyard serves. */
export async function applyRepositoryChanges(
  shell: DeliveryShell,
  delivery: { id: string },
  changes: RepositoryChange[],
): Promise<void> {
  const db = shell.store.db;
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
  if (lease !== undefined) await completeDelivery(db, lease, { now: shell.now() });
}

async function stepWithDelivery(
  shell: DeliveryShell,
  deliveryId: string | null,
  repositoryId: string,
  inputs: QueueInput[],
): Promise<void> {
  const now = shell.now();
  const lease = deliveryId === null ? undefined : shell.leaseOf(deliveryId);
  const outcome = await runStep({
    db: shell.store.db,
    repositoryId,
    inputs,
    now,
    ids: shell.ids,
    within: async (tx) => {
      if (lease !== undefined && !(await completeDelivery(tx, lease, { now }))) {
        throw new DeliveryLeaseLostError(lease.deliveryId);
      }
      return undefined;
    },
  });
  // Committed: the processor need not mark the delivery processed again.
  if (lease !== undefined) lease.completed = true;
  if (outcome.enqueued.length > 0 || outcome.wakeUps.length > 0) shell.stepped();
}
