import type { FastifyInstance } from 'fastify';
import nock from 'nock';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GithubPermissions } from '../../../app/api/auth/github-permissions.ts';
import { buildServer } from '../../../app/api/server.ts';
import { testRequestPolicy } from '../../../app/github/client/octokit.ts';
import { createGithubApp, type GithubApp } from '../../../app/github/github-app.ts';
import { createSeededIdSource } from '../../../app/queue/ids.ts';
import { createApiKey } from '../../../app/store/api-keys.ts';
import type { Store } from '../../../app/store/database.ts';
import { nockInstallationToken } from '../../support/nock/apps.ts';
import {
  nockCombinedStatus,
  nockCreateCheckRun,
  nockListCheckRuns,
  nockUpdateCheckRun,
} from '../../support/nock/checks.ts';
import { nockGetCommit } from '../../support/nock/commits.ts';
import { APP_BOT, checkRunJson } from '../../support/nock/fixtures.ts';
import { GITHUB_API, REPO_PATH, useGithubNock } from '../../support/nock/github-nock.ts';
import { nockCreateComment, nockCreateReaction, nockListComments } from '../../support/nock/issues.ts';
import { nockMergeBranches } from '../../support/nock/merges.ts';
import { nockOpenPullRequest } from '../../support/nock/pull-request-state.ts';
import {
  nockCreatePull,
  nockFindPullsByHead,
  nockGetPull,
  nockMergePull,
  nockUpdatePull,
} from '../../support/nock/pulls.ts';
import { nockDeleteRef, nockGetRef, nockSetBranch } from '../../support/nock/refs.ts';
import { nockGetContent, nockGetPermission } from '../../support/nock/repos.ts';
import { checkSuiteEvent, issueCommentEvent, pullRequestEvent, pushEvent } from '../../support/payloads.ts';
import { openTestStore } from '../../support/test-store.ts';
import { appPrivateKey, postWebhook, WEBHOOK_SECRET } from '../../support/trainyard-tester.ts';

const github = useGithubNock();
const APP_ID = 4242;
const INSTALLATION_ID = 77;
const clock = Date.UTC(2026, 10, 2, 9, 0, 0);
let store: Store;
let server: FastifyInstance;
let app: GithubApp;
let url: string;
let adminKey: string;
const unmatched: string[] = [];
const noMatch = (req: { method: string; path: string }) => {
  // Only GitHub's REST root: the webhook endpoint and the v1 API on loopback pass through.
  if (req.path.startsWith('/api/v3/')) unmatched.push(`${req.method} ${req.path}`);
};

beforeEach(async () => {
  unmatched.length = 0;
  nock.emitter.on('no match', noMatch);
  github.scope().get('/api/v3/app').reply(200, { id: APP_ID, slug: 'trainyard', name: 'Trainyard' });
  store = await openTestStore();
  const now = () => new Date(clock);
  server = await buildServer({ store, github: new GithubPermissions({ apiBaseUrl: GITHUB_API }), now });
  app = await createGithubApp({
    store,
    server,
    credentials: {
      appId: APP_ID,
      privateKey: appPrivateKey(),
      baseUrl: GITHUB_API,
      webhookSecret: WEBHOOK_SECRET,
    },
    logger: pino({ level: process.env.TESTER_LOG_LEVEL ?? 'silent' }),
    policy: testRequestPolicy,
    effectOptions: { headPolling: { delaysMs: [0, 0, 0], sleep: async () => {} } },
    now,
    ids: createSeededIdSource(2026),
  });
  url = await server.listen({ host: '127.0.0.1', port: 0 });
  ({ secret: adminKey } = await createApiKey(store.db, {
    name: 'nock flow',
    owner: 'acme',
    repository: null,
    role: 'admin',
    now: now(),
  }));
});
afterEach(async () => {
  nock.emitter.removeListener('no match', noMatch);
  await app.stop();
  await server.close();
  await store.close();
});

/** A real example payload moved to acme/widgets (default branch main), installation 77. */
function widgets<T>(payload: T): T {
  const p = payload as {
    repository: Record<string, unknown> & { owner: Record<string, unknown> };
    installation?: { id: number };
  };
  Object.assign(p.repository, {
    id: 4242,
    name: 'widgets',
    full_name: 'acme/widgets',
    default_branch: 'main',
  });
  p.repository.owner.login = 'acme';
  // An App's deliveries always name the installation; some examples were recorded without one.
  p.installation = { ...p.installation, id: INSTALLATION_ID };
  return payload;
}

let deliveries = 0;
async function deliver(event: string, payload: unknown): Promise<void> {
  const answer = await postWebhook(url, {
    id: `delivery-${++deliveries}`,
    event,
    body: JSON.stringify(payload),
  });
  expect(answer.status, event).toBe(202);
  await app.runUntilIdle();
  expect(unmatched, `requests GitHub was not told to expect after ${event}`).toEqual([]);
  expect(await failures(), `after ${event}`).toEqual([]);
}

