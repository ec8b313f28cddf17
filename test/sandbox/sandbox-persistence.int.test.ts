import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProbotOctokit } from 'probot';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ScaledClock, VirtualClock } from '../../app/sandbox/clock.ts';
import { loadSandboxState } from '../../app/sandbox/journal-replay.ts';
import { JOURNAL_FILE } from '../../app/sandbox/sandbox-journal.ts';
import { type Sandbox, type StartSandboxOptions, startSandbox } from '../../app/sandbox/start-sandbox.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

/*
 * Crash test findings C1 and C3: the sandbox saved its state every 5 s, so a kill -9 lost
 * writes it had already answered, and its clock went back to the last save. Now every change
 * is journalled before it is acknowledged; these tests read the data directory while the
 * sandbox runs — what a SIGKILL at that moment would leave — and restart from copies of it.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const secret = 'persistence-test-secret';
const start = Date.UTC(2026, 10, 2, 9, 0, 0);

let dataDir: string;
let receiver: WebhookReceiver;
const running: Sandbox[] = [];
const dirs: string[] = [];
beforeEach(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'trainyard-persistence-'));
  dirs.push(dataDir);
  receiver = await startWebhookReceiver(secret);
});
afterEach(async () => {
  for (const sandbox of running.splice(0)) await sandbox.stop();
  await receiver.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function boot(
  dir = dataDir,
  options: Partial<StartSandboxOptions> = {},
): Promise<{ sandbox: Sandbox; clock: VirtualClock }> {
  let clock: VirtualClock | undefined;
  const sandbox = await startSandbox({
    dataDir: dir,
    webhookUrl: receiver.url,
    webhookSecret: secret,
    seed: 5,
    workload: {
      ratePerHour: 12,
      badRate: 0.15,
      hotfixRate: 0.15,
      externalPushesPerHour: 1,
      sharedFileRate: 0.3,
    },
    ci: { flakeRate: 0.1 },
    clock: (at) => {
      clock = new VirtualClock(at ?? start);
      return clock;
    },
    retryDelaysMs: [5, 10],
    ...options,
  });
  running.push(sandbox);
  return { sandbox, clock: clock! };
}

/** The data directory as a SIGKILL now would leave it, copied aside to restart from. */
function crashImage(): string {
  const copy = mkdtempSync(join(tmpdir(), 'trainyard-crash-'));
  dirs.push(copy);
  cpSync(dataDir, copy, { recursive: true });
  return copy;
}

/** What the sandbox holds, as sandbox.json stores it. */
function live(sandbox: Sandbox) {
  const state = {
    model: sandbox.github.toSnapshot(),
    ci: sandbox.ci.toSnapshot(),
    workload: sandbox.workload.toSnapshot(),
  };
  return JSON.parse(JSON.stringify(state));
}

/** What a restart would find on disk now. */
function onDisk(dir = dataDir) {
  const { model, ci, workload } = loadSandboxState(dir)!;
  return { model, ci, workload };
}

/**
 * Every delivery still to send is on disk; a delivery sent may be there too (that it went
 * out is written lazily: resent after a crash under its id, the app knows it, as a redelivery).
 */
function expectPendingOnDisk(sandbox: Sandbox, dir = dataDir) {
  const stored = new Set(loadSandboxState(dir)!.deliveries.map((d) => d.id));
  for (const delivery of sandbox.server.webhooks.pending()) expect(stored).toContain(delivery.id);
}

/** An installation token's client, as the app talks to the sandbox. */
function appClient(sandbox: Sandbox) {
  return new ProbotOctokit({
    baseUrl: sandbox.apiUrl,
    auth: { appId: sandbox.appId, privateKey: sandbox.privateKey, installationId: sandbox.installationId },
    retry: { enabled: false },
    throttle: { enabled: false },
  });
}

