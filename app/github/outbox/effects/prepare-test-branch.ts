import type { PrepareTestBranch } from '../../../queue/effects.ts';
import type { QueueInput, TestBranchFailure } from '../../../queue/inputs.ts';
import type { RepositoryClient } from '../../client/client.ts';
import {
  GithubRequestError,
  isTransientGithubError,
  MergeConflictError,
  NotFoundError,
} from '../../client/errors.ts';
import { renderDraftPullRequest, renderMergeMessage } from '../../render/test-branch.ts';
import { isOwnBranch, isOwnDraft, type Ownership, workBranchOf } from './ownership.ts';

/**
 * The batch's tested commit: the base (or `baseSha`) with each pull request's head merged in
 * order, then its draft pull request so CI runs.
 *
 * The merges are made on a work branch and the test branch is moved to the result at the end:
 * the test branch never points at the bare base, where GitHub would close its draft pull request
 * for having no commits, and a second run (the outbox retries) rebuilds the same content from
 * scratch instead of merging onto a half-built branch.
 */
export async function executePrepareTestBranch(
  effect: PrepareTestBranch,
  client: RepositoryClient,
  owner: Ownership = {},
): Promise<QueueInput[]> {
  const { batchId, attempt } = effect;
  const failed = (reason: TestBranchFailure, pullRequest: number | null, message: string): QueueInput[] => [
    { type: 'test_branch_failed', batchId, attempt, reason, pullRequest, message },
  ];
  // The branch and its work branch are force-moved and deleted: only names the app gives its own.
  if (!isOwnBranch(effect.branch)) {
    owner.log?.warn(
      { key: effect.key, branch: effect.branch },
      'prepare_test_branch: not a test branch name; left alone',
    );
    return failed('branch_update_failed', null, `${effect.branch} is not a test branch of the app`);
  }
  const start = effect.baseSha ?? (await client.getBranchSha(effect.base));
  if (start === null)
    return failed('branch_update_failed', null, `base branch ${effect.base} does not exist`);

  const built = await buildTestCommit(effect, client, start);
  if ('reason' in built) return failed(built.reason, built.pullRequest, built.message);
  let draftPullRequest: number | null = null;
  if (effect.draftPullRequest !== null) {
    const draft = await findOrOpenDraft(effect, client, owner);
    if (typeof draft !== 'number') return failed(draft.reason, null, draft.message);
    draftPullRequest = draft;
  }
  return [
    { type: 'test_branch_prepared', batchId, attempt, sha: built.sha, draftPullRequest, trees: built.trees },
  ];
}

interface BuildFailure {
  reason: TestBranchFailure;
  pullRequest: number;
  message: string;
}

/**
 * Merges the heads in order on the work branch, then moves the test branch there: its sha, and
 * the tree after each merge (what the base's tree must be once that prefix merged: merge integrity).
 */
async function buildTestCommit(
  effect: PrepareTestBranch,
  client: RepositoryClient,
  start: string,
): Promise<{ sha: string; trees: (string | null)[] } | BuildFailure> {
  const work = workBranchOf(effect.branch);
  await client.setBranch(work, start);
  let sha = start;
  const trees: (string | null)[] = [];
  for (const [index, pullRequest] of effect.pullRequests.entries()) {
    const head = pullRequest.headSha || (await client.getPullRequest(pullRequest.number)).headSha;
    try {
      const merged = await client.mergeIntoBranch({
        branch: work,
        head,
        message: renderMergeMessage(effect, { number: pullRequest.number, head }),
      });
      sha = merged.sha;
      // Nothing merged (the head was in already): the tree is the previous one.
      trees.push(merged.tree ?? trees.at(-1) ?? null);
    } catch (error) {
      if (isTransientGithubError(error) || !(error instanceof GithubRequestError)) throw error;
      await client.deleteBranch(work);
      const { number } = pullRequest;
      // The first pull request meets only the base; a later one also meets those merged before it.
      if (error instanceof MergeConflictError) {
        const reason = index === 0 ? 'conflict_with_base' : 'conflict_with_pull_request';
        return { reason, pullRequest: number, message: error.githubMessage };
      }
      const message =
        error instanceof NotFoundError ? `head ${head} of #${number} not found` : error.githubMessage;
      return { reason: 'branch_update_failed', pullRequest: number, message };
    }
  }
  await client.setBranch(effect.branch, sha);
  await client.deleteBranch(work);
  return { sha, trees };
}

/** How GitHub words a head branch it cannot see yet (422 on POST /pulls). */
const NOT_INDEXED =
  /head sha can't be blank|head ref must be a branch|PullRequest head invalid|not all refs are readable/i;

type DraftFailure = { reason: 'draft_pull_request_creation_failed' | 'branch_not_indexed'; message: string };

/** The open draft for the test branch: the one a previous run opened, or a new one. */
async function findOrOpenDraft(
  effect: PrepareTestBranch,
  client: RepositoryClient,
  owner: Ownership,
): Promise<number | DraftFailure> {
  // A pull request from the test branch that is not the app's is not adopted: it would be closed with the batch.
  const adopt = async (number: number): Promise<number | DraftFailure> => {
    const pull = await client.getPullRequest(number);
    if (isOwnDraft(pull, owner.identity, effect.branch)) return number;
    owner.log?.warn(
      { key: effect.key, pullRequest: number, author: pull.author.login },
      'prepare_test_branch: an open pull request from the test branch is not the app’s; left alone',
    );
    return {
      reason: 'draft_pull_request_creation_failed',
      message: `#${number}, open from ${effect.branch}, is not the app's draft pull request`,
    };
  };
  const existing = await client.findOpenPullRequestByHead(effect.branch);
  if (existing !== null) return adopt(existing);
  const draft = renderDraftPullRequest({ ...effect, draftPullRequest: effect.draftPullRequest! });
  try {
    return await client.createDraftPullRequest({ head: effect.branch, base: effect.base, ...draft });
  } catch (error) {
    if (isTransientGithubError(error) || !(error instanceof GithubRequestError)) throw error;
    // A retried creation that GitHub had already done answers "already exists": that one is ours (checked).
    const opened = await client.findOpenPullRequestByHead(effect.branch);
    if (opened !== null) return adopt(opened);
    // GitHub has not yet indexed a branch pushed a moment ago: it does not see it as a head.
    const notIndexed = error.status === 422 && NOT_INDEXED.test(error.githubMessage);
    return {
      reason: notIndexed ? 'branch_not_indexed' : 'draft_pull_request_creation_failed',
      message: error.githubMessage,
    };
  }
}
