import type {
  CancelChecks,
  CloseDraftPr,
  FastForwardBase,
  MergePr,
  PostComment,
  PrepareTestBranch,
  PublishCheckRun,
  ReactToComment,
  UpdatePrInPlace,
} from '../../app/queue/effects.ts';

/** Effects as the engine builds them, with only what a test changes given. */

export function prepareTestBranch(overrides: Partial<PrepareTestBranch> = {}): PrepareTestBranch {
  return {
    type: 'prepare_test_branch',
    key: 'prepare_test_branch:batch-a:1',
    batchId: 'batch-a',
    attempt: 1,
    branch: 'trainyard/merge-queue/0a1b2c3d',
    base: 'main',
    baseSha: null,
    pullRequests: [
      { number: 1, headSha: 'pr-1-head' },
      { number: 2, headSha: 'pr-2-head' },
    ],
    draftPullRequest: { name: 'batch-a', numbers: [1, 2], queueName: 'default' },
    ...overrides,
  };
}

export function updatePrInPlace(overrides: Partial<UpdatePrInPlace> = {}): UpdatePrInPlace {
  return {
    type: 'update_pr_in_place',
    key: 'update_pr_in_place:batch-a:1',
    batchId: 'batch-a',
    attempt: 1,
    number: 3,
    base: 'main',
    ...overrides,
  };
}

export function closeDraftPr(overrides: Partial<CloseDraftPr> = {}): CloseDraftPr {
  return {
    type: 'close_draft_pr',
    key: 'close_draft_pr:batch-a',
    batchId: 'batch-a',
    branch: 'trainyard/merge-queue/0a1b2c3d',
    draftPullRequest: 50,
    ...overrides,
  };
}

export function mergePr(overrides: Partial<MergePr> = {}): MergePr {
  return {
    type: 'merge_pr',
    key: 'merge_pr:batch-a:3',
    number: 3,
    method: 'squash',
    expectedHeadSha: 'pr-3-head',
    batchId: 'batch-a',
    ...overrides,
  };
}

export function fastForwardBase(overrides: Partial<FastForwardBase> = {}): FastForwardBase {
  return {
    type: 'fast_forward_base',
    key: 'fast_forward_base:batch-a:tested-1',
    base: 'main',
    sha: 'tested-1',
    numbers: [1, 2],
    batchId: 'batch-a',
    ...overrides,
  };
}

export function publishCheckRun(overrides: Partial<PublishCheckRun> = {}): PublishCheckRun {
  return {
    type: 'publish_check_run',
    key: 'publish_check_run:session-3:1',
    number: 3,
    headSha: 'pr-3-head',
    status: 'queued',
    conclusion: null,
    details: {
      kind: 'queued',
      queueName: 'default',
      priorityAlias: 'medium',
      partitions: ['__default__'],
      position: { from: 2, to: 2 },
      batch: null,
      paused: false,
      waitingFor: null,
      estimatedMergeAt: null,
    },
    ...overrides,
  };
}

export function postComment(overrides: Partial<PostComment> = {}): PostComment {
  return {
    type: 'post_comment',
    key: 'post_comment:session-3:queued',
    number: 3,
    reply: { kind: 'already_queued', queueName: 'default' },
    ...overrides,
  };
}

export function reactToComment(overrides: Partial<ReactToComment> = {}): ReactToComment {
  return {
    type: 'react_to_comment',
    key: 'react_to_comment:901',
    commentId: 901,
    content: 'eyes',
    ...overrides,
  };
}

export function cancelChecks(overrides: Partial<CancelChecks> = {}): CancelChecks {
  return {
    type: 'cancel_checks',
    key: 'cancel_checks:batch-a:tested-1',
    batchId: 'batch-a',
    sha: 'tested-1',
    ...overrides,
  };
}
