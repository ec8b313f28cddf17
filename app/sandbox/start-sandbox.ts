import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import type { CiModel } from '../sim/ci-model.ts';
import { loadOrCreateAppKey } from './app-key.ts';
import { SandboxCi } from './ci.ts';
import { type Clock, ScaledClock, WallClock } from './clock.ts';
import { createDemoRepository, DEMO_AUTHORS, DEMO_MAINTAINER, DEMO_REPOSITORY } from './demo-repository.ts';
import {
  DEFAULT_DEMO_WORKLOAD,
  type DemoActivity,
  DemoWorkload,
  type DemoWorkloadSettings,
  paceWorkload,
} from './demo-workload.ts';
import { loadSandboxState } from './journal-replay.ts';
import { SandboxGithub } from './model.ts';
import { SandboxPersistence } from './sandbox-persistence.ts';
import { isLoopbackHost, type SandboxServer, startSandboxServer } from './server.ts';

/** What the sandbox says about itself; a pino logger fits. */
export interface SandboxLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  debug(details: object, message: string): void;
}

export interface StartSandboxOptions {
  /** The sandbox's own directory (created if missing): sandbox.json, its journal and the app's private key. */
  dataDir: string;
  /** The app's webhook endpoint, on loopback. The app may start after the sandbox: deliveries retry. */
  webhookUrl: string;
  /** Signs the webhooks (default: the stored one, or a random one made on the first start). */
  webhookSecret?: string;
  /**
   * The demo's pace (SANDBOX_TIME_SCALE; default 1): its durations — CI runs, gaps between pull
   * requests and pushes, the authors' delay before queueing, the queue's waits in its
   * configuration — are this many times shorter than a real repository's, while the clock is the
   * wall clock (decision 0030). Fixed when the sandbox is created, like its seed.
   */
  timeScale?: number;
  /** Seeds the workload and the CI on a first start (default 1); a resumed sandbox keeps its own. */
  seed?: number;
  logger?: SandboxLogger;
  /** Loopback only (default 127.0.0.1). */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
  /** Workload settings on a first start (DEFAULT_DEMO_WORKLOAD otherwise). */
  workload?: Partial<DemoWorkloadSettings>;
  /** CI model on a first start: ten-minute runs, a flaky failure in fifty. */
  ci?: Partial<CiModel>;
  /** The clock, given the stored time to resume from (tests pass a VirtualClock); default a WallClock. */
  clock?: (resumeAt: number | null) => Clock;
  /**
   * A time the clock must not start before: what the app recorded from it (its latest event),
   * should the sandbox's own files be older than that.
   */
  resumeNotBefore?: number;
  /** Real milliseconds a scaled clock's time is kept on disk ahead of it (sandbox-persistence.ts). */
  clockLeaseMs?: number;
  /** Waits between webhook delivery attempts (default: up to two minutes in all, while the app starts). */
  retryDelaysMs?: readonly number[];
}

export interface Sandbox {
  /** What GITHUB_API_URL points at. */
  apiUrl: string;
  appId: number;
  /** The app's private key (PEM), made on the first start and kept in dataDir. */
  privateKey: string;
  webhookSecret: string;
  installationId: number;
  repository: { owner: string; name: string };
  /** Who acts in the demo: an admin, and the authors (write permission). */
  people: { maintainer: string; authors: readonly string[] };
  /** The sandbox's clock: the wall clock (a WallClock) unless the caller gave another. */
  clock: Clock;
  /** Its pace: durations this many times shorter than a real repository's. */
  timeScale: number;
  /** The model, CI, workload and server, for end-to-end tests that look behind the API. */
  github: SandboxGithub;
  ci: SandboxCi;
  workload: DemoWorkload;
  server: SandboxServer;
  /** A personal token of `login` (valid until the sandbox stops: tokens are not kept). */
  mintUserToken(login: string): string;
  /** Writes sandbox.json now (the journal folded in). */
  save(): Promise<void>;
  /** Resolves once every change so far is on disk (answers and webhooks wait for it). */
  durable(): Promise<void>;
  /** Stops the workload and CI, lets pending webhooks go out (a few seconds at most), saves, closes. */
  stop(): Promise<void>;
}

const defaultCiModel: Omit<CiModel, 'seed'> = { medianMs: 10 * 60_000, spread: 0.25, flakeRate: 0.02 };
/** Enough for the app to come up after the sandbox, or to restart: about two minutes in all. */
const defaultRetryDelaysMs = [500, 1_000, 2_000, 5_000, 10_000, 30_000, 60_000];
/** How long stop() lets pending webhooks go out before keeping them for the next start. */
const stopFlushMs = 3_000;
/** A demo runs for hours: the delivery log keeps the recent ones only. */
const deliveryLogLimit = 1_000;
/** From a push to CI picking it up, and from queued to in progress, in a real repository. */
const ciPickupDelayMs = 2_000;
const ciStartDelayMs = 3_000;
/**
 * How far ahead of the wall clock stored times may be for the wall clock to hold until it passes
 * them (a crash restarted within the clock's lease, a machine clock set back a little); further
 * ahead, the data was written by a clock that ran ahead of the wall clock and is refused.
 */