/** Deliveries and outbox rows that failed (and wait for a retry): none may. */
async function failures(): Promise<string[]> {
  const d = await store.db
    .selectFrom('webhook_deliveries')
    .select(['event', 'last_error'])
    .where('last_error', 'is not', null)
    .execute();
  const o = await store.db
    .selectFrom('outbox')
    .select(['key', 'last_error'])
    .where('last_error', 'is not', null)
    .execute();
  return [...d.map((r) => `${r.event}: ${r.last_error}`), ...o.map((r) => `${r.key}: ${r.last_error}`)];
}

/** The "Trainyard" check run on #3's head, once created: listed, then updated in place. */
/**
 * The first batch of #3: its test branch (base + #3 merged on a work branch, moved into place),
 * its draft pull request, and the Trainyard check run on #3. Returns the test branch.
 */
function nockFirstBatchOfPr3(): string {
  nockGetRef(github, { branch: 'main', sha: 'main-1' });
  const branch = 'trainyard/merge-queue/3b88be2a';
  nockSetBranch(github, { branch: `${branch}-work`, sha: 'main-1', exists: false });
  nockMergeBranches(github, { reply: { sha: 'merge-pr-3' } });
  nockSetBranch(github, { branch, sha: 'merge-pr-3', exists: false });
  nockDeleteRef(github, { branch: `${branch}-work` });
  nockFindPullsByHead(github, { branch, open: [] });
  nockCreatePull(github, { reply: { number: 40, branch } });
  nockListCheckRuns(github, {
    sha: 'pr-3-head',
    query: { check_name: 'Trainyard', app_id: String(APP_ID) },
    pages: [[]],
  });
  nockCreateCheckRun(github, { id: 900 });
  trainyardCheckRunExists();
  return branch;
}

function trainyardCheckRunExists(): void {
  nockListCheckRuns(github, {
    sha: 'pr-3-head',
    query: { check_name: 'Trainyard', app_id: String(APP_ID) },
    pages: [[checkRunJson({ id: 900, name: 'Trainyard', status: 'in_progress', conclusion: null })]],
  });
  nockUpdateCheckRun(github, { id: 900 });
}

const pullRequestFacts = { number: 3, headSha: 'pr-3-head', headRef: 'feature-3', base: 'main' };

/** The request bodies GitHub received for `request` (`METHOD /path` without the REST root), in order. */
function bodiesOf(request: string): unknown[] {
  return github.requests.filter((r) => r.request === request).map((r) => r.body);
}

async function api<T>(path: string): Promise<T> {
  const response = await fetch(`${url}/v1/repos/acme/widgets${path}`, {
    headers: { authorization: `Bearer ${adminKey}` },
  });
  expect(response.status, path).toBe(200);
  return (await response.json()) as T;
}

