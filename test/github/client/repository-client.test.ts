import { describe, expect, it } from 'vitest';
import { MergeConflictError, MergeRefusedError, NotFoundError } from '../../../app/github/client/errors.ts';
import { reviewJson } from '../../support/nock/fixtures.ts';
import { useGithubNock } from '../../support/nock/github-nock.ts';
import { mergeConflict, nockMergeBranches } from '../../support/nock/merges.ts';
import {
  nockGetPull,
  nockListPullFiles,
  nockListReviews,
  nockMergePull,
  nockPullsForCommit,
  nockUpdatePullBranch,
} from '../../support/nock/pulls.ts';
import { nockDeleteRef, nockGetRef, nockSetBranch } from '../../support/nock/refs.ts';
import { nockGetContent, nockGetPermission, nockGetRepository } from '../../support/nock/repos.ts';

const github = useGithubNock();

describe('RepositoryClient over REST', () => {
  describe('branches', () => {
    it('reads a branch head, and null for a branch that does not exist', async () => {
      nockGetRef(github, { branch: 'main', sha: 'main-1' });
      nockGetRef(github, { branch: 'gone', sha: null });
      const client = github.client();

      expect(await client.getBranchSha('main')).toBe('main-1');
      expect(await client.getBranchSha('gone')).toBeNull();
      expect(github.isDone()).toBe(true);
    });

    it('sets a branch by forcing the ref, creating it when it does not exist', async () => {
      nockSetBranch(github, { branch: 'feature/a', sha: 'a-1', exists: true });
      nockSetBranch(github, { branch: 'feature/b', sha: 'b-1', exists: false });
      const client = github.client();

      await client.setBranch('feature/a', 'a-1');
      await client.setBranch('feature/b', 'b-1');

      expect(github.requests).toMatchInlineSnapshot(`
        [
          {
            "body": {
              "force": true,
              "sha": "a-1",
            },
            "request": "PATCH /repos/acme/widgets/git/refs/heads%2Ffeature%2Fa",
          },
          {
            "body": {
              "force": true,
              "sha": "b-1",
            },
            "request": "PATCH /repos/acme/widgets/git/refs/heads%2Ffeature%2Fb",
          },
          {
            "body": {
              "ref": "refs/heads/feature/b",
              "sha": "b-1",
            },
            "request": "POST /repos/acme/widgets/git/refs",
          },
        ]
      `);
      expect(github.isDone()).toBe(true);
    });

    it('deleting a branch that is already gone is not an error', async () => {
      nockDeleteRef(github, { branch: 'feature/a', missing: true });

      await expect(github.client().deleteBranch('feature/a')).resolves.toBeUndefined();
      expect(github.isDone()).toBe(true);
    });

    it('a merge into a branch conflicting throws MergeConflictError with GitHub message', async () => {
      nockMergeBranches(github, { reply: mergeConflict });

      const merging = github
        .client()
        .mergeIntoBranch({ branch: 'work', head: 'pr-1-head', message: 'Merge #1' });

      await expect(merging).rejects.toBeInstanceOf(MergeConflictError);
      await expect(merging).rejects.toMatchObject({
        status: 409,
        githubMessage: 'Merge conflict',
        transient: false,
      });
      expect(github.isDone()).toBe(true);
    });
  });

  describe('pull requests', () => {
    it('reads a pull request as plain values', async () => {
      nockGetPull(github, {
        number: 3,
        headSha: 'pr-3-head',
        head: 'feature-3',
        state: 'closed',
        merged: true,
        mergeSha: 'main-2',
      });

      expect(await github.client().getPullRequest(3)).toMatchInlineSnapshot(`
        {
          "author": {
            "id": 1003,
            "login": "author-3",
            "type": "User",
          },
          "base": "main",
          "body": "",
          "draft": false,
          "head": "feature-3",
          "headSha": "pr-3-head",
          "labels": [
            {
              "color": "0e8a16",
              "default": false,
              "id": 7,
              "name": "ready",
            },
          ],
          "mergeSha": "main-2",
          "merged": true,
          "number": 3,
          "state": "closed",
          "title": "Pull request #3",
          "url": "https://github.test/acme/widgets/pull/3",
        }
      `);
      expect(github.isDone()).toBe(true);
    });

    it('a pull request that does not exist throws NotFoundError', async () => {
      nockGetPull(github, { number: 404, status: 404, message: 'Not Found' });

      await expect(github.client().getPullRequest(404)).rejects.toBeInstanceOf(NotFoundError);
      expect(github.isDone()).toBe(true);
    });

    it('a merge GitHub refuses throws MergeRefusedError with its status and message', async () => {
      nockMergePull(github, { number: 3, reply: { status: 405, message: 'Pull Request is not mergeable' } });

      const merging = github.client().mergePullRequest({ number: 3, method: 'merge', sha: 'pr-3-head' });

      await expect(merging).rejects.toBeInstanceOf(MergeRefusedError);
      await expect(merging).rejects.toMatchObject({
        status: 405,
        githubMessage: 'Pull Request is not mergeable',
        request: 'PUT /api/v3/repos/acme/widgets/pulls/3/merge',
        transient: false,
      });
      expect(github.isDone()).toBe(true);
    });

    it('an update-branch conflict throws MergeConflictError', async () => {
      nockUpdatePullBranch(github, {
        number: 3,
        reply: { status: 422, message: 'merge conflict between base and head' },
      });

      await expect(
        github.client().updatePullRequestBranch({ number: 3, expectedHeadSha: 'pr-3-head' }),
      ).rejects.toBeInstanceOf(MergeConflictError);
      expect(github.isDone()).toBe(true);
    });

    it('lists the files of every page, a renamed file under both paths', async () => {
      nockListPullFiles(github, {
        number: 3,
        pages: [
          [{ filename: 'src/a.ts' }, { filename: 'src/b.ts', previous_filename: 'src/old-b.ts' }],
          [{ filename: 'docs/c.md' }],
        ],
      });

      expect(await github.client().listPullRequestFiles(3)).toEqual([
        'src/a.ts',
        'src/old-b.ts',
        'src/b.ts',
        'docs/c.md',
      ]);
      expect(github.requests.map((r) => r.request)).toMatchInlineSnapshot(`
        [
          "GET /repos/acme/widgets/pulls/3/files?per_page=100",
          "GET /repos/acme/widgets/pulls/3/files?per_page=100&page=2",
        ]
      `);
      expect(github.isDone()).toBe(true);
    });

    it("keeps each reviewer's latest decisive review, across pages", async () => {
      nockListReviews(github, {
        number: 3,
        pages: [
          [
            reviewJson('ana', 'CHANGES_REQUESTED'),
            reviewJson('bo', 'APPROVED'),
            reviewJson('cy', 'APPROVED'),
          ],
          [
            reviewJson('ana', 'APPROVED'),
            reviewJson('bo', 'COMMENTED'),
            reviewJson('cy', 'DISMISSED'),
            reviewJson('di', 'CHANGES_REQUESTED'),
          ],
        ],
      });

      expect(await github.client().listReviews(3)).toEqual({
        approvedBy: ['ana', 'bo'],
        changesRequestedBy: ['di'],
      });
      expect(github.isDone()).toBe(true);
    });

    it('lists the open pull requests whose head is the commit', async () => {
      nockPullsForCommit(github, {
        sha: 'abc',
        pulls: [
          { number: 3, headSha: 'abc' },
          { number: 4, headSha: 'abc', state: 'closed', merged: true },
          { number: 5, headSha: 'def' },
        ],
      });

      expect(await github.client().listPullRequestsForCommit('abc')).toEqual([3]);
      expect(github.isDone()).toBe(true);
    });
  });

  describe('repository', () => {
    it('reads the default branch and id', async () => {
      nockGetRepository(github);

      expect(await github.client().getRepository()).toEqual({ id: 4242, defaultBranch: 'main' });
      expect(github.isDone()).toBe(true);
    });

    it.each([
      [{ permission: 'write', role_name: 'maintain' }, 'maintain'],
      [{ permission: 'read', role_name: 'triage' }, 'triage'],
      [{ permission: 'admin', role_name: 'admin' }, 'admin'],
      [{ permission: 'write', role_name: 'custom-releaser' }, 'write'],
      [{ permission: 'none', role_name: 'none' }, 'none'],
    ])("reads a collaborator's role %j as %s", async (reply, expected) => {
      nockGetPermission(github, { login: 'ana', reply });

      expect(await github.client().getPermission('ana')).toBe(expected);
      expect(github.isDone()).toBe(true);
    });

    it('an unknown user has no permission', async () => {
      nockGetPermission(github, { login: 'ghost', reply: { status: 404, message: 'Not Found' } });

      expect(await github.client().getPermission('ghost')).toBe('none');
      expect(github.isDone()).toBe(true);
    });

    it('reads a file at a ref, and null when there is none', async () => {
      nockGetContent(github, {
        path: '.github/trainyard.yml',
        ref: 'main',
        text: 'queue_rules:\n  - name: default\n',
      });
      nockGetContent(github, { path: '.github/trainyard.yml', ref: 'other', text: null });
      const client = github.client();

      expect(await client.getFileText({ path: '.github/trainyard.yml', ref: 'main' })).toBe(
        'queue_rules:\n  - name: default\n',
      );
      expect(await client.getFileText({ path: '.github/trainyard.yml', ref: 'other' })).toBeNull();
      expect(github.isDone()).toBe(true);
    });
  });
});
