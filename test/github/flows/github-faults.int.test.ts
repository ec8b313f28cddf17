import { afterEach, describe, expect, it } from 'vitest';
import { protectBranch } from '../../../app/sandbox/branch-protection.ts';
import type { Repository } from '../../../app/sandbox/entities.ts';
import type { Behaviour } from '../../../app/sandbox/faults.ts';
import { forRequests, secondaryRateLimit } from '../../../app/sandbox/faults.ts';
import { GithubError } from '../../../app/sandbox/github-error.ts';
import { computeMergeabilityLater } from '../../../app/sandbox/mergeability.ts';
import { installRepository, startTrainyard, type Tester } from '../../support/trainyard-tester.ts';

/*
 * What GitHub does that a plain success or refusal does not show (issue #18, item 2), played by
 * the sandbox code host's switchable settings and faults, against the whole app: branch
 * protection refusing a merge with GitHub's own words, secondary rate limits with retry-after,
 * 502s, `mergeable: null` while GitHub computes it, webhooks delivered newest first. Each ends
 * with the pull request merged, or out of the queue with the reason on its check run: never
 * retried for ever.
 */

const MINUTE = 60_000;
let t: Tester;
afterEach(async () => {
  await t?.close();
});

async function queuedRepository(): Promise<{ repo: Repository; number: number }> {
  t = await startTrainyard();
  const repo = installRepository(t, 'widgets', {
    'README.md': 'hello\n',
    '.github/trainyard.yml': 'queue_rules:\n  - name: default\n',
  });
  await t.settle();
  const pr = t.github.openPullRequest(repo, { author: 'alice', title: 'One', files: { 'one.txt': '1\n' } });
  await t.settle();
  return { repo, number: pr.number };
}

/** Counts the merge attempts that reach the sandbox (and when, on the virtual clock), then lets `inner` decide. */
function counting(inner: Behaviour): Behaviour & { calls: number; at: number[] } {
  const counter = {
    calls: 0,
    at: [] as number[],
    attempt() {
      counter.calls++;
      counter.at.push(t.clock.now());
      inner.attempt();
    },
  };
  return counter;
}

function checkRunText(repo: Repository, number: number): string {
  const run = t.trainyardCheck(repo, number);
  return `${run?.title}\n${run?.summary}`;
}

describe('branch protection on the base branch', () => {
  it('a required status check that never reports on the pull request: GitHub refuses the merge (405), the check run says why', async () => {
    const { repo, number } = await queuedRepository();
    protectBranch(repo, 'main', { requiredStatusChecks: { contexts: ['ci', 'security-scan'] } });
    t.comment(repo, number, '@trainyard queue');
    await t.advance(30 * MINUTE);

    expect(t.merges).toEqual([]);
    const text = checkRunText(repo, number);
    expect(text).toContain('Left the queue: PR_UNEXPECTEDLY_FAILED_TO_MERGE');
    expect(text).toContain(
      'GitHub refused the merge (405): Required status check "security-scan" is expected.',
    );
    expect(text).toContain('requires the status check `security-scan` on the pull request itself');
    expect(await t.leftovers()).toEqual({ outbox: 0, deliveries: 0, dueTimers: 0 });
  });

  it('required status checks that pass on the pull request: merged', async () => {
    const { repo, number } = await queuedRepository();
    protectBranch(repo, 'main', { requiredStatusChecks: { contexts: ['ci'] } });
    t.comment(repo, number, '@trainyard queue');
    await t.advance(30 * MINUTE);
    expect(t.merges).toEqual([{ repo: 'widgets', number }]);
  });

  it('a required approving review missing: refused with GitHub’s words, merged once approved and queued again', async () => {
    const { repo, number } = await queuedRepository();
    protectBranch(repo, 'main', { requiredApprovingReviewCount: 1 });
    t.comment(repo, number, '@trainyard queue');
    await t.advance(30 * MINUTE);
    expect(t.merges).toEqual([]);
    const text = checkRunText(repo, number);
    expect(text).toContain('At least 1 approving review is required by reviewers with write access.');
    expect(text).toContain('requires 1 approving review from people with write access');

    t.github.pulls.review(repo, number, { user: t.github.account('bob'), state: 'APPROVED' });
    t.comment(repo, number, '@trainyard queue');
    await t.advance(30 * MINUTE);
    expect(t.merges).toEqual([{ repo: 'widgets', number }]);
  });

  it('"require branches to be up to date": a pull request behind its base is refused (405) and told why', async () => {
    const { repo, number } = await queuedRepository();
    // The base moves after the pull request was opened: its branch no longer contains the base.
    t.github.git.commit(repo, {
      branch: 'main',
      from: 'main',
      files: { 'other.txt': 'other\n' },
      message: 'Direct push',
      author: t.github.account('bob'),
    });
    await t.settle();
    protectBranch(repo, 'main', { requiredStatusChecks: { contexts: [], strict: true } });
    t.comment(repo, number, '@trainyard queue');
    await t.advance(30 * MINUTE);
    expect(t.merges).toEqual([]);
    const text = checkRunText(repo, number);
    expect(text).toContain('Head branch is not up to date with the base branch');
    expect(text).toContain('requires branches to be up to date before merging');
  });
});

