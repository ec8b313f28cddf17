import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ProbotOctokit } from 'probot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSandboxState } from '../../app/sandbox/journal-replay.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

/*
 * Crash test findings C1 and C3, as they were found: the sandbox, in a process of its own with
 * its workload and CI running, is killed with SIGKILL while a client writes to it, then started
 * again from its data directory, three times over. Every write it answered must be there, every
 * webhook it sent must tell of something that is there, and its clock must not go back.
 */

const secret = 'crash-test-secret';
const script = fileURLToPath(new URL('../support/sandbox-process.ts', import.meta.url));
const where = { owner: 'demo', repo: 'widgets' };

let dataDir: string;
let receiver: WebhookReceiver;
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'trainyard-crash-'));
  receiver = await startWebhookReceiver(secret);
});
afterAll(async () => {
  await receiver.close();
  rmSync(dataDir, { recursive: true, force: true });
});

interface Started {
  child: ChildProcess;
  octokit: InstanceType<typeof ProbotOctokit>;
}

async function startChild(): Promise<Started> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, dataDir, receiver.url, secret], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const end = out.indexOf('\n');
      if (end >= 0) resolve(out.slice(0, end));
    });
    child.on('exit', (code) => reject(new Error(`the sandbox process exited (${code}) before it started`)));
  });
  const info = JSON.parse(line) as {
    apiUrl: string;
    appId: number;
    privateKey: string;
    installationId: number;
  };
  const octokit = new ProbotOctokit({
    baseUrl: info.apiUrl,
    auth: { appId: info.appId, privateKey: info.privateKey, installationId: info.installationId },
    retry: { enabled: false },
    throttle: { enabled: false },
  });
  return { child, octokit };
}

async function kill(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

/** What the client was told: each answered write, and the latest sandbox time it saw. */
interface Acknowledged {
  branches: Map<string, string>;
  /** Branches a write was under way on when the process died: newer than acknowledged, or not. */
  moving: Set<string>;
  pulls: Map<number, string>;
  comments: Set<number>;
  merged: Set<number>;
  latestTime: number;
}

/**
 * Writes as the app does until stopped: a branch, a pull request's head merged into it, a draft
 * pull request from it, comments, merges. Only what was answered counts.
 */
async function write(octokit: Started['octokit'], round: number, seen: Acknowledged, stop: () => boolean) {
  const saw = (time: string | null | undefined) => {
    if (time) seen.latestTime = Math.max(seen.latestTime, Date.parse(time));
  };
  const worker = async (w: number) => {
    for (let i = 0; !stop(); i++) {
      try {
        const main = (await octokit.rest.git.getRef({ ...where, ref: 'heads/main' })).data.object.sha;
        const branch = `crash/${round}-${w}-${i}`;
        await octokit.rest.git.createRef({ ...where, ref: `refs/heads/${branch}`, sha: main });
        seen.branches.set(branch, main);
        const { data: open } = await octokit.rest.pulls.list({ ...where, state: 'open', per_page: 100 });
        const theirs = open.filter((p) => !p.head.ref.startsWith('crash/'));
        const pull = theirs[(w + i) % Math.max(1, theirs.length)];
        if (!pull) continue;
        seen.moving.add(branch);
        const merge = await octokit.rest.repos.merge({ ...where, base: branch, head: pull.head.sha });
        if (merge.status !== 201) continue;
        seen.branches.set(branch, merge.data.sha);
        seen.moving.delete(branch);
        const { data: draft } = await octokit.rest.pulls.create({
          ...where,
          head: branch,
          base: 'main',
          title: `Crash test ${branch}`,
          draft: true,
        });
        seen.pulls.set(draft.number, branch);
        saw(draft.created_at);
        const { data: comment } = await octokit.rest.issues.createComment({
          ...where,
          issue_number: pull.number,
          body: `seen by ${branch}`,
        });
        seen.comments.add(comment.id);
        saw(comment.created_at);
        if (i % 2 === 1) {
          await octokit.rest.pulls.merge({ ...where, pull_number: pull.number, merge_method: 'merge' });
          seen.merged.add(pull.number);
          saw((await octokit.rest.pulls.get({ ...where, pull_number: pull.number })).data.merged_at);
        }
      } catch {
        // Refused (a conflict, a merge already made) or cut off by the kill: not acknowledged.
      }
    }
  };
  await Promise.all([0, 1, 2, 3].map(worker));
}

describe('SIGKILL while a client writes: a restart from the data directory keeps what was acknowledged (C1, C3)', () => {
  it('three kills, three restarts', async () => {
    const seen: Acknowledged = {
      branches: new Map(),
      moving: new Set(),
      pulls: new Map(),
      comments: new Set(),
      merged: new Set(),
      latestTime: 0,
    };
    for (let round = 0; round < 3; round++) {
      const { child, octokit } = await startChild();
      let stopped = false;
      const writing = write(octokit, round, seen, () => stopped);
      await new Promise((resolve) => setTimeout(resolve, 1_200 + round * 300));
      // No new writes from here; those under way are cut off by the kill.
      stopped = true;
      await kill(child);
      await writing;

      const state = loadSandboxState(dataDir)!;
      const repo = state.model.repositories.find((r) => r.name === 'widgets')!;
      const branches = new Map(repo.branches);
      for (const [branch, sha] of seen.branches) {
        if (!seen.moving.has(branch)) expect(branches.get(branch), branch).toBe(sha);
        else expect(branches.has(branch), branch).toBe(true);
      }
      const pulls = new Map(repo.pulls.map((p) => [p.number, p]));
      for (const [number, branch] of seen.pulls) expect(pulls.get(number)?.head, `#${number}`).toBe(branch);
      for (const number of seen.merged) expect(pulls.get(number)?.merged, `#${number} merged`).toBe(true);
      const comments = new Set(repo.comments.map((c) => c.id));
      for (const id of seen.comments) expect(comments.has(id), `comment ${id}`).toBe(true);
      expect(state.now).toBeGreaterThanOrEqual(seen.latestTime);
      // What a webhook told of is there: the pull requests it names, the check runs it completed.
      const runs = new Map(repo.checkRuns.map((r) => [r.id, r]));
      for (const delivery of receiver.accepted()) {
        const pull = delivery.payload['pull_request'] as { number: number } | undefined;
        if (delivery.event === 'pull_request') expect(pulls.has(pull!.number), `#${pull!.number}`).toBe(true);
        const run = delivery.payload['check_run'] as { id: number; status: string } | undefined;
        if (delivery.event === 'check_run' && delivery.action === 'completed')
          expect(runs.get(run!.id)?.status, `check run ${run!.id}`).toBe('completed');
        const time = delivery.payload['pull_request'] as { updated_at?: string } | undefined;
        if (time?.updated_at) seen.latestTime = Math.max(seen.latestTime, Date.parse(time.updated_at));
      }
      expect(state.now).toBeGreaterThanOrEqual(seen.latestTime);
    }
    expect(seen.branches.size).toBeGreaterThan(10);
    expect(seen.pulls.size).toBeGreaterThan(3);
    expect(seen.merged.size).toBeGreaterThan(0);
  }, 120_000);
});