const futureToleranceMs = 60_000;

/**
 * The sandbox side of `npm start` without GitHub credentials: the simulated GitHub on
 * loopback with the demo repository, the app installed on it, simulated CI and the demo
 * workload, all resumed from `<dataDir>/sandbox.json` and its journal when they exist. Every
 * change is on disk before it is acknowledged (sandbox-persistence.ts), so the process may be
 * killed at any moment and resumed from its data directory. Refuses any address other than
 * loopback, both to listen on and to deliver webhooks to: it hands out tokens to anyone with a
 * JWT-shaped string.
 */
export async function startSandbox(options: StartSandboxOptions): Promise<Sandbox> {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopbackHost(host)) throw new Error(`the sandbox listens on loopback only, not on ${host}`);
  const webhookHost = new URL(options.webhookUrl).hostname.replace(/^\[(.*)\]$/, '$1');
  if (!isLoopbackHost(webhookHost))
    throw new Error(`the sandbox delivers webhooks to loopback only, not to ${options.webhookUrl}`);
  const log = options.logger;

  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const stored = loadSandboxState(options.dataDir);
  if (stored && stored.timeScale === undefined)
    throw new Error(
      `the sandbox in ${options.dataDir} was made by an earlier Trainyard whose sandbox clock ran ahead of the ` +
        `wall clock, so its times are in the future. Move it and the database beside it away ` +
        `(by default: rm -rf .trainyard) to start a fresh sandbox`,
    );
  // Fixed at creation: the stored workload and CI durations were shortened by it.
  const timeScale = stored?.timeScale ?? options.timeScale ?? 1;
  if (stored && options.timeScale !== undefined && options.timeScale !== timeScale)
    log?.warn(
      { stored: timeScale, asked: options.timeScale },
      `the sandbox keeps the pace it was created with (${timeScale}×); move ${options.dataDir} away to start afresh at ${options.timeScale}×`,
    );
  const privateKey = loadOrCreateAppKey(options.dataDir);
  const webhookSecret = options.webhookSecret ?? stored?.webhookSecret ?? randomBytes(24).toString('hex');
  const seed = options.seed ?? 1;
  const workloadSettings =
    stored?.workloadSettings ??
    paceWorkload({ ...DEFAULT_DEMO_WORKLOAD, seed, ...options.workload }, timeScale);
  const ciModel = stored?.ciModel ?? paceCiModel({ ...defaultCiModel, seed, ...options.ci }, timeScale);

  // Never before what was stored, nor before what the app saw (crash test C3: time went back).
  const notBefore = options.resumeNotBefore ?? Number.NEGATIVE_INFINITY;
  const resumeAt = stored
    ? Math.max(stored.now, notBefore)
    : Number.isFinite(notBefore)
      ? Math.max(notBefore, Date.now())
      : null;
  if (!options.clock && resumeAt !== null && resumeAt > Date.now() + futureToleranceMs)
    throw new Error(
      `the sandbox would resume at ${new Date(resumeAt).toISOString()}, ` +
        `${Math.round((resumeAt - Date.now()) / 60_000)} min ahead of this machine's clock: its data ` +
        `(${stored && stored.now >= notBefore ? options.dataDir : "the database's latest event"}) was written by a ` +
        `sandbox whose clock ran ahead of the wall clock, or this machine's clock went back. Move the ` +
        `sandbox and its database away (by default: rm -rf .trainyard) to start a fresh sandbox`,
    );
  const clock = options.clock?.(resumeAt) ?? new WallClock(resumeAt ?? undefined);
  // Held where it is until its time is on disk (the first snapshot below).
  if (clock instanceof ScaledClock) clock.limitTo(clock.now());
  const github = stored ? SandboxGithub.fromSnapshot(stored.model, { clock }) : new SandboxGithub({ clock });
  // Answers and webhooks wait for the disk; nothing goes out before the first snapshot is written.
  let persistence: Promise<SandboxPersistence> | null = null;
  let ready: (value: Promise<SandboxPersistence>) => void = () => {};
  const opened = new Promise<SandboxPersistence>((resolve) => {
    ready = resolve;
  });
  // A failed start is reported by startSandbox itself; whoever waits on the disk gets the error.
  opened.catch(() => {});
  const durable = async () => (await opened).durable();
  const server = await startSandboxServer({
    github,
    host,
    port: options.port,
    webhook: { url: options.webhookUrl, secret: webhookSecret },
    retryDelaysMs: options.retryDelaysMs ?? defaultRetryDelaysMs,
    deliveryLogLimit,
    durable,
  });
  try {
    if (stored) server.webhooks.resume(stored.deliveries);
    const repo =
      github.repository(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name) ??
      createDemoRepository(github, { areas: workloadSettings.areas, pace: timeScale });
    // Installing announces the repository to the app (installation.created), as on GitHub.
    const installation =
      github.access.installationOf(repo, github.app.id) ??
      github.install([repo], github.account(DEMO_MAINTAINER));
    const ci = new SandboxCi({
      github,
      clock,
      model: ciModel,
      restore: stored?.ci,
      pickupDelayMs: shorter(ciPickupDelayMs, timeScale),
      startDelayMs: shorter(ciStartDelayMs, timeScale),
    });
    const workload = new DemoWorkload({
      github,
      ci,
      clock,
      repo,
      settings: workloadSettings,
      state: stored?.workload,
      onActivity: (activity) => logActivity(log, activity),
    });
    // Stopped for a while: the demo goes on where it stopped rather than doing at once all that
    // would have come meanwhile (its clock, the wall clock, skipped that time).
    if (stored) workload.shift(clock.now() - stored.now);
    // The first start's key, secret and installation, or the restored state with the journal
    // folded in, are on disk before the app hears of anything.
    persistence = SandboxPersistence.open({
      dataDir: options.dataDir,
      github,
      ci,
      workload,
      webhooks: server.webhooks,
      clock,
      fixed: { webhookSecret, timeScale, workloadSettings, ciModel },
      journalSeq: stored?.journalSeq ?? 0,
      ...(log ? { log } : {}),
      ...(options.clockLeaseMs === undefined ? {} : { leaseMs: options.clockLeaseMs }),
    });
    ready(persistence);
    const store = await persistence;
    workload.start();

    log?.info(
      {
        apiUrl: server.url,
        repository: `${repo.owner.login}/${repo.name}`,
        resumed: stored !== null,
        timeScale,
      },
      stored ? 'sandbox resumed' : 'sandbox started',
    );

    let stopped: Promise<void> | null = null;
    return {
      apiUrl: server.url,
      appId: github.app.id,
      privateKey,
      webhookSecret,
      installationId: installation.id,
      repository: { owner: repo.owner.login, name: repo.name },
      people: { maintainer: DEMO_MAINTAINER, authors: DEMO_AUTHORS },
      clock,
      timeScale,
      github,
      ci,
      workload,
      server,
      mintUserToken: (login) => github.access.issueUserToken(github.account(login)),
      save: () => store.compact(),
      durable: () => store.durable(),
      stop() {
        stopped ??= (async () => {
          workload.stop();
          ci.close();
          if (clock instanceof ScaledClock) clock.stop();
          await settle(server.webhooks.flush(), stopFlushMs);
          // No sends after this: what is still pending is kept for the next start, not raced.
          server.webhooks.close();
          await store.close();
          await server.close();
          log?.info({ pendingWebhooks: server.webhooks.pendingCount() }, 'sandbox stopped');
        })();
        return stopped;
      },
    };
  } catch (error) {
    // Answers and webhooks waiting for the disk fail rather than wait forever.
    if (persistence === null) ready(Promise.reject(error));
    await server.close();
    throw error;
  }
}

/** A real repository's duration at the demo's pace (a millisecond at least). */
function shorter(ms: number, pace: number): number {
  return Math.max(1, Math.round(ms / pace));
}

/** CI runs `pace` times shorter than in a real repository. */
function paceCiModel(model: CiModel, pace: number): CiModel {
  return pace === 1 ? model : { ...model, medianMs: shorter(model.medianMs, pace) };
}

/** Waits for `work` at most `ms`; its failure is not stop()'s (undelivered webhooks are kept). */
async function settle(work: Promise<void>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    work.catch(() => {}),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}

function logActivity(log: SandboxLogger | undefined, activity: DemoActivity): void {
  if (!log) return;
  switch (activity.type) {
    case 'opened':
      log.debug(activity, `demo: ${activity.author} opened #${activity.number}`);
      return;
    case 'queued':
      log.debug(activity, `demo: ${activity.author} queued #${activity.number}`);
      return;
    case 'pushed':
      log.debug(activity, `demo: pushed ${activity.label} to the base branch`);
      return;
    case 'error':
      log.warn({ err: activity.error }, 'demo workload step refused');
      return;
  }
}