describe('GitHub failing transiently', () => {
  it('a secondary rate limit (403, retry-after: 90): the merge waits as GitHub asks, then merges', async () => {
    const { repo, number } = await queuedRepository();
    const limited = counting(secondaryRateLimit(2, 90));
    repo.mergeBehaviour = limited;
    t.comment(repo, number, '@trainyard queue');
    await t.advance(20 * MINUTE, 10_000);
    expect(t.merges).toEqual([{ repo: 'widgets', number }]);
    expect(limited.calls).toBe(3);
    // Not 1 s and 2 s of back-off: each retry waited the 90 s GitHub asked for.
    const gaps = limited.at.slice(1).map((at, i) => at - limited.at[i]!);
    expect(gaps.every((gap) => gap >= 90_000)).toBe(true);
  });

  it('a secondary rate limit that does not lift: given up after 10 attempts, the reason on the check run', async () => {
    const { repo, number } = await queuedRepository();
    const limited = counting(secondaryRateLimit(Number.MAX_SAFE_INTEGER, 60));
    repo.mergeBehaviour = limited;
    t.comment(repo, number, '@trainyard queue');
    await t.advance(90 * MINUTE, MINUTE);
    expect(t.merges).toEqual([]);
    expect(limited.calls).toBe(10);
    const text = checkRunText(repo, number);
    expect(text).toContain(
      "GitHub's rate limit refused the app's requests (403: You have exceeded a secondary rate limit.",
    );
    expect(text).toContain('it asked to wait 60 s');
    expect(text).toContain('on each of 10 attempts over');
    expect(text).toContain('Trainyard stopped retrying');
    await t.advance(60 * MINUTE, 5 * MINUTE);
    expect(limited.calls).toBe(10);
    expect(await t.leftovers()).toEqual({ outbox: 0, deliveries: 0, dueTimers: 0 });
  });

  it('502 on every merge: retried with back-off, given up after 10 attempts with the reason on the check run', async () => {
    const { repo, number } = await queuedRepository();
    const failing = counting({
      attempt() {
        throw new GithubError(502, 'Server Error');
      },
    });
    repo.mergeBehaviour = failing;
    t.comment(repo, number, '@trainyard queue');
    await t.advance(60 * MINUTE, MINUTE);
    expect(t.merges).toEqual([]);
    expect(failing.calls).toBe(10);
    const text = checkRunText(repo, number);
    expect(text).toContain('Left the queue: PR_UNEXPECTEDLY_FAILED_TO_MERGE');
    expect(text).toContain(
      `GitHub answered 502 (Server Error) to \`PUT /repos/acme/widgets/pulls/${number}/merge\` on each of 10 attempts over`,
    );
    const failed = await t.store.db
      .selectFrom('outbox')
      .select(['key', 'attempts'])
      .where('failed_at', 'is not', null)
      .execute();
    expect(failed).toEqual([{ key: expect.stringMatching(/^merge_pr:/), attempts: 10 }]);
  });

  it('502 twice, then GitHub recovers: merged', async () => {
    const { repo, number } = await queuedRepository();
    let left = 2;
    const flaky = counting({
      attempt() {
        if (left-- > 0) throw new GithubError(502, 'Server Error');
      },
    });
    repo.mergeBehaviour = flaky;
    t.comment(repo, number, '@trainyard queue');
    await t.advance(30 * MINUTE);
    expect(t.merges).toEqual([{ repo: 'widgets', number }]);
    expect(flaky.calls).toBe(3);
  });
});