describe('the sandbox keeps every change on disk before acknowledging it (C1)', () => {
  it('what a restart finds equals what the sandbox holds, change after change, whatever kind of change', async () => {
    const { sandbox, clock } = await boot();
    const { github } = sandbox;
    const repo = github.repository('demo', 'widgets')!;
    for (let step = 0; step < 18; step++) {
      clock.advance(10 * MINUTE);
      await sandbox.server.webhooks.flush();
      await sandbox.durable();
      expect(onDisk()).toEqual(live(sandbox));
      expectPendingOnDisk(sandbox);
    }

    // Every family of operations, including the changes no webhook tells of, each checked on
    // its own (a mark missing from one would otherwise hide behind another's).
    const alice = github.account('alice');
    const bot = github.app.bot;
    const open = [...repo.pulls.values()].filter((p) => p.state === 'open');
    expect(open.length).toBeGreaterThan(3);
    const [one, two, three, four] = open;
    let commentId = 0;
    let runId = 0;
    const branch = 'trainyard/merge-queue/00000001';
    const operations: [string, () => void][] = [
      [
        'comment',
        () => {
          commentId = github.issues.comment(repo, { number: one!.number, body: 'hello', user: alice }).id;
        },
      ],
      ['react', () => github.issues.react(repo, { commentId, content: 'rocket', user: bot })],
      [
        'edit a comment',
        () => github.issues.editComment(repo, { id: commentId, body: 'hello again', sender: alice }),
      ],
      ['create a label', () => github.issues.createLabel(repo, { name: 'needs-review', color: '00ff00' })],
      [
        'add a label',
        () => github.issues.addLabels(repo, { number: one!.number, names: ['urgent'], sender: alice }),
      ],
      [
        'remove a label',
        () => github.issues.removeLabel(repo, { number: one!.number, name: 'urgent', sender: alice }),
      ],
      ['grant', () => github.grant(repo, 'zoe', 'triage')],
      [
        'review',
        () => github.pulls.review(repo, one!.number, { user: github.account('bob'), state: 'APPROVED' }),
      ],
      ['draft', () => github.pulls.setDraft(repo, two!.number, true, alice)],
      ['rename', () => github.pulls.edit(repo, two!.number, { title: 'Renamed', sender: alice })],
      ['close', () => github.pulls.edit(repo, three!.number, { state: 'closed', sender: alice })],
      ['reopen', () => github.pulls.edit(repo, three!.number, { state: 'open', sender: alice })],
      [
        'status',
        () =>
          github.checks.createStatus(repo, {
            sha: one!.headSha,
            state: 'pending',
            context: 'lint',
            creator: alice,
          }),
      ],
      [
        'create a check run',
        () => {
          runId = github.checks.createRun(repo, {
            app: github.app,
            name: 'Trainyard',
            headSha: one!.headSha,
            sender: bot,
          }).id;
        },
      ],
      [
        'update a check run',
        () =>
          github.checks.updateRun(repo, runId, {
            app: github.app,
            status: 'in_progress',
            title: 'Queued',
            sender: bot,
          }),
      ],
      ['create a branch', () => github.git.createBranch(repo, { branch, sha: one!.headSha, sender: bot })],
      [
        'force-move a branch',
        () => github.git.moveBranch(repo, { branch, sha: two!.headSha, force: true, sender: bot }),
      ],
      [
        'merge into a branch',
        () => {
          try {
            github.git.mergeIntoBranch(repo, { base: branch, head: one!.headSha, sender: bot });
          } catch {
            // A conflict: no change.
          }
        },
      ],
      ['delete a branch', () => github.git.deleteBranch(repo, { branch, sender: bot })],
      [
        'update a pull request branch',
        () => {
          try {
            github.pulls.updateBranch(repo, four!.number, { sender: bot });
          } catch {
            // Up to date or conflicting: no change.
          }
        },
      ],
      [
        'cancel a workflow run',
        () => {
          const busy = [...repo.workflowRuns.values()].find(
            (w) => github.actions.status(repo, w) !== 'completed',
          );
          if (busy) github.actions.cancel(repo, { id: busy.id, sender: bot });
        },
      ],
      ...(['merge', 'squash', 'rebase'] as const).map((method): [string, () => void] => [
        `merge (${method})`,
        () => {
          const pr = [...repo.pulls.values()].find(
            (p) => p.state === 'open' && !p.draft && github.pulls.mergeable(repo, p),
          );
          if (pr) github.pulls.merge(repo, pr.number, { method, sender: bot });
        },
      ]),
      [
        'create and install a repository',
        () => {
          const other = github.createRepository({ owner: 'demo', name: 'gadgets' });
          github.install([other], github.account('demo'));
        },
      ],
      ['a new account', () => github.account('newcomer')],
    ];
    for (const [name, operation] of operations) {
      operation();
      await sandbox.durable();
      expect(onDisk(), name).toEqual(live(sandbox));
    }

    for (let step = 0; step < 6; step++) {
      clock.advance(10 * MINUTE);
      await sandbox.server.webhooks.flush();
      await sandbox.durable();
      expect(onDisk()).toEqual(live(sandbox));
      expectPendingOnDisk(sandbox);
    }
    // A restart from what a crash leaves holds the same, and goes on from there.
    const copy = crashImage();
    const before = live(sandbox);
    const { sandbox: again } = await boot(copy);
    // CI indexes the commits of the pull requests it finds before those it stored: the same entries.
    const sorted = (state: ReturnType<typeof live>) => ({
      ...state,
      ci: {
        ...state.ci,
        pullsByCommit: state.ci.pullsByCommit.map(([id, index]: [number, [string, number[]][]]) => [
          id,
          index.sort(),
        ]),
      },
    });
    expect(sorted(live(again))).toEqual(sorted(before));
  });

  it('an answered write survives a crash right after the answer; its webhook went out only once it was on disk', async () => {
    const { sandbox } = await boot();
    const octokit = appClient(sandbox);
    const where = { owner: 'demo', repo: 'widgets' };
    const main = (await octokit.rest.git.getRef({ ...where, ref: 'heads/main' })).data.object.sha;
    const branch = 'trainyard/merge-queue/0000abcd';
    await octokit.rest.git.createRef({ ...where, ref: `refs/heads/${branch}`, sha: main });
    // Nothing else has happened since the answer: no save, no stop.
    const copy = crashImage();
    expect(loadSandboxState(copy)!.model.repositories[0]!.branches).toContainEqual([branch, main]);

    const { data: comment } = await octokit.rest.issues
      .createComment({ ...where, issue_number: 1, body: 'hi' })
      .catch(async () => {
        // No pull request #1 yet on this seed's first minutes: open one.
        const repo = sandbox.github.repository('demo', 'widgets')!;
        const pr = sandbox.github.openPullRequest(repo, {
          author: 'alice',
          title: 'One',
          files: { 'x.txt': 'x' },
        });
        await sandbox.durable();
        return octokit.rest.issues.createComment({ ...where, issue_number: pr.number, body: 'hi' });
      });
    await octokit.rest.reactions.createForIssueComment({ ...where, comment_id: comment.id, content: 'eyes' });
    const stored = loadSandboxState(crashImage())!.model.repositories[0]!.comments.find(
      (c) => c.id === comment.id,
    );
    expect(stored?.reactions.map((r) => r.content)).toEqual(['eyes']);

    // Every webhook received was on disk when it left: the delivery and the change it tells of.
    await sandbox.server.webhooks.flush();
    for (const delivery of receiver.accepted()) {
      const json =
        readFileSync(join(dataDir, JOURNAL_FILE), 'utf8') +
        readFileSync(join(dataDir, 'sandbox.json'), 'utf8');
      expect(json).toContain(delivery.id);
    }
  });

  it('a record cut short by the crash is ignored; a damaged record before the last stops the start', async () => {
    const { sandbox, clock } = await boot();
    for (let step = 0; step < 6; step++) {
      clock.advance(10 * MINUTE);
      await sandbox.server.webhooks.flush();
      await sandbox.durable();
    }
    const expected = onDisk();
    const copy = crashImage();
    appendFileSync(join(copy, JOURNAL_FILE), '{"seq": 99999, "clock": 1, "ids": {"pu');
    expect(onDisk(copy)).toEqual(expected);

    const journal = readFileSync(join(copy, JOURNAL_FILE), 'utf8').split('\n');
    expect(journal.length).toBeGreaterThan(2);
    journal[0] = '{"seq": damaged';
    writeFileSync(join(copy, JOURNAL_FILE), journal.join('\n'));
    expect(() => loadSandboxState(copy)).toThrow(/journal .* is damaged at line 1/);
  });

  it('folds the journal into sandbox.json on start and on stop', async () => {
    const first = await boot();
    first.clock.advance(HOUR);
    await first.sandbox.server.webhooks.flush();
    await first.sandbox.durable();
    expect(statSync(join(dataDir, JOURNAL_FILE)).size).toBeGreaterThan(0);
    const copy = crashImage();
    const second = await boot(copy);
    expect(statSync(join(copy, JOURNAL_FILE)).size).toBe(0);
    expect(live(second.sandbox).model).toEqual(live(first.sandbox).model);
  });
});

