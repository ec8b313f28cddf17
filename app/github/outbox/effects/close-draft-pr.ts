import type { CloseDraftPr } from '../../../queue/effects.ts';
import type { QueueInput } from '../../../queue/inputs.ts';
import type { PullRequestInfo, RepositoryClient } from '../../client/client.ts';
import { NotFoundError } from '../../client/errors.ts';
import { isOwnBranch, isOwnDraft, type Ownership, workBranchOf } from './ownership.ts';

/**
 * The batch is over: its draft pull request is closed and its branches deleted. Each step is
 * harmless when already done (closing a closed pull request, deleting a deleted branch), and a
 * draft whose number the engine never learned (the answer was lost) is found by its head.
 *
 * Only what is the app's own goes (ownership.ts): the pull request under the draft's number
 * must be the bot's, from the test branch; otherwise it is left alone, with a warning, and the
 * draft is looked for by its head. Branches are deleted only when named as test branches.
 */
export async function executeCloseDraftPr(
  effect: CloseDraftPr,
  client: RepositoryClient,
  owner: Ownership = {},
): Promise<QueueInput[]> {
  const { branch } = effect;
  if (!isOwnBranch(branch)) {
    owner.log?.warn({ key: effect.key, branch }, 'close_draft_pr: not a test branch of the app; left alone');
    return [];
  }
  const draft = await findOwnDraft(effect, client, owner);
  if (draft !== null) {
    try {
      await client.closePullRequest(draft);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    }
  }
  await client.deleteBranch(branch);
  // Left behind only when a preparation stopped half-way.
  await client.deleteBranch(workBranchOf(branch));
  return [];
}

/**
 * The draft to close: the engine's number when that is the app's draft, else the open pull
 * request from the test branch when that is; null when there is nothing of the app's to close.
 */
async function findOwnDraft(
  effect: CloseDraftPr,
  client: RepositoryClient,
  owner: Ownership,
): Promise<number | null> {
  if (effect.draftPullRequest !== null) {
    const known = await inspect(effect, client, owner, effect.draftPullRequest);
    if (known !== NOT_OURS) return known;
  }
  const found = await client.findOpenPullRequestByHead(effect.branch);
  if (found === null || found === effect.draftPullRequest) return null;
  const byHead = await inspect(effect, client, owner, found);
  return byHead === NOT_OURS ? null : byHead;
}

const NOT_OURS = Symbol('not the app’s');

/** The number when it is the app's open draft, null when it is the app's but closed or gone. */
async function inspect(
  effect: CloseDraftPr,
  client: RepositoryClient,
  owner: Ownership,
  number: number,
): Promise<number | null | typeof NOT_OURS> {
  let pull: PullRequestInfo;
  try {
    pull = await client.getPullRequest(number);
  } catch (error) {
    if (error instanceof NotFoundError) return null;
    throw error;
  }
  if (!isOwnDraft(pull, owner.identity, effect.branch)) {
    owner.log?.warn(
      { key: effect.key, pullRequest: number, author: pull.author.login, head: pull.head },
      'close_draft_pr: the pull request is not the app’s draft of this test branch; left alone',
    );
    return NOT_OURS;
  }
  return pull.state === 'open' ? number : null;
}
