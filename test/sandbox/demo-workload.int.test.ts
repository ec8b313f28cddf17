import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../app/config/load-config.ts';
import { SandboxCi } from '../../app/sandbox/ci.ts';
import { VirtualClock } from '../../app/sandbox/clock.ts';
import {
  createDemoRepository,
  DEMO_AUTHORS,
  DEMO_MAINTAINER,
  HOTFIX_LABEL,
} from '../../app/sandbox/demo-repository.ts';
import {
  DEFAULT_DEMO_WORKLOAD,
  type DemoActivity,
  DemoWorkload,
  type DemoWorkloadSettings,
} from '../../app/sandbox/demo-workload.ts';
import { SandboxGithub } from '../../app/sandbox/model.ts';
import type { CiModel } from '../../app/sim/ci-model.ts';
import { type SandboxHarness, startSandboxHarness } from '../support/sandbox-harness.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** No flakes: a failed run is a bad PR (or a conflict), nothing else. */
const steady: CiModel = { seed: 5, medianMs: 10 * MINUTE, spread: 0.2, flakeRate: 0 };
/** Busier than the default so that four hours show every kind of step. */
const busy: DemoWorkloadSettings = {
  ...DEFAULT_DEMO_WORKLOAD,
  seed: 42,
  ratePerHour: 12,
  badRate: 0.2,
  hotfixRate: 0.2,
  conflictRate: 0.3,
  sharedFileRate: 0.3,
  externalPushesPerHour: 1,
};

let h: SandboxHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function play(github: SandboxGithub, clock: VirtualClock, settings: DemoWorkloadSettings) {
  const repo = createDemoRepository(github, { areas: settings.areas });
  github.install([repo], github.account(DEMO_MAINTAINER));
  const ci = new SandboxCi({ github, clock, model: steady });
  const activity: (DemoActivity & { at: number })[] = [];
  const workload = new DemoWorkload({
    github,
    ci,
    clock,
    repo,
    settings,
    onActivity: (a) => activity.push({ ...a, at: clock.now() }),
  });
  workload.start();
  return { repo, ci, workload, activity };
}

describe('demo repository', () => {
  it('carries a valid configuration with a hotfix priority rule, and people with write permission', () => {
    const github = new SandboxGithub({ clock: new VirtualClock() });
    const repo = createDemoRepository(github, { areas: 3 });
    const parsed = parseConfig(github.fileText(repo, 'main', '.github/trainyard.yml')!);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    expect(parsed.config.priority_rules).toMatchObject([{ name: 'hotfix', priority: 3000 }]);
    expect(parsed.config.queue_rules[0]).toMatchObject({
      batch_size: { min: 2, max: 6 },
      checks_timeout: 3600,
    });
    expect(parsed.config.merge_queue).toMatchObject({ max_parallel_checks: 3, bisect_aside: true });
    expect(github.fileText(repo, 'main', 'areas/area-02/index.ts')).not.toBeNull();
    expect(repo.labels.get(HOTFIX_LABEL)?.color).toBe('b60205');
    for (const author of DEMO_AUTHORS)
      expect(github.access.roleOf(repo, github.account(author))).toBe('write');
    expect(github.access.roleOf(repo, github.account(DEMO_MAINTAINER))).toBe('admin');
  });
});

