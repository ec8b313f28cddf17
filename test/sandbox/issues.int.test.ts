import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type SandboxHarness, startSandboxHarness } from '../support/sandbox-harness.ts';

let h: SandboxHarness;
beforeAll(async () => {
  h = await startSandboxHarness();
});
afterAll(async () => {
  await h.close();
});
beforeEach(() => h.receiver.clear());

describe('comments, reactions and labels over HTTP', () => {
  it('a person’s command comment arrives as issue_comment.created on a PR; the app replies and reacts', async () => {
    const { repo, octokit } = h.installedRepository('comments');
    const pr = h.github.openPullRequest(repo, {
      author: 'alice',
      title: 'Queue me',
      files: { 'a.txt': 'a' },
    });
    const params = { owner: 'acme', repo: 'comments' };
    await h.server.webhooks.flush();
    h.receiver.clear();

    const command = await h
      .userOctokit('alice')
      .rest.issues.createComment({ ...params, issue_number: pr.number, body: '@trainyard queue' });
    expect(command.status).toBe(201);
    await h.server.webhooks.flush();
    const [delivery] = h.receiver.accepted();
    expect(delivery).toMatchObject({ event: 'issue_comment', action: 'created', signatureValid: true });
    expect(delivery!.payload).toMatchObject({
      issue: {
        number: pr.number,
        title: 'Queue me',
        pull_request: { url: expect.stringContaining(`/pulls/${pr.number}`) },
      },
      comment: { id: command.data.id, body: '@trainyard queue', user: { login: 'alice' } },
      sender: { login: 'alice' },
    });

    const first = await octokit.rest.reactions.createForIssueComment({
      ...params,
      comment_id: command.data.id,
      content: 'eyes',
    });
    const again = await octokit.rest.reactions.createForIssueComment({
      ...params,
      comment_id: command.data.id,
      content: 'eyes',
    });
    expect([first.status, again.status]).toEqual([201, 200]);
    expect(again.data.id).toBe(first.data.id);
    await octokit.rest.issues.createComment({
      ...params,
      issue_number: pr.number,
      body: 'Queued at position 1',
    });
    const comments = await octokit.rest.issues.listComments({ ...params, issue_number: pr.number });
    expect(comments.data.map((c) => `${c.user?.login}: ${c.body}`)).toEqual([
      'alice: @trainyard queue',
      'trainyard[bot]: Queued at position 1',
    ]);
    expect(comments.data[0]!.reactions).toMatchObject({ total_count: 1, eyes: 1 });
    expect(comments.data[1]!.performed_via_github_app?.slug).toBe('trainyard');
  });

  it('adds and removes labels with labeled/unlabeled webhooks; removing an absent label is 404', async () => {
    const { repo, octokit } = h.installedRepository('labels');
    const pr = h.github.openPullRequest(repo, { author: 'alice', title: 'Hotfix', files: { 'a.txt': 'a' } });
    const params = { owner: 'acme', repo: 'labels', issue_number: pr.number };
    await h.server.webhooks.flush();
    h.receiver.clear();

    const added = await octokit.rest.issues.addLabels({ ...params, labels: ['hotfix', 'queued'] });
    expect(added.data.map((l) => l.name)).toEqual(['hotfix', 'queued']);
    expect((await octokit.rest.issues.addLabels({ ...params, labels: ['HOTFIX'] })).data).toHaveLength(2);
    const left = await octokit.rest.issues.removeLabel({ ...params, name: 'queued' });
    expect(left.data.map((l) => l.name)).toEqual(['hotfix']);
    await expect(octokit.rest.issues.removeLabel({ ...params, name: 'queued' })).rejects.toMatchObject({
      status: 404,
    });
    expect(
      (
        await octokit.rest.pulls.get({ owner: 'acme', repo: 'labels', pull_number: pr.number })
      ).data.labels.map((l) => l.name),
    ).toEqual(['hotfix']);

    await h.server.webhooks.flush();
    expect(h.receiver.names()).toEqual([
      'pull_request.labeled',
      'pull_request.labeled',
      'pull_request.unlabeled',
    ]);
    expect(h.receiver.accepted().map((d) => (d.payload['label'] as { name: string }).name)).toEqual([
      'hotfix',
      'queued',
      'queued',
    ]);
  });
});