describe('queue ⇒ draft PR ⇒ CI ⇒ merged, GitHub answered by nock (real payloads, real endpoint)', () => {
  it('a queue command builds the test branch and draft PR; the check suite passes; #3 merges at the tested head, the draft is closed, events and status agree', async () => {
    // 1. The PR is opened: the app reads its configuration and the PR's facts.
    nockInstallationToken(github, { installationId: INSTALLATION_ID, token: 'ghs_flow' });
    nockGetContent(github, {
      path: '.github/trainyard.yml',
      ref: 'main',
      text: 'queue_rules:\n  - name: default\n    merge_conditions: [check-success=ci]\n',
    });
    nockOpenPullRequest(github, { number: 3, headSha: 'pr-3-head', head: 'feature-3', files: ['src/a.ts'] });
    await deliver('pull_request', widgets(pullRequestEvent('opened', pullRequestFacts)));

    // 2. `@trainyard queue` by a writer: +1, then the batch's test branch (base + #3 merged on a
    //    work branch, moved into place) and its draft PR, and the Trainyard check run on #3.
    nockGetPermission(github, { login: 'alice', reply: { permission: 'write', role_name: 'write' } });
    nockCreateReaction(github, { commentId: 501, reply: 201 });
    const branch = nockFirstBatchOfPr3();
    const queueComment = {
      number: 3,
      body: '@trainyard queue',
      commentId: 501,
      author: { login: 'alice', id: 1001 },
    };
    await deliver('issue_comment', widgets(issueCommentEvent('created', queueComment)));

    expect(bodiesOf('POST /repos/acme/widgets/merges')).toEqual([
      {
        base: `${branch}-work`,
        head: 'pr-3-head',
        commit_message: expect.stringMatching(
          /^Merge #3 \(pr-3-head\) into trainyard\/merge-queue\/3b88be2a\n/,
        ),
      },
    ]);
    expect(bodiesOf('POST /repos/acme/widgets/pulls')).toEqual([
      expect.objectContaining({ head: branch, base: 'main', draft: true }),
    ]);
    const running = await api<{ batches: { pull_requests: { number: number }[] }[] }>('/merge-queue/status');
    expect(running.batches.map((b) => b.pull_requests.map((p) => p.number))).toEqual([[3]]);
    github.requests.length = 0;

    // 3. CI passes on the tested commit: #3 merges at the head that was tested, the draft PR is
    //    closed and its branches deleted, and the check run says so.
    nockListCheckRuns(github, { sha: 'merge-pr-3', pages: [[checkRunJson({ id: 61, name: 'ci' })]] });
    nockCombinedStatus(github, { sha: 'merge-pr-3', pages: [[]] });
    nockGetPull(github, { number: 3, headSha: 'pr-3-head', head: 'feature-3' });
    nockMergePull(github, { number: 3, reply: { sha: 'main-2' } });
    // Merge integrity: the base is read once after the batch; it holds the tested commit's tree.
    nockGetCommit(github, { ref: 'main', sha: 'main-2', parents: ['main-1'], tree: 'tree-of-merge-pr-3' });
    // The draft is the app's own (its bot's, from the test branch) before it is closed.
    nockGetPull(github, { number: 40, headSha: 'merge-pr-3', head: branch, draft: true, user: APP_BOT });
    nockUpdatePull(github, { number: 40 });
    nockDeleteRef(github, { branch });
    nockDeleteRef(github, { branch: `${branch}-work`, missing: true });
    trainyardCheckRunExists();
    trainyardCheckRunExists();
    const suite = {
      headSha: 'merge-pr-3',
      headBranch: branch,
      pullRequests: [{ number: 40, headRef: branch }],
    };
    await deliver('check_suite', widgets(checkSuiteEvent('completed', suite)));

    expect(bodiesOf('PUT /repos/acme/widgets/pulls/3/merge')).toEqual([
      expect.objectContaining({ sha: 'pr-3-head', merge_method: 'merge' }),
    ]);
    expect(bodiesOf('PATCH /repos/acme/widgets/pulls/40')).toEqual([{ state: 'closed' }]);
    expect(bodiesOf('PATCH /repos/acme/widgets/check-runs/900').at(-1)).toMatchObject({
      status: 'completed',
      conclusion: 'success',
    });

    // 4. GitHub's own notices of that merge change nothing: the app only reads, merges nothing again.
    github.requests.length = 0;
    github.mustNot('PUT', `${REPO_PATH}/pulls/3/merge`, 'merge #3 a second time');
    const merged = { ...pullRequestFacts, state: 'closed' as const, merged: true, mergeSha: 'main-2' };
    nockGetPull(github, {
      number: 3,
      headSha: 'pr-3-head',
      state: 'closed',
      merged: true,
      mergeSha: 'main-2',
    });
    await deliver('pull_request', widgets(pullRequestEvent('closed', merged)));
    const push = pushEvent({
      ref: 'refs/heads/main',
      before: 'main-1',
      after: 'main-2',
      defaultBranch: 'main',
    });
    await deliver('push', widgets(push));
    expect(github.requests.filter((r) => !r.request.startsWith('GET '))).toEqual([]);
    expect(github.pending()).toEqual([]);
    expect(github.isDone()).toBe(true);

    // 5. The event log tells the story, and the queue is empty again.
    const log = await api<{
      events: { type: string; pull_request: number | null; metadata: Record<string, unknown> }[];
    }>('/logs?per_page=100&pull_request=3');
    const types = log.events.map((e) => e.type).reverse();
    for (const type of [
      'command.queue',
      'action.queue.enter',
      'action.queue.checks_start',
      'action.queue.checks_end',
      'action.queue.merged',
      'action.queue.leave',
    ])
      expect(
        types.filter((t) => t === type),
        type,
      ).toHaveLength(1);
    expect(types.indexOf('action.queue.merged')).toBeGreaterThan(types.indexOf('action.queue.checks_end'));
    const leave = log.events.find((e) => e.type === 'action.queue.leave')!;
    expect(leave.metadata).toMatchObject({ merged: true });
    const after = await api<{
      batches: unknown[];
      waiting_pull_requests: unknown[];
      merge_integrity?: { counts: Record<string, number> };
    }>('/merge-queue/status');
    expect(after.merge_integrity?.counts).toEqual({
      equal: 1,
      different: 0,
      base_moved_outside: 0,
      tree_unknown: 0,
    });
    expect(after.batches).toEqual([]);
    expect(after.waiting_pull_requests).toEqual([]);
  });
});