describe('demo workload on a virtual clock', () => {
  it('opens PRs over four hours, queues each by comment a little later, and hotfixes carry the label', async () => {
    h = await startSandboxHarness();
    const { repo, activity } = play(h.github, h.clock, busy);
    h.clock.advance(4 * HOUR);
    await h.server.webhooks.flush();

    const opened = activity.filter((a) => a.type === 'opened');
    // 12 an hour for 4 hours: Poisson, so loosely around 48.
    expect(opened.length).toBeGreaterThan(30);
    expect(opened.length).toBeLessThan(70);
    expect([...repo.pulls.keys()]).toEqual(opened.map((a) => a.number));

    const received = h.receiver.accepted();
    const openedAt = new Map(
      received
        .filter((r) => r.event === 'pull_request' && r.action === 'opened')
        .map((r) => [r.payload['number'] as number, received.indexOf(r)]),
    );
    const queueComments = received.filter((r) => r.event === 'issue_comment' && r.action === 'created');
    const queued = activity.filter((a) => a.type === 'queued');
    // Every PR is queued once, by its author, after its opening was delivered; the last few may still wait.
    expect(queueComments.length).toBe(queued.length);
    expect(queued.length).toBeGreaterThanOrEqual(opened.length - 3);
    for (const delivery of queueComments) {
      const issue = delivery.payload['issue'] as { number: number; user: { login: string } };
      const comment = delivery.payload['comment'] as { body: string; user: { login: string } };
      expect(comment.body).toBe('@trainyard queue');
      expect(comment.user.login).toBe(issue.user.login);
      expect(DEMO_AUTHORS).toContain(comment.user.login);
      expect(openedAt.get(issue.number)).toBeLessThan(received.indexOf(delivery));
    }
    for (const q of queued) {
      const pr = opened.find((o) => o.number === q.number)!;
      expect(q.at - pr.at).toBeGreaterThanOrEqual(30_000);
      expect(q.at - pr.at).toBeLessThanOrEqual(5 * MINUTE);
    }

    const hotfixes = opened.filter((a) => a.type === 'opened' && a.hotfix).map((a) => a.number);
    expect(hotfixes.length).toBeGreaterThan(0);
    for (const pull of repo.pulls.values())
      expect(pull.labels.includes(HOTFIX_LABEL)).toBe(hotfixes.includes(pull.number));
    const labeled = received.filter((r) => r.event === 'pull_request' && r.action === 'labeled');
    expect(labeled.map((r) => r.payload['number'])).toEqual(hotfixes);
  });

  it('tells CI which PRs are bad: their runs fail, the others pass', async () => {
    h = await startSandboxHarness();
    const { repo, ci, activity } = play(h.github, h.clock, busy);
    h.clock.advance(4 * HOUR);
    const opened = activity.filter((a) => a.type === 'opened');
    const bad = opened.filter((a) => a.bad).map((a) => a.number);
    expect(bad.length).toBeGreaterThan(2);
    expect(bad.length).toBeLessThan(opened.length / 2);
    // Each PR's own head is tested alone on its base: only the bad ones fail (no flakes here).
    // Runs last about ten minutes: those opened in the last half hour may still be going.
    for (const { number } of opened.filter((a) => a.at < h!.clock.now() - 30 * MINUTE)) {
      const pull = repo.pulls.get(number)!;
      const [run] = h.github.checks.runsFor(repo, pull.headSha, { checkName: 'ci', latestOnly: true });
      expect(ci.truthOf(repo, number).bad).toBe(bad.includes(number));
      expect(run?.conclusion).toBe(bad.includes(number) ? 'failure' : 'success');
    }
  });

  it('pushes to the base branch now and then, as the maintainer', async () => {
    h = await startSandboxHarness();
    const { repo, activity } = play(h.github, h.clock, busy);
    h.clock.advance(4 * HOUR);
    await h.server.webhooks.flush();
    const pushed = activity.filter((a) => a.type === 'pushed');
    expect(pushed.length).toBeGreaterThan(0);
    const pushes = h.receiver
      .accepted()
      .filter((r) => r.event === 'push' && r.payload['ref'] === 'refs/heads/main');
    expect(pushes.map((r) => (r.payload['sender'] as { login: string }).login)).toEqual(
      pushed.map(() => DEMO_MAINTAINER),
    );
    expect(h.github.shaHistory(repo, 'main')).toEqual([
      ...pushed.map((_, i) => `main-${pushed.length + 1 - i}`),
      'main-1',
    ]);
  });

  it('PRs of one area conflict: in git when both edit its index, for CI when the workload says so', () => {
    const clock = new VirtualClock();
    const github = new SandboxGithub({ clock });
    const { repo, ci } = play(github, clock, busy);
    clock.advance(4 * HOUR);
    const editors = [...repo.pulls.values()].filter((p) =>
      github.pulls.files(repo, p.number).some((f) => /^areas\/[^/]+\/index\.ts$/.test(f.path)),
    );
    const indexOf = (number: number) =>
      github.pulls.files(repo, number).find((f) => f.path.endsWith('/index.ts'))!.path;
    const [first, second] = editors.filter((p) => indexOf(p.number) === indexOf(editors[0]!.number));
    github.pulls.merge(repo, first!.number, { method: 'merge', sender: github.app.bot });
    expect(github.pulls.mergeable(repo, second!)).toBe(false);

    const conflicting = [...repo.pulls.keys()].filter((n) => ci.truthOf(repo, n).conflictsWith.length > 0);
    expect(conflicting.length).toBeGreaterThan(0);
    for (const number of conflicting) {
      const truth = ci.truthOf(repo, number);
      for (const partner of truth.conflictsWith) {
        expect(ci.truthOf(repo, partner).conflictsWith).toContain(number);
        expect(ci.truthOf(repo, partner).areas.some((a) => truth.areas.includes(a))).toBe(true);
      }
    }
  });

  it('marks by sandbox number: PRs opened by others in between (the app’s drafts) take numbers too', () => {
    const clock = new VirtualClock();
    const github = new SandboxGithub({ clock });
    const { repo, ci, activity } = play(github, clock, busy);
    // Every 20 minutes the app opens a draft PR, as it does for a batch.
    for (let i = 1; i <= 12; i++) {
      clock.advance(20 * MINUTE);
      github.openPullRequest(repo, {
        author: github.app.bot.login,
        title: `Batch ${i}`,
        files: { [`batch-${i}.txt`]: `${i}` },
        branch: `trainyard/batch-${i}`,
        draft: true,
      });
    }
    const opened = activity.filter((a) => a.type === 'opened');
    const drafts = [...repo.pulls.values()].filter((p) => p.draft).map((p) => p.number);
    expect(drafts).toHaveLength(12);
    // Numbers interleave, so workload numbers and sandbox numbers part ways…
    expect(opened.some((a, i) => a.number !== i + 1)).toBe(true);
    // …and each truth sits on the PR its activity names.
    for (const a of opened) {
      expect(repo.pulls.get(a.number)!.user.login).toBe(a.author);
      expect(ci.truthOf(repo, a.number).bad).toBe(a.bad);
    }
    for (const draft of drafts)
      expect(ci.truthOf(repo, draft)).toMatchObject({ bad: false, conflictsWith: [] });
    for (const a of opened)
      for (const partner of ci.truthOf(repo, a.number).conflictsWith) expect(drafts).not.toContain(partner);
  });

  it('is the same every time for a seed, and different for another seed', () => {
    const run = (seed: number) => {
      const clock = new VirtualClock();
      const { activity } = play(new SandboxGithub({ clock }), clock, { ...busy, seed });
      clock.advance(3 * HOUR);
      return activity.map((a) =>
        JSON.stringify({ ...a, ...(a.type === 'error' ? { error: a.error.message } : {}) }),
      );
    };
    const first = run(42);
    expect(run(42)).toEqual(first);
    expect(run(43)).not.toEqual(first);
    expect(first.some((a) => a.includes('"error"'))).toBe(false);
  });

  it('goes on into the next period of the workload, without repeating branch names', () => {
    const clock = new VirtualClock();
    const github = new SandboxGithub({ clock });
    const { repo, activity } = play(github, clock, { ...busy, periodMs: HOUR });
    clock.advance(3 * HOUR);
    expect(activity.filter((a) => a.type === 'error')).toEqual([]);
    const opened = activity.filter((a) => a.type === 'opened');
    expect(opened.filter((a) => a.at >= clock.now() - HOUR).length).toBeGreaterThan(3);
    const heads = [...repo.pulls.values()].map((p) => p.head);
    expect(new Set(heads).size).toBe(heads.length);
  });
});
