import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { examplePayload } from '../../app/sandbox/webhooks/examples.ts';
import { type SandboxHarness, startSandboxHarness } from '../support/sandbox-harness.ts';

let h: SandboxHarness;
beforeAll(async () => {
  h = await startSandboxHarness({ retryDelaysMs: [5, 5] });
});
afterAll(async () => {
  await h.close();
});
beforeEach(() => h.receiver.clear());

/** Paths of the keys GitHub's example has and `ours` lacks, two levels deep (null stands for a nullable object). */
function missingKeys(example: unknown, ours: unknown, path = '', depth = 2): string[] {
  if (depth === 0 || typeof example !== 'object' || example === null || Array.isArray(example)) return [];
  if (ours === null) return [];
  if (typeof ours !== 'object') return [path];
  return Object.entries(example).flatMap(([key, value]) =>
    key in ours
      ? missingKeys(value, (ours as Record<string, unknown>)[key], `${path}.${key}`, depth - 1)
      : [`${path}.${key}`],
  );
}

describe('webhook delivery', () => {
  it('signs each delivery and sends GitHub’s headers', async () => {
    const { repo } = h.installedRepository('signed');
    h.github.openPullRequest(repo, { author: 'alice', title: 'Signed', files: { 'a.txt': 'a' } });
    await h.server.webhooks.flush();
    const deliveries = h.receiver.accepted();
    expect(deliveries.length).toBeGreaterThan(0);
    for (const delivery of deliveries) {
      expect(delivery.signatureValid).toBe(true);
      expect(delivery.headers).toMatchObject({
        'content-type': 'application/json',
        'user-agent': expect.stringMatching(/^GitHub-Hookshot\//),
        'x-github-event': delivery.event,
        'x-github-hook-installation-target-type': 'integration',
        'x-github-hook-installation-target-id': String(h.github.app.id),
        'x-hub-signature': expect.stringMatching(/^sha1=[0-9a-f]{40}$/),
      });
    }
    expect(new Set(deliveries.map((d) => d.id)).size).toBe(deliveries.length);
  });

  it('builds every payload on GitHub’s example: no field of the example is missing', async () => {
    const { repo, octokit } = h.installedRepository('shapes', { 'a.txt': 'a\n' });
    const pr = h.github.openPullRequest(repo, {
      author: 'alice',
      title: 'Shapes',
      files: { 'a.txt': 'A\n' },
      labels: ['hotfix'],
    });
    h.github.pushToPullRequest(repo, pr.number, { files: { 'b.txt': 'b\n' } });
    h.github.pulls.review(repo, pr.number, { user: h.github.account('bob'), state: 'APPROVED' });
    h.github.issues.comment(repo, {
      number: pr.number,
      body: '@trainyard queue',
      user: h.github.account('alice'),
    });
    h.github.checks.createStatus(repo, {
      sha: pr.headSha,
      state: 'success',
      context: 'ci/x',
      creator: h.github.account('ci'),
    });
    await octokit.rest.checks.create({
      owner: 'acme',
      repo: 'shapes',
      name: 'T',
      head_sha: pr.headSha,
      status: 'completed',
      conclusion: 'neutral',
    });
    const params = { owner: 'acme', repo: 'shapes' };
    await octokit.rest.pulls.update({
      ...params,
      pull_number: pr.number,
      title: 'Shapes, renamed',
      state: 'closed',
    });
    await octokit.rest.pulls.update({ ...params, pull_number: pr.number, state: 'open' });
    h.github.pulls.setDraft(repo, pr.number, true, h.github.account('alice'));
    h.github.pulls.setDraft(repo, pr.number, false, h.github.account('alice'));
    await octokit.rest.issues.removeLabel({ ...params, issue_number: pr.number, name: 'hotfix' });
    const [comment] = h.github.issues.commentsOf(repo, pr.number);
    h.github.issues.editComment(repo, {
      id: comment!.id,
      body: '@trainyard queue urgent',
      sender: h.github.account('alice'),
    });
    await octokit.rest.pulls.merge({ owner: 'acme', repo: 'shapes', pull_number: pr.number });
    await octokit.rest.git.deleteRef({ owner: 'acme', repo: 'shapes', ref: `heads/${pr.head}` });
    await h.server.webhooks.flush();

    const seen = new Set<string>();
    for (const delivery of h.receiver.accepted()) {
      const example = examplePayload(delivery.event, delivery.action ?? undefined);
      // The example carries the sender's enterprise and, for user repositories, no organization.
      const gaps = missingKeys(example, delivery.payload).filter(
        (p) => !/^\.(enterprise|organization)\b/.test(p),
      );
      expect({ event: delivery.event, action: delivery.action, gaps }).toEqual({
        event: delivery.event,
        action: delivery.action,
        gaps: [],
      });
      // Nothing of the example's own data (its accounts, its api.github.com URLs) is left over.
      expect(JSON.stringify(delivery.payload)).not.toMatch(
        /Codertocat|octocat|api\.github\.com|Hello-World/i,
      );
      seen.add(delivery.action ? `${delivery.event}.${delivery.action}` : delivery.event);
    }
    expect([...seen].sort()).toEqual([
      'check_run.completed',
      'check_run.created',
      'check_suite.completed',
      'create',
      'delete',
      'installation.created',
      'issue_comment.created',
      'issue_comment.edited',
      'pull_request.closed',
      'pull_request.converted_to_draft',
      'pull_request.edited',
      'pull_request.labeled',
      'pull_request.opened',
      'pull_request.ready_for_review',
      'pull_request.reopened',
      'pull_request.synchronize',
      'pull_request.unlabeled',
      'pull_request_review.submitted',
      'push',
      'status',
    ]);
  });

  it('describes a new branch’s push with its new commits and their added, modified and removed files', async () => {
    const { repo } = h.installedRepository('push-files', { 'keep.txt': 'k', 'old.txt': 'o' });
    h.receiver.clear();
    const alice = h.github.account('alice');
    h.github.git.commit(repo, {
      branch: 'topic',
      from: 'main',
      files: { 'keep.txt': 'K', 'old.txt': null, 'new.txt': 'n' },
      message: 'one',
      author: alice,
    });
    await h.server.webhooks.flush();
    const push = h.receiver.accepted().find((d) => d.event === 'push')!.payload;
    expect(push).toMatchObject({
      ref: 'refs/heads/topic',
      before: '0000000000000000000000000000000000000000',
      created: true,
      deleted: false,
      commits: [{ message: 'one', added: ['new.txt'], removed: ['old.txt'], modified: ['keep.txt'] }],
      repository: { full_name: 'acme/push-files', created_at: expect.any(Number), owner: { name: 'acme' } },
      pusher: { name: 'alice' },
    });
    expect((push['commits'] as unknown[]).length).toBe(1);
  });

  it('retries refused deliveries and keeps each repository’s order', async () => {
    const { repo } = h.installedRepository('ordered');
    await h.server.webhooks.flush();
    h.receiver.clear();
    h.receiver.refuseNext([500, 503]);
    const pr = h.github.openPullRequest(repo, { author: 'alice', title: 'Ordered', files: { 'a.txt': 'a' } });
    h.github.issues.addLabels(repo, {
      number: pr.number,
      names: ['one', 'two'],
      sender: h.github.account('alice'),
    });
    await h.server.webhooks.flush();
    expect(h.receiver.received.slice(0, 3).map((r) => `${r.event} ${r.answered}`)).toEqual([
      'push 500',
      'push 503',
      'push 202',
    ]);
    expect(h.receiver.names()).toEqual([
      'push',
      'create',
      'pull_request.opened',
      'pull_request.labeled',
      'pull_request.labeled',
    ]);
    const first = h.server.webhooks.deliveries().find((d) => d.id === h.receiver.received[0]!.id)!;
    expect(first.attempts.map((a) => a.status)).toEqual([500, 503, 202]);
  });

  it('gives up after the last retry, goes on with the next delivery, and redelivers by id', async () => {
    const { repo } = h.installedRepository('given-up');
    await h.server.webhooks.flush();
    h.receiver.clear();
    h.receiver.refuseNext([500, 500, 500]);
    const pr = h.github.openPullRequest(repo, { author: 'alice', title: 'Lost', files: { 'a.txt': 'a' } });
    h.github.issues.comment(repo, { number: pr.number, body: 'hello', user: h.github.account('alice') });
    await h.server.webhooks.flush();
    const lost = h.server.webhooks.find(h.receiver.received[0]!.id)!;
    expect(lost).toMatchObject({ event: 'push', status: 'failed', redelivery: false });
    expect(h.receiver.names()).toEqual(['create', 'pull_request.opened', 'issue_comment.created']);

    h.server.webhooks.redeliver(lost.id);
    await h.server.webhooks.flush();
    const again = h.receiver.received.at(-1)!;
    expect(again).toMatchObject({ id: lost.id, event: 'push', answered: 202, signatureValid: true });
    expect(JSON.stringify(again.payload)).toBe(lost.body);
  });

  it('holds deliveries during an outage and sends them, in order, once released', async () => {
    const { repo } = h.installedRepository('outage');
    await h.server.webhooks.flush();
    h.receiver.clear();
    h.server.webhooks.hold();
    h.github.openPullRequest(repo, { author: 'alice', title: 'Late', files: { 'a.txt': 'a' } });
    await expect(h.server.webhooks.flush()).rejects.toThrow(/held/);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(h.receiver.received).toEqual([]);
    h.server.webhooks.release();
    await h.server.webhooks.flush();
    expect(h.receiver.names()).toEqual(['push', 'create', 'pull_request.opened']);
  });

  it('sends nothing about repositories the app is not installed on', async () => {
    await h.server.webhooks.flush();
    h.receiver.clear();
    const elsewhere = h.github.createRepository({ owner: 'globex', name: 'private' });
    h.github.openPullRequest(elsewhere, { author: 'alice', title: 'Unseen', files: { 'a.txt': 'a' } });
    await h.server.webhooks.flush();
    expect(h.receiver.received).toEqual([]);
  });
});
