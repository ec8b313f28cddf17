import type { components } from '@octokit/openapi-webhooks-types';
import { CONFIG_PATH, parseConfig } from '../../../config/load-config.ts';
import { isTestBranch } from '../../../queue/ids.ts';
import type { QueueInput } from '../../../queue/inputs.ts';
import type { RepositoryClient } from '../../client/client.ts';

export type PushEvent = components['schemas']['webhook-push'];

export interface PushEventFacts {
  /**
   * `.github/trainyard.yml` at the pushed commit when the push may have changed it; `text` null:
   * there is no such file (the default configuration). null: the file was not read.
   */
  configFile: { text: string | null } | null;
}

const BRANCH_REF = 'refs/heads/';

/** The branch pushed to; null for tags and for the engine's own test branches. */
function branchOf(payload: PushEvent): string | null {
  if (!payload.ref.startsWith(BRANCH_REF)) return null;
  const branch = payload.ref.slice(BRANCH_REF.length);
  return isTestBranch(branch) ? null : branch;
}

/**
 * Whether the push may have changed the configuration: a commit added, modified or removed it,
 * or the commits cannot tell (a new branch, or a force-push that may have dropped a change).
 */
function mayChangeConfig(payload: PushEvent): boolean {
  if (payload.deleted || branchOf(payload) !== payload.repository.default_branch) return false;
  if (payload.created || payload.forced) return true;
  return payload.commits.some((commit) =>
    [commit.added, commit.modified, commit.removed].some((paths) => paths?.includes(CONFIG_PATH)),
  );
}

export async function fetchFacts(
  payload: PushEvent,
  ctx: { client: RepositoryClient },
): Promise<PushEventFacts> {
  if (!mayChangeConfig(payload)) return { configFile: null };
  return { configFile: { text: await ctx.client.getFileText({ path: CONFIG_PATH, ref: payload.after }) } };
}

/**
 * Any branch moved or was deleted: the engine keeps only the bases it cares about. A new
 * configuration comes first, so whatever the move rebuilds follows the new rules.
 */
export function toInputs(payload: PushEvent, facts: PushEventFacts): QueueInput[] {
  const branch = branchOf(payload);
  if (branch === null) return [];
  if (payload.deleted) return [{ type: 'base_branch_deleted', branch }];
  const inputs: QueueInput[] = [];
  if (facts.configFile !== null && mayChangeConfig(payload)) {
    const result = parseConfig(facts.configFile.text ?? '');
    inputs.push(
      result.ok
        ? { type: 'config_changed', config: result.config }
        : { type: 'config_rejected', errors: result.errors },
    );
  }
  inputs.push({ type: 'base_branch_moved', branch, sha: payload.after });
  return inputs;
}