describe('the sandbox clock never goes back across a crash (C3)', () => {
  it('a scaled clock resumes at or after the latest time anyone read from it', async () => {
    const { sandbox } = await boot(dataDir, {
      clock: (at) => new ScaledClock(3_600, at ?? undefined),
      clockLeaseMs: 100,
    });
    await new Promise((resolve) => setTimeout(resolve, 700));
    // Read by someone (the app stamps its events with it), then the process dies.
    const observed = sandbox.clock.now();
    const copy = crashImage();
    let resumedAt: number | null = null;
    const { sandbox: again } = await boot(copy, {
      clock: (at) => {
        resumedAt = at;
        return new VirtualClock(at ?? start);
      },
    });
    expect(resumedAt).not.toBeNull();
    expect(again.clock.now()).toBeGreaterThanOrEqual(observed);
    // And not far beyond: the lease is 100 ms of real time (six sandbox minutes here), plus the copy.
    expect(again.clock.now() - observed).toBeLessThan(30 * MINUTE);
  });

  it('resumes no earlier than what the app recorded (resumeNotBefore)', async () => {
    const first = await boot();
    first.clock.advance(HOUR);
    await first.sandbox.durable();
    const copy = crashImage();
    const later = first.clock.now() + 3 * HOUR;
    const { clock } = await boot(copy, { resumeNotBefore: later });
    expect(clock.now()).toBe(later);
  });
});