describe('GitHub computing mergeability', () => {
  it('`mergeable: null` while GitHub computes it: the queue does not wait on it, and merges', async () => {
    const { repo, number } = await queuedRepository();
    computeMergeabilityLater(repo, Number.MAX_SAFE_INTEGER);
    const octokit = t.sandbox.url;
    const pull = await fetch(`${octokit}/repos/acme/widgets/pulls/${number}`, {
      headers: { authorization: `token ${t.github.access.issueUserToken(t.github.account('alice'))}` },
    }).then((r) => r.json() as Promise<{ mergeable: boolean | null; mergeable_state: string }>);
    expect(pull).toMatchObject({ mergeable: null, mergeable_state: 'unknown' });
    t.comment(repo, number, '@trainyard queue');
    await t.advance(30 * MINUTE);
    expect(t.merges).toEqual([{ repo: 'widgets', number }]);
  });
});

describe('webhooks out of order', () => {
  it('the queue command delivered before the pull request’s own webhooks: the app reads the pull request and queues it; an old delivery redelivered after the merge changes nothing', async () => {
    t = await startTrainyard();
    const repo = installRepository(t, 'widgets', {
      'README.md': 'hello\n',
      '.github/trainyard.yml': 'queue_rules:\n  - name: default\n',
    });
    await t.settle();
    t.sandbox.webhooks.hold();
    const pr = t.github.openPullRequest(repo, { author: 'alice', title: 'One', files: { 'one.txt': '1\n' } });
    t.comment(repo, pr.number, '@trainyard queue');
    const held = t.sandbox.webhooks.pending().map((d) => d.event);
    expect(held).toEqual(['push', 'create', 'pull_request', 'issue_comment']);
    t.sandbox.webhooks.release('newest-first');
    await t.advance(30 * MINUTE);
    // The command came before the pull request was known: the app read it from GitHub.
    expect(t.merges).toEqual([{ repo: 'widgets', number: pr.number }]);
    expect(t.appComments(repo, pr.number)).toEqual([]);
    expect((await t.eventLines(repo)).filter((l) => l.startsWith('command.'))).toEqual([
      `command.queue #${pr.number}`,
    ]);

    // GitHub redelivers the old `opened` after the merge: nothing moves.
    const opened = t.sandbox.webhooks
      .deliveries()
      .find((d) => d.event === 'pull_request' && d.action === 'opened')!;
    const before = await t.eventLines(repo);
    t.sandbox.webhooks.redeliver(opened.id);
    await t.advance(10 * MINUTE);
    expect(await t.eventLines(repo)).toEqual(before);
    expect(t.merges).toEqual([{ repo: 'widgets', number: pr.number }]);
  });

  it('a pull request opened before the app was installed, its read rate-limited (403, retry-after: 90): the read waits as GitHub asks, then the pull request is queued and merges', async () => {
    t = await startTrainyard();
    const repo = t.github.createRepository({
      owner: 'acme',
      name: 'widgets',
      files: { 'README.md': 'hello\n', '.github/trainyard.yml': 'queue_rules:\n  - name: default\n' },
    });
    t.github.grant(repo, 'alice', 'write');
    const pr = t.github.openPullRequest(repo, { author: 'alice', title: 'One', files: { 'one.txt': '1\n' } });
    t.github.install([repo]);
    await t.settle();
    const reads = counting(secondaryRateLimit(2, 90));
    repo.requestBehaviour = forRequests(
      (r) => r.method === 'GET' && r.path === `/repos/acme/widgets/pulls/${pr.number}`,
      reads,
    );
    t.comment(repo, pr.number, '@trainyard queue');
    await t.advance(30 * MINUTE, 10_000);

    expect(t.merges).toEqual([{ repo: 'widgets', number: pr.number }]);
    expect(t.appComments(repo, pr.number)).toEqual([]);
    // Two refused reads, each retried after the 90 s GitHub asked for, then the read that queued it.
    expect(reads.at.length).toBeGreaterThanOrEqual(3);
    const gaps = reads.at.slice(1, 3).map((at, i) => at - reads.at[i]!);
    expect(gaps.every((gap) => gap >= 90_000)).toBe(true);
    expect(await t.leftovers()).toEqual({ outbox: 0, deliveries: 0, dueTimers: 0 });
  });
});
