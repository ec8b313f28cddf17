import type { Logger } from 'pino';
import type { Effect } from '../../queue/effects.ts';
import { describeIntegrityFailure } from '../../queue/integrity.ts';
import type { QueueState } from '../../queue/state.ts';

/**
 * A verify_merge whose answer the engine judged `different`: the base holds a tree the queue
 * never tested, and the queue paused itself. Logged at error level, with both trees, so that an
 * operator's alerting sees it without reading the event log.
 */
export function logIntegrityFailure(effect: Effect, state: QueueState | null, log: Logger): void {
  if (effect.type !== 'verify_merge' || state === null) return;
  const result = state.mergeIntegrity?.recent.at(-1);
  if (result === undefined || result.outcome !== 'different') return;
  if (result.testedSha !== effect.testedSha || result.base !== effect.base) return;
  log.error(
    {
      mergeIntegrity: {
        batch: result.batchName,
        base: result.base,
        pullRequests: result.pullRequests,
        testedSha: result.testedSha,
        testedTree: result.expectedTree,
        landedSha: result.landedSha,
        landedTree: result.landedTree,
        partial: result.partial,
      },
    },
    `${describeIntegrityFailure(result)}: the merge queue paused itself`,
  );
}
