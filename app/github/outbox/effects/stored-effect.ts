import type { Effect, PrepareTestBranch } from '../../../queue/effects.ts';
import { queuePositionBand } from '../../../queue/position-band.ts';

/**
 * Outbox rows outlive the version that wrote them: an upgrade can find effects the previous
 * version queued. Until the words moved to the shell (app/github/render/), a check run carried
 * its title, a reply its body and a test branch its draft pull request's title and body, and a
 * queued check run's position was a number. Such rows are brought to today's shape here, so none
 * is posted wrong or fails for good:
 *
 * - a reply's body is posted as written;
 * - a draft pull request's title and body are read back as the facts they were worded from
 *   (one template made them), which the renderer words the same;
 * - a queued check run's position becomes its band, its batch not yet merged;
 * - a rejected configuration's check run, which now needs the pull request's place in the queue,
 *   is dropped (null): the upgraded engine publishes every queued pull request's check run again
 *   (its stored titles are not the headlines it compares), which supersedes it.
 */
export function upgradeStoredEffect(effect: Effect): Effect | null {
  const stored = effect as Effect & { body?: unknown; title?: unknown };
  if (stored.type === 'prepare_test_branch') return draftFactsFromWords(stored);
  if (stored.type === 'post_comment' && stored.reply === undefined && typeof stored.body === 'string') {
    const { body, ...rest } = stored;
    return { ...rest, reply: { kind: 'command_not_understood', text: body } };
  }
  if (stored.type !== 'publish_check_run' || stored.title === undefined) return effect;
  const { title: _words, ...rest } = stored;
  const { details } = rest;
  if (details.kind === 'config_rejected') return details.queued === undefined ? null : rest;
  if (details.kind !== 'queued') return rest;
  const position = details.position as unknown;
  return {
    ...rest,
    details: {
      ...details,
      position: typeof position === 'number' ? queuePositionBand(position) : details.position,
      batch: details.batch === null ? null : { ...details.batch, merged: details.batch.merged ?? false },
    },
  };
}

const draftTitle = /^merge queue: (.+) — (#\d+(?:, #\d+)*)$/;
const draftQueueRule = /\(queue rule (.+)\)\.$/;

/**
 * The facts back from the words. A title or body that does not read (no version wrote one) falls
 * back to what the effect itself says: the batch's id, all its pull requests, no rule named.
 */
function draftFactsFromWords(effect: PrepareTestBranch): PrepareTestBranch {
  const words = effect.draftPullRequest as { title?: unknown; body?: unknown } | null;
  if (words === null || typeof words.title !== 'string') return effect;
  const title = draftTitle.exec(words.title);
  const rule = typeof words.body === 'string' ? draftQueueRule.exec(words.body) : null;
  return {
    ...effect,
    draftPullRequest: {
      name: title?.[1] ?? effect.batchId,
      numbers: title
        ? title[2]!.split(', ').map((n) => Number(n.slice(1)))
        : effect.pullRequests.map((p) => p.number),
      queueName: rule?.[1] ?? '',
    },
  };
}
