import type { PublishCheckRun } from '../../../queue/effects.ts';
import type { QueueInput } from '../../../queue/inputs.ts';
import type { RepositoryClient } from '../../client/client.ts';
import { CHECK_RUN_NAME, renderCheckRunSummary, renderCheckRunTitle } from '../../render/check-run.ts';

/** Creates the "Trainyard" check run on the head, or updates the one already there. */
export async function executePublishCheckRun(
  effect: PublishCheckRun,
  client: RepositoryClient,
): Promise<QueueInput[]> {
  await client.upsertCheckRun({
    name: CHECK_RUN_NAME,
    headSha: effect.headSha,
    status: effect.status,
    conclusion: effect.conclusion,
    title: renderCheckRunTitle(effect.details),
    summary: renderCheckRunSummary(effect.details),
  });
  return [];
}
