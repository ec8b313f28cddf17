import { describe, expect, it } from 'vitest';
import { executeEffect, type GithubEffect } from '../../../../app/github/outbox/effect-runner.ts';
import { upgradeStoredEffect } from '../../../../app/github/outbox/effects/stored-effect.ts';
import { renderDraftPullRequest } from '../../../../app/github/render/test-branch.ts';
import type { DraftPullRequestFacts, Effect, PrepareTestBranch } from '../../../../app/queue/effects.ts';
import { prepareTestBranch, publishCheckRun } from '../../../support/effect-builders.ts';
import { nockCreateCheckRun, nockListCheckRuns } from '../../../support/nock/checks.ts';
import { REPO_PATH, useGithubNock } from '../../../support/nock/github-nock.ts';
import { nockCreateComment, nockListComments } from '../../../support/nock/issues.ts';

const github = useGithubNock();
const APP_ID = 777;

/** Outbox rows as the version before the words moved to the shell wrote them. */
const storedReply = {
  type: 'post_comment',
  key: 'post_comment:session-3:queued',
  number: 3,
  body: 'Queued in `default`.',
} as unknown as GithubEffect;

const storedCheckRun = (details: object) =>
  ({
    ...publishCheckRun(),
    title: 'Waiting in queue default at position 14',
    details,
  }) as unknown as GithubEffect;

const queuedDetails = {
  kind: 'queued',
  queueName: 'default',
  priorityAlias: 'medium',
  partitions: ['__default__'],
  position: 14,
  batch: { name: 'batch-2', phase: 'testing', pullRequests: [3, 4] },
  paused: false,
  waitingFor: null,
  estimatedMergeAt: null,
};

describe('outbox rows written by the previous version', () => {
  it('a reply carrying its body is posted as written', async () => {
    nockListComments(github, { number: 3, pages: [[]] });
    nockCreateComment(github, { number: 3, id: 2 });

    await executeEffect(storedReply, github.client());

    const posted = github.requests.find((r) => r.request.startsWith('POST'));
    expect(posted?.body).toEqual({
      body: 'Queued in `default`.\n\n<!-- trainyard:post_comment:session-3:queued -->',
    });
  });

  it("a queued check run's numeric position becomes its band, its batch not merged yet", async () => {
    nockListCheckRuns(github, {
      sha: 'pr-3-head',
      query: { check_name: 'Trainyard', app_id: String(APP_ID) },
      pages: [[]],
    });
    nockCreateCheckRun(github, { id: 31 });

    await executeEffect(storedCheckRun(queuedDetails), github.client(undefined, { appId: APP_ID }));

    const posted = github.requests.find((r) => r.request.startsWith('POST')) as
      | { body: { output: { title: string; summary: string } } }
      | undefined;
    expect(posted?.body.output.title).not.toContain('undefined');
    expect(posted?.body.output.summary).not.toContain('undefined');
    const upgraded = upgradeStoredEffect(storedCheckRun(queuedDetails) as Effect);
    expect(upgraded).toMatchObject({
      details: { position: { from: 11, to: 25 }, batch: { name: 'batch-2', merged: false } },
    });
    expect(upgraded).not.toHaveProperty('title');
  });

  it("a rejected configuration's check run without the pull request's place is dropped, not failed", async () => {
    github.mustNot('POST', `${REPO_PATH}/check-runs`, 'the republished check run supersedes it');
    const stored = storedCheckRun({ kind: 'config_rejected', errors: [] });

    expect(await executeEffect(stored, github.client(undefined, { appId: APP_ID }))).toEqual([]);
    expect(github.requests).toEqual([]);
  });

  it("a test branch's draft pull request worded by the engine is opened with the same words", () => {
    const words = {
      title: 'merge queue: batch-12.1.1 — #7',
      body: 'Testing #4, #7 on top of release/2.x (queue rule hotfix (urgent)).',
    };
    const stored = prepareTestBranch({
      base: 'release/2.x',
      pullRequests: [4, 7].map((number) => ({ number, headSha: `pr-${number}-head` })),
      draftPullRequest: words as never,
    });

    const upgraded = upgradeStoredEffect(stored) as PrepareTestBranch & {
      draftPullRequest: DraftPullRequestFacts;
    };

    expect(upgraded.draftPullRequest).toEqual({
      name: 'batch-12.1.1',
      numbers: [7],
      queueName: 'hotfix (urgent)',
    });
    expect(renderDraftPullRequest(upgraded)).toEqual(words);
  });

  it("today's effects pass unchanged", () => {
    const effect = publishCheckRun();
    expect(upgradeStoredEffect(effect)).toBe(effect);
    const branch = prepareTestBranch();
    expect(upgradeStoredEffect(branch)).toBe(branch);
  });
});