describe('a command for a pull request the app has no webhook of (real payloads, GitHub answered by nock)', () => {
  const queueComment = {
    number: 3,
    body: '@trainyard queue',
    commentId: 501,
    author: { login: 'alice', id: 1001 },
  };

  /** The repository is new to the app: its configuration is read with the first delivery. */
  function newRepository(): void {
    nockInstallationToken(github, { installationId: INSTALLATION_ID, token: 'ghs_flow' });
    nockGetContent(github, {
      path: '.github/trainyard.yml',
      ref: 'main',
      text: 'queue_rules:\n  - name: default\n    merge_conditions: [check-success=ci]\n',
    });
    nockGetPermission(github, { login: 'alice', reply: { permission: 'write', role_name: 'write' } });
  }

  async function commentsPosted(): Promise<string[]> {
    // Without the marker the app finds its own replies by.
    return bodiesOf('POST /repos/acme/widgets/issues/3/comments').map(
      (b) => (b as { body: string }).body.split('\n\n<!-- trainyard:')[0]!,
    );
  }

  it('`@trainyard queue` on a pull request opened before the app was installed: the app reads it from GitHub and queues it', async () => {
    newRepository();
    // The read: the pull request, its files, reviews and head checks, as a `pull_request` webhook's.
    nockOpenPullRequest(github, { number: 3, headSha: 'pr-3-head', head: 'feature-3', files: ['src/a.ts'] });
    // Then the command, as for a pull request seen before: +1, the test branch, its draft, the check run.
    nockCreateReaction(github, { commentId: 501, reply: 201 });
    nockFirstBatchOfPr3();
    await deliver('issue_comment', widgets(issueCommentEvent('created', queueComment)));

    expect(github.requests.filter((r) => r.request === 'GET /repos/acme/widgets/pulls/3')).toHaveLength(1);
    expect(bodiesOf('POST /repos/acme/widgets/issues/comments/501/reactions')).toEqual([{ content: '+1' }]);
    expect(await commentsPosted()).toEqual([]);
    const status = await api<{ batches: { pull_requests: { number: number }[] }[] }>('/merge-queue/status');
    expect(status.batches.map((b) => b.pull_requests.map((p) => p.number))).toEqual([[3]]);
    const log = await api<{ events: { type: string }[] }>('/logs?per_page=100&pull_request=3');
    expect(log.events.map((e) => e.type).reverse()).toEqual([
      'command.queue',
      'action.queue.enter',
      'action.queue.checks_start',
    ]);
    expect(github.isDone()).toBe(true);
  });

  it('the pull request read is closed: the command is answered with why and what to do', async () => {
    newRepository();
    nockGetPull(github, { number: 3, headSha: 'pr-3-head', state: 'closed', merged: false });
    nockCreateReaction(github, { commentId: 501, reply: 201 });
    nockListComments(github, { number: 3, pages: [[]] });
    nockCreateComment(github, { number: 3, id: 7001 });
    await deliver('issue_comment', widgets(issueCommentEvent('created', queueComment)));

    expect(bodiesOf('POST /repos/acme/widgets/issues/comments/501/reactions')).toEqual([{ content: '-1' }]);
    expect(await commentsPosted()).toEqual([
      'Not queued. GitHub says this pull request is closed: only open pull requests can be queued. Reopen it, then comment the command again.',
    ]);
    const log = await api<{ events: { type: string }[] }>('/logs?per_page=100&pull_request=3');
    expect(log.events.map((e) => e.type)).toEqual(['command.queue']);
    expect(github.isDone()).toBe(true);
  });

  it('GitHub refuses the read for good: the command is answered with GitHub’s reason, not left waiting', async () => {
    newRepository();
    nockGetPull(github, { number: 3, status: 404, message: 'Not Found' });
    nockCreateReaction(github, { commentId: 501, reply: 201 });
    nockListComments(github, { number: 3, pages: [[]] });
    nockCreateComment(github, { number: 3, id: 7001 });
    const answer = await postWebhook(url, {
      id: 'delivery-unreadable',
      event: 'issue_comment',
      body: JSON.stringify(widgets(issueCommentEvent('created', queueComment))),
    });
    expect(answer.status).toBe(202);
    await app.runUntilIdle();
    expect(unmatched).toEqual([]);

    expect(bodiesOf('POST /repos/acme/widgets/issues/comments/501/reactions')).toEqual([{ content: '-1' }]);
    const [reply] = await commentsPosted();
    expect(reply).toMatch(
      /^Not queued\. Trainyard could not read this pull request from GitHub \(.*404.*\)\./,
    );
    expect(reply).toContain('Comment the command again in a few minutes');
    // The read is the one effect that failed for good; the reply went out.
    expect(await failures()).toEqual([expect.stringMatching(/^read_pull_request:501: /)]);
    expect(github.isDone()).toBe(true);
  });
});
