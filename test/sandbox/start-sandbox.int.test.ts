import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { ProbotOctokit } from 'probot';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../app/config/load-config.ts';
import { APP_KEY_FILE } from '../../app/sandbox/app-key.ts';
import { VirtualClock, WallClock } from '../../app/sandbox/clock.ts';
import { DEFAULT_DEMO_WORKLOAD } from '../../app/sandbox/demo-workload.ts';
import { loadSandboxState } from '../../app/sandbox/journal-replay.ts';
import { SANDBOX_FILE, type SandboxFile } from '../../app/sandbox/sandbox-file.ts';
import { JOURNAL_FILE } from '../../app/sandbox/sandbox-journal.ts';
import { type Sandbox, type StartSandboxOptions, startSandbox } from '../../app/sandbox/start-sandbox.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const secret = 'start-sandbox-test-secret';
const start = Date.UTC(2026, 10, 2, 9, 0, 0);

let dataDir: string;
let receiver: WebhookReceiver;
const running: Sandbox[] = [];
beforeEach(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'trainyard-sandbox-'));
  receiver = await startWebhookReceiver(secret);
});
afterEach(async () => {
  for (const sandbox of running.splice(0)) await sandbox.stop();
  await receiver.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A sandbox on a virtual clock (resumed at the stored time), fast retries, saves only when asked. */
async function boot(
  dir = dataDir,
  options: Partial<StartSandboxOptions> = {},
): Promise<{ sandbox: Sandbox; clock: VirtualClock }> {
  let clock: VirtualClock | undefined;
  const sandbox = await startSandbox({
    dataDir: dir,
    webhookUrl: receiver.url,
    webhookSecret: secret,
    seed: 9,
    workload: { ratePerHour: 12, badRate: 0.15, hotfixRate: 0.15, externalPushesPerHour: 1 },
    ci: { flakeRate: 0 },
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

async function stop(sandbox: Sandbox): Promise<void> {
  running.splice(running.indexOf(sandbox), 1);
  await sandbox.stop();
}

/** Moves sandbox time on in steps, letting webhooks go out between them, as a live demo would. */
async function run(sandbox: Sandbox, clock: VirtualClock, ms: number): Promise<void> {
  for (let left = ms; left > 0; left -= 10 * MINUTE) {
    clock.advance(Math.min(left, 10 * MINUTE));
    await sandbox.server.webhooks.flush();
  }
}

/** What the sandbox holds, in a comparable form: PRs, branches, history and CI results. */
function view(sandbox: Sandbox) {
  const { github } = sandbox;
  const repo = github.repository('demo', 'widgets')!;
  return {
    pulls: [...repo.pulls.values()].map((p) => ({
      number: p.number,
      title: p.title,
      author: p.user.login,
      head: p.headSha,
      labels: p.labels,
      bad: sandbox.ci.truthOf(repo, p.number).bad,
    })),
    branches: [...repo.branches].sort(),
    history: github.shaHistory(repo, 'main'),
    checks: [...repo.checkRuns.values()].map((r) => `${r.id} ${r.headSha} ${r.status} ${r.conclusion}`),
  };
}

describe('startSandbox', () => {
  it.each(['0.0.0.0', '::', '192.168.1.10', 'example.com'])(
    'refuses to listen on %s, before touching the data directory',
    async (host) => {
      const dir = join(dataDir, 'never');
      await expect(startSandbox({ dataDir: dir, webhookUrl: receiver.url, host })).rejects.toThrow(
        `the sandbox listens on loopback only, not on ${host}`,
      );
      expect(existsSync(dir)).toBe(false);
    },
  );

  it('refuses to deliver webhooks anywhere but loopback', async () => {
    const dir = join(dataDir, 'never');
    await expect(
      startSandbox({ dataDir: dir, webhookUrl: 'http://10.1.2.3:3000/api/github/webhooks' }),
    ).rejects.toThrow('the sandbox delivers webhooks to loopback only');
    expect(existsSync(dir)).toBe(false);
  });

  it('first start: the demo repository with the app installed, credentials that work, state on disk', async () => {
    const { sandbox } = await boot();
    expect(sandbox.apiUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(sandbox.repository).toEqual({ owner: 'demo', name: 'widgets' });
    expect(sandbox.privateKey).toMatch(/^-----BEGIN RSA PRIVATE KEY-----/);
    expect(statSync(join(dataDir, APP_KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(existsSync(join(dataDir, SANDBOX_FILE))).toBe(true);

    // The app's view: a JWT signed with the returned key gets an installation token that reads the config.
    const app = new ProbotOctokit({
      baseUrl: sandbox.apiUrl,
      auth: { appId: sandbox.appId, privateKey: sandbox.privateKey, installationId: sandbox.installationId },
      retry: { enabled: false },
      throttle: { enabled: false },
    });
    const where = { owner: sandbox.repository.owner, repo: sandbox.repository.name };
    const { data } = await app.rest.repos.getContent({ ...where, path: '.github/trainyard.yml' });
    const text = Buffer.from((data as { content: string }).content, 'base64').toString('utf8');
    expect(parseConfig(text)).toMatchObject({ ok: true });

    // A person's token, as the API's permission checks use it.
    const alice = new ProbotOctokit({
      baseUrl: sandbox.apiUrl,
      auth: { token: sandbox.mintUserToken('alice') },
      retry: { enabled: false },
      throttle: { enabled: false },
    });
    const { data: repo } = await alice.rest.repos.get(where);
    expect(repo.permissions).toMatchObject({ push: true, admin: false });

    await sandbox.server.webhooks.flush();
    expect(receiver.accepted().map((r) => [r.event, r.action, r.signatureValid])).toEqual([
      ['installation', 'created', true],
    ]);
    expect(receiver.accepted()[0]!.payload['repositories']).toMatchObject([{ full_name: 'demo/widgets' }]);
  });

  it('delivers to an app that comes up after it (deliveries retry)', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const { sandbox } = await boot(dataDir, {
      webhookUrl: `http://127.0.0.1:${port}/api/github/webhooks`,
      retryDelaysMs: [100, 200, 400, 800, 1_600],
    });
    await new Promise((resolve) => setTimeout(resolve, 150));
    const ids: string[] = [];
    const app = createServer((request, response) => {
      ids.push(String(request.headers['x-github-delivery']));
      request.resume();
      response.writeHead(202).end();
    });
    await new Promise<void>((resolve) => app.listen(port, '127.0.0.1', resolve));
    try {
      await sandbox.server.webhooks.flush();
      const [delivery] = sandbox.server.webhooks.deliveries();
      expect(delivery).toMatchObject({ event: 'installation', status: 'delivered' });
      expect(delivery!.attempts[0]!.status).toBeNull(); // refused: nothing listened yet
      expect(ids).toEqual([delivery!.id]);
    } finally {
      await new Promise<void>((resolve) => app.close(() => resolve()));
    }
  });

  it('resumes after a restart: same credentials, PRs, branches and SHAs; numbers go on; nothing delivered twice', async () => {
    const lines: { msg: string; level: number }[] = [];
    const logger = pino({ level: 'debug' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const first = await boot(dataDir, { logger });
    await run(first.sandbox, first.clock, 3 * HOUR);
    // A webhook outage when it stops: these deliveries must go out after the restart, once.
    first.sandbox.server.webhooks.hold();
    const repo = first.sandbox.github.repository('demo', 'widgets')!;
    first.sandbox.github.issues.comment(repo, {
      number: 1,
      body: 'Still here after a restart?',
      user: first.sandbox.github.account('alice'),
    });
    first.clock.advance(5 * MINUTE);
    const held = first.sandbox.server.webhooks.pending().map((d) => d.id);
    const inFlight = [...repo.workflowRuns.values()]
      .filter((w) => first.sandbox.github.actions.status(repo, w) !== 'completed')
      .map((w) => w.id);
    const before = view(first.sandbox);
    const stoppedAt = first.clock.now();
    const credentials = (sandbox: Sandbox) => ({
      appId: sandbox.appId,
      privateKey: sandbox.privateKey,
      webhookSecret: sandbox.webhookSecret,
      installationId: sandbox.installationId,
    });
    const firstCredentials = credentials(first.sandbox);
    await stop(first.sandbox);

    expect(held.length).toBeGreaterThan(0);
    expect(inFlight.length).toBeGreaterThan(0);
    expect(before.pulls.length).toBeGreaterThan(20);
    expect(readdirSync(dataDir).sort()).toEqual([SANDBOX_FILE, JOURNAL_FILE, APP_KEY_FILE].sort());
    // A clean stop folds the journal into sandbox.json.
    expect(statSync(join(dataDir, JOURNAL_FILE)).size).toBe(0);
    const stored = JSON.parse(readFileSync(join(dataDir, SANDBOX_FILE), 'utf8')) as SandboxFile;
    expect(stored.deliveries.map((d) => d.id)).toEqual(held);

    const second = await boot(dataDir, { logger });
    expect(second.clock.now()).toBe(stoppedAt);
    const messages = lines.map((l) => l.msg);
    expect(messages.filter((m) => /^sandbox /.test(m))).toEqual([
      'sandbox started',
      'sandbox stopped',
      'sandbox resumed',
    ]);
    expect(messages).toContain('demo: pushed main-2 to the base branch');
    expect(messages.filter((m) => /^demo: \w+ opened #\d+$/.test(m))).toHaveLength(before.pulls.length);
    expect(credentials(second.sandbox)).toEqual(firstCredentials);
    expect(view(second.sandbox)).toEqual(before);

    await second.sandbox.server.webhooks.flush();
    const afterRestart = receiver.accepted().map((r) => r.id);
    for (const id of held) expect(afterRestart.filter((x) => x === id)).toHaveLength(1);

    await run(second.sandbox, second.clock, 2 * HOUR);
    const after = view(second.sandbox);
    const numbers = after.pulls.map((p) => p.number);
    expect(numbers.slice(0, before.pulls.length)).toEqual(before.pulls.map((p) => p.number));
    expect(numbers.length).toBeGreaterThan(before.pulls.length + 10);
    expect(numbers).toEqual(numbers.map((_, i) => i + 1));
    const again = second.sandbox.github.repository('demo', 'widgets')!;
    for (const id of inFlight)
      expect(second.sandbox.github.actions.status(again, again.workflowRuns.get(id)!)).toBe('completed');

    const ids = receiver.accepted().map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(receiver.accepted().filter((r) => r.event === 'installation')).toHaveLength(1);
  });

  it('a restart changes nothing: stopping and resuming gives what running straight through gives', async () => {
    const straightDir = mkdtempSync(join(tmpdir(), 'trainyard-sandbox-straight-'));
    try {
      const straight = await boot(straightDir);
      await run(straight.sandbox, straight.clock, 5 * HOUR);

      const first = await boot();
      await run(first.sandbox, first.clock, 2 * HOUR + 7 * MINUTE);
      await stop(first.sandbox);
      const second = await boot();
      await run(second.sandbox, second.clock, 2 * HOUR + 53 * MINUTE);

      expect(view(second.sandbox)).toEqual(view(straight.sandbox));
      await stop(straight.sandbox);
    } finally {
      rmSync(straightDir, { recursive: true, force: true });
    }
  });

  it('on the wall clock at a fast pace: the workload runs in real time, each change is on disk at once, no time is ahead of the wall clock, and a restart skips the time it was stopped', async () => {
    const bootAt = Date.now();
    const { sandbox } = await boot(dataDir, {
      clock: undefined,
      timeScale: 3_600, // an hour's worth of pull requests a second; 10-minute CI runs take 167 ms
      workload: { ...DEFAULT_DEMO_WORKLOAD, ratePerHour: 30 },
    });
    expect(sandbox.clock).toBeInstanceOf(WallClock);
    expect(sandbox.timeScale).toBe(3_600);
    const startedAt = Date.now();
    // What a crash would leave: sandbox.json with the journal applied, read while it runs.
    const onDisk = () => loadSandboxState(dataDir)!;
    const deadline = startedAt + 10_000;
    while (
      (sandbox.github.repository('demo', 'widgets')!.pulls.size === 0 || Date.now() - startedAt < 1_200) &&
      Date.now() < deadline
    )
      await new Promise((resolve) => setTimeout(resolve, 50));
    sandbox.workload.stop(); // what is on disk and what is in memory are then the same
    await sandbox.durable();
    expect(onDisk().model.repositories[0]!.pulls.length).toBe(
      sandbox.github.repository('demo', 'widgets')!.pulls.size,
    );
    expect(onDisk().model.repositories[0]!.pulls.length).toBeGreaterThan(0);
    // Every time the sandbox recorded is one that has passed.
    const repo = sandbox.github.repository('demo', 'widgets')!;
    const times = [...repo.pulls.values()].flatMap((p) => [p.createdAt, p.updatedAt]);
    times.push(...[...repo.checkRuns.values()].flatMap((r) => [r.startedAt ?? 0, r.completedAt ?? 0]));
    expect(Math.max(...times)).toBeLessThanOrEqual(Date.now());
    expect(Math.min(...times.filter((t) => t > 0))).toBeGreaterThanOrEqual(bootAt);
    const stored = onDisk();
    expect(stored.timeScale).toBe(3_600);
    expect(stored.ciModel.medianMs).toBe(Math.round((10 * MINUTE) / 3_600));
    expect(stored.workloadSettings.ratePerHour).toBe(30 * 3_600);
    const config = sandbox.github.fileText(repo, 'main', '.github/trainyard.yml')!;
    expect(config).toContain('batch_max_wait_time: 1s'); // 5 minutes / 3,600, at least a second

    await stop(sandbox);
    const stopped = onDisk();
    expect(stopped.now).toBeLessThanOrEqual(Date.now()); // sandbox time never ran ahead of the wall clock
    // As if it had stopped two minutes ago: at 30 pull requests a second, 3,600 would be due at
    // once on resuming if the time it was stopped were replayed.
    const STOPPED_FOR = 120_000;
    const backdated: SandboxFile = {
      ...stopped,
      now: stopped.now - STOPPED_FOR,
      workload: {
        ...stopped.workload,
        startedAt: stopped.workload.startedAt - STOPPED_FOR,
        comments: stopped.workload.comments.map((c) => ({ ...c, at: c.at - STOPPED_FOR })),
        nextPushAt: stopped.workload.nextPushAt === null ? null : stopped.workload.nextPushAt - STOPPED_FOR,
      },
    };
    writeFileSync(join(dataDir, SANDBOX_FILE), JSON.stringify(backdated));
    const resumed = await startSandbox({ dataDir, webhookUrl: receiver.url, timeScale: 60 });
    running.push(resumed);
    // It goes on at the wall clock's time, at the pace it was made with (not the one asked now).
    expect(Math.abs(resumed.clock.now() - Date.now())).toBeLessThan(1_000);
    expect(resumed.timeScale).toBe(3_600);
    expect(resumed.webhookSecret).toBe(secret);
    // The stopped time is skipped: the workload goes on where it was, without a burst.
    const after = resumed.workload.toSnapshot();
    expect(after.startedAt - backdated.workload.startedAt).toBeGreaterThanOrEqual(STOPPED_FOR);
    // (What opened meanwhile is the workload's usual 30 a second while the resumed sandbox starts.)
    expect(after.opened - stopped.workload.opened).toBeLessThan(1_800);
  });

  it('refuses a sandbox whose clock ran ahead of the wall clock (made before decision 0030), saying how to start afresh', async () => {
    const { sandbox } = await boot();
    await stop(sandbox);
    const file = JSON.parse(readFileSync(join(dataDir, SANDBOX_FILE), 'utf8')) as SandboxFile;
    const { timeScale: _, ...legacy } = file;
    writeFileSync(join(dataDir, SANDBOX_FILE), JSON.stringify(legacy));
    await expect(startSandbox({ dataDir, webhookUrl: receiver.url })).rejects.toThrow(
      /clock ran ahead of the wall clock.*rm -rf \.trainyard/,
    );
    // A database whose latest event is hours ahead (the sandbox files deleted by hand): refused too.
    rmSync(dataDir, { recursive: true, force: true });
    await expect(
      startSandbox({ dataDir, webhookUrl: receiver.url, resumeNotBefore: Date.now() + 7 * HOUR }),
    ).rejects.toThrow(/ahead of this machine's clock.*database's latest event/);
  });
});
