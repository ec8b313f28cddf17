/*
 * Benchmark of webhook ingestion (issue #4): signed deliveries over loopback for many
 * repositories into one Trainyard instance, on PGlite and on PostgreSQL.
 *
 * Three processes, so that only Trainyard's work is charged to Trainyard's process:
 * - this one runs Trainyard as app/main.ts wires it: store, HTTP server (v1 API and webhook
 *   endpoint), GitHub App and its polling loops (request policy: see `requestPolicy`);
 * - a "github" child runs the sandbox code host (app/sandbox) with simulated CI and a workload
 *   of authors opening, pushing, reviewing, labelling and queueing pull requests; every change
 *   — the workload's, CI's and the app's own effects — becomes the webhook GitHub would send
 *   (the sandbox's renderer, built on @octokit/webhooks-examples), queued for the sender;
 * - a "sender" child takes those deliveries, signs them (X-Hub-Signature-256) and POSTs them
 *   to the app at a fixed rate (open loop, at most BENCH_CONCURRENCY in flight), timing each
 *   answer.
 *
 * The app does its real work for each delivery: signature check, inbox insert, claim,
 * translation, REST reads from the sandbox, engine step transaction, outbox effects run against
 * the sandbox. Only the events the app subscribes to are sent (app.yml).
 *
 * Figures: deliveries/s sustained (first send to last processed); acknowledgement latency (HTTP
 * round trip to the 202, measured by the sender); processing latency (from the 202 to the
 * processor's "delivery processed" — the app's own debug log line, caught by a pino hook that
 * also drops the other debug lines, so the app logs at info level as in production). The
 * processor's per-delivery child logger marks the claim, which splits processing into waiting in
 * the inbox and handling. Both processes read the same wall clock (performance.timeOrigin).
 *
 *   npm run bench:webhooks
 *   BENCH_DELIVERIES=2000 BENCH_REPOSITORIES=10 npm run bench:webhooks     # a quick run
 *
 * The offered rate is the target plus 10 % (330/s): a run that keeps up then shows at least
 * 300/s from the first send to the last delivery processed. A back end that cannot keep up
 * builds a backlog; after BENCH_DRAIN_SECONDS the deliveries still waiting count as infinitely
 * slow in the percentiles (shown as "> N s"), and the rate counts only those processed.
 *
 * Environment: BENCH_DELIVERIES (10,000 per back end), BENCH_REPOSITORIES (50), BENCH_RATE
 * (deliveries/s offered, 330; 0 sends as fast as the in-flight limit allows), BENCH_CONCURRENCY
 * (deliveries in flight at most, 64), BENCH_BACKENDS (pglite,postgres), BENCH_DATABASE_URL
 * (default postgresql://postgres@127.0.0.1:5432/trainyard_bench), BENCH_SCHEMA (webhooks_bench),
 * BENCH_SEED (1), BENCH_DRAIN_SECONDS (how long to wait for the backlog after the last send, 30),
 * BENCH_THROTTLE=1 (pace writes to GitHub as production does), BENCH_HISTORY (processed
 * deliveries already in the inbox table, 200,000: deliveries are kept seven days),
 * BENCH_WARMUP (deliveries sent at the offered rate and processed before the measured ones,
 * 1,000; not counted: the measured figures are of a running instance, its connections opened,
 * statements prepared, installation token fetched and code compiled), BENCH_CPU_PROFILE (a file
 * name: Trainyard's process records a V8 CPU profile of the measured deliveries only, written to
 * NAME-BACKEND.cpuprofile; `tsx test/bench/support/cpu-profile-summary.ts FILE` summarizes it).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { createHmac, generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, createServer, request as httpRequest } from 'node:http';
import { Session } from 'node:inspector/promises';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { GithubPermissions } from '../../app/api/auth/github-permissions.ts';
import { buildServer } from '../../app/api/server.ts';
import { productionRequestPolicy, type RequestPolicy } from '../../app/github/client/octokit.ts';
import { createGithubApp } from '../../app/github/github-app.ts';
import { handledEvents } from '../../app/github/inbox/delivery-step.ts';
import { webhookPath } from '../../app/github/inbox/webhook-endpoint.ts';
import { SandboxCi } from '../../app/sandbox/ci.ts';
import { VirtualClock } from '../../app/sandbox/clock.ts';
import type { PullRequest, Repository } from '../../app/sandbox/entities.ts';
import { SandboxGithub } from '../../app/sandbox/model.ts';
import { startSandboxServer } from '../../app/sandbox/server.ts';
import { renderWebhook } from '../../app/sandbox/webhooks/payloads.ts';
import { createRandom } from '../../app/sim/random.ts';
import { openStore, type Store } from '../../app/store/database.ts';
import { freshBenchSchema } from './support/bench-database.ts';
import { envInt } from './support/env-int.ts';
import { type Summary, summarize, table } from './support/stats.ts';

const config = {
  deliveries: envInt('BENCH_DELIVERIES', 10_000),
  repositories: Math.max(1, envInt('BENCH_REPOSITORIES', 50)),
  rate: envInt('BENCH_RATE', 330),
  concurrency: Math.max(1, envInt('BENCH_CONCURRENCY', 64)),
  backends: (process.env.BENCH_BACKENDS ?? 'pglite,postgres').split(',').map((b) => b.trim()) as (
    | 'pglite'
    | 'postgres'
  )[],
  databaseUrl: process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/trainyard_bench',
  schema: process.env.BENCH_SCHEMA ?? 'webhooks_bench',
  seed: envInt('BENCH_SEED', 1),
  drainMs: envInt('BENCH_DRAIN_SECONDS', 30) * 1000,
  /** Processed deliveries already in the inbox table, as a week of retention leaves them. */
  history: envInt('BENCH_HISTORY', 200_000),
  /** Deliveries sent and processed before the measured ones (a running instance's state). */
  warmup: envInt('BENCH_WARMUP', 1_000),
  /** BENCH_THROTTLE=1: pace writes as against GitHub (one a second per installation). */
  throttle: process.env.BENCH_THROTTLE === '1',
  /** Where Trainyard's CPU profile of the measured deliveries goes (none when unset). */
  cpuProfile: process.env.BENCH_CPU_PROFILE,
};

/**
 * Production's request policy (retries), without the write pacing GitHub asks for unless
 * BENCH_THROTTLE=1: one write a second for the whole installation would leave the effects of 50
 * busy repositories hours behind (nothing merges, pull requests pile up), which is GitHub's
 * limit, not the app's. The sandbox answers at once and never rate-limits.
 */
const requestPolicy: RequestPolicy = { ...productionRequestPolicy, throttle: config.throttle };

/** Issue #4's target, on PostgreSQL. */
const target = { deliveriesPerSecond: 300, p99ProcessingMs: 200 };

const WEBHOOK_SECRET = 'bench-webhook-secret';

/** Wall-clock milliseconds with sub-millisecond resolution, comparable between processes. */
const wall = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------
// Messages between the processes

/** A webhook as GitHub would send it, not yet signed. */
interface OutgoingDelivery {
  name: string;
  action: string | null;
  body: string;
}

interface WorkloadCounts {
  steps: number;
  opened: number;
  pushes: number;
  queueCommands: number;
  dequeueCommands: number;
  chatter: number;
  labels: number;
  reviews: number;
  merged: number;
  ciRuns: number;
  rendered: number;
  /** CPU time of the github child during the measured deliveries (ms). */
  cpuMs: number;
}

type GithubMessage =
  | { type: 'ready'; apiUrl: string; controlUrl: string; appId: number }
  | { type: 'counts'; counts: WorkloadCounts };

interface SendRequest {
  type: 'send';
  webhookUrl: string;
  controlUrl: string;
  /** Deliveries to send at most; fewer when the github child has no more and `generate` is off. */
  limit: number;
  /** Deliveries per second; 0: as fast as the in-flight limit allows. */
  rate: number;
  concurrency: number;
  /** Whether the github child may play its workload to make more deliveries. */
  generate: boolean;
}

interface SentDelivery {
  id: string;
  event: string;
  sentAt: number;
  ackAt: number;
  status: number;
}

type SenderMessage = { type: 'sent'; deliveries: SentDelivery[] } | { type: 'failed'; error: string };

// ---------------------------------------------------------------------------------------
// The "github" child: sandbox code host, CI, workload, webhooks queued for the sender

const AUTHORS = ['alice', 'bob', 'carol'] as const;
/** Read access only: the queue refuses their commands. */
const READER = 'dave';
const MAX_OPEN_PER_REPOSITORY = 25;
const STEP_MS = 1_000;
/** The CI's two jobs are the merge conditions (the default, check-success=ci, would never hold here). */
const CI_JOBS = ['build', 'test'];
const CONFIG_FILE = [
  'queue_rules:',
  '  - name: default',
  '    batch_size: 3',
  '    merge_conditions:',
  ...CI_JOBS.map((job) => `      - check-success=${job}`),
  '',
].join('\n');

async function runGithubProcess(): Promise<void> {
  const { seed } = config;
  const rng = createRandom(seed);
  const random = () => rng.next();
  const clock = new VirtualClock(Date.now());
  const github = new SandboxGithub({ clock });
  const sandbox = await startSandboxServer({ github });
  // The sandbox's own sender is not used: the bench's sender paces, signs and times deliveries.
  sandbox.webhooks.close();
  const ci = new SandboxCi({
    github,
    clock,
    model: { seed, medianMs: 60_000, spread: 0.3, flakeRate: 0.02 },
    jobs: CI_JOBS,
  });
  const counts: WorkloadCounts = {
    steps: 0,
    opened: 0,
    pushes: 0,
    queueCommands: 0,
    dequeueCommands: 0,
    chatter: 0,
    labels: 0,
    reviews: 0,
    merged: 0,
    ciRuns: 0,
    rendered: 0,
    cpuMs: 0,
  };
  let cpuSince = process.cpuUsage();
  const outgoing: OutgoingDelivery[] = [];
  github.on((event) => {
    if (event.type === 'pull_request' && event.action === 'closed' && event.pull.merged) counts.merged++;
    // Rendered now, as GitHub does: the payload shows the state as of the event.
    const webhook = renderWebhook(github, sandbox.urls, event);
    if (webhook === null || !handledEvents.has(webhook.name)) return;
    const action = webhook.payload['action'];
    counts.rendered++;
    outgoing.push({
      name: webhook.name,
      action: typeof action === 'string' ? action : null,
      body: JSON.stringify(webhook.payload),
    });
  });

  const repos: Repository[] = [];
  for (let i = 0; i < config.repositories; i++) {
    const repo = github.createRepository({
      owner: 'acme',
      name: `service-${String(i).padStart(2, '0')}`,
      files: {
        'README.md': `# service ${i}\n`,
        'src/index.ts': 'export {};\n',
        '.github/trainyard.yml': CONFIG_FILE,
      },
    });
    for (const author of AUTHORS) github.grant(repo, author, 'write');
    github.grant(repo, READER, 'read');
    repos.push(repo);
  }
  // The installation webhook is how the app learns of the repositories.
  github.install(repos);

  const commanded = new Map<number, Set<number>>();
  let changes = 0;
  const pick = <T>(items: readonly T[]): T | undefined =>
    items.length === 0 ? undefined : items[Math.floor(random() * items.length)];
  const authorsPulls = (repo: Repository): PullRequest[] =>
    [...repo.pulls.values()].filter((p) => p.state === 'open' && p.user.id !== github.app.bot.id);

  /** One workload step: a second of sandbox time passes (CI moves on), and one person acts. */
  const step = () => {
    counts.steps++;
    clock.advance(STEP_MS);
    const repo = pick(repos)!;
    const open = authorsPulls(repo);
    const queued = commanded.get(repo.id) ?? new Set<number>();
    commanded.set(repo.id, queued);
    const roll = random() * 13;
    if (roll < 3 && open.length < MAX_OPEN_PER_REPOSITORY) {
      const author = pick(AUTHORS)!;
      const n = ++changes;
      github.openPullRequest(repo, {
        author,
        title: `Change ${n}`,
        body: `Change ${n} of the webhook benchmark.`,
        branch: `${author}/change-${n}`,
        files: { [`src/change-${n}.ts`]: `export const change${n} = ${n};\n` },
      });
      counts.opened++;
      return;
    }
    const pull = pick(open);
    if (pull === undefined) return;
    const waiting = pick(open.filter((p) => !queued.has(p.number)));
    if (roll < 6 && waiting !== undefined) {
      // A reader's command now and then: refused, but still a command to read and answer.
      const login = random() < 0.05 ? READER : waiting.user.login;
      github.issues.comment(repo, {
        number: waiting.number,
        body: `@${github.app.slug} queue`,
        user: github.account(login),
      });
      queued.add(waiting.number);
      counts.queueCommands++;
    } else if (roll >= 6 && roll < 7.5 && waiting !== undefined) {
      // Review fixes go to pull requests not queued yet.
      const n = ++changes;
      github.pushToPullRequest(repo, waiting.number, {
        files: { [`src/change-${n}.ts`]: `export const change${n} = ${n};\n` },
      });
      counts.pushes++;
    } else if (roll >= 7.5 && roll < 8.5) {
      github.issues.addLabels(repo, {
        number: pull.number,
        names: [pick(['enhancement', 'bug', 'needs-review', 'documentation'])!],
        sender: pull.user,
      });
      counts.labels++;
    } else if (roll >= 8.5 && roll < 10) {
      const reviewer = pick(AUTHORS.filter((a) => a !== pull.user.login))!;
      github.pulls.review(repo, pull.number, {
        user: github.account(reviewer),
        state: random() < 0.85 ? 'APPROVED' : 'COMMENTED',
        body: 'Looks fine to me.',
      });
      counts.reviews++;
    } else if (roll >= 12.7 && queued.has(pull.number)) {
      github.issues.comment(repo, {
        number: pull.number,
        body: `@${github.app.slug} dequeue`,
        user: pull.user,
      });
      queued.delete(pull.number);
      counts.dequeueCommands++;
    } else {
      // Conversation, and what a queue command becomes when every open pull request is queued.
      github.issues.comment(repo, {
        number: pull.number,
        body: pick(['Thanks!', 'Could you add a test?', 'Rebased.', 'LGTM'])!,
        user: github.account(pick(AUTHORS)!),
      });
      counts.chatter++;
    }
  };

  const playStep = () => {
    try {
      step();
    } catch {
      // A refused step (the app closed the pull request meanwhile…) is just skipped.
    }
  };
  /**
   * Once asked to, the workload plays ahead of the sender one step per turn of the event loop
   * (a step takes well under a millisecond), so the REST answers the app waits for are never
   * held up behind a long burst of workload.
   */
  let playing = false;
  let player: NodeJS.Immediate | null = null;
  const playAhead = () => {
    player = null;
    if (!playing || outgoing.length >= 256) return;
    playStep();
    player = setImmediate(playAhead);
  };

  /** GET /deliveries?max=N&generate=0|1: the next deliveries, the workload playing on if allowed. */
  const control = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/deliveries') {
      response.writeHead(404).end();
      return;
    }
    const max = Number(url.searchParams.get('max') ?? 64);
    if (url.searchParams.get('generate') === '1') {
      playing = true;
      for (let guard = 0; outgoing.length === 0 && guard < 10_000; guard++) playStep();
      player ??= setImmediate(playAhead);
    }
    const batch = outgoing.splice(0, max);
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(batch));
  });
  await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve));
  const controlUrl = `http://127.0.0.1:${(control.address() as AddressInfo).port}`;

  process.on('message', (message: { type: string }) => {
    if (message.type === 'measure') cpuSince = process.cpuUsage();
    if (message.type === 'counts') {
      counts.ciRuns = ci.runs().length;
      const cpu = process.cpuUsage(cpuSince);
      counts.cpuMs = (cpu.user + cpu.system) / 1000;
      send({ type: 'counts', counts });
    }
    if (message.type === 'stop') {
      playing = false;
      if (player !== null) clearImmediate(player);
      ci.close();
      control.close();
      void sandbox.close().finally(() => process.exit(0));
    }
  });
  send({ type: 'ready', apiUrl: sandbox.url, controlUrl, appId: github.app.id });

  function send(message: GithubMessage) {
    process.send?.(message);
  }
}

// ---------------------------------------------------------------------------------------
// The "sender" child: paces, signs, POSTs, times the acknowledgement

async function runSenderProcess(): Promise<void> {
  process.on('message', (message: SendRequest | { type: 'stop' }) => {
    if (message.type === 'stop') process.exit(0);
    sendDeliveries(message).then(
      (deliveries) => process.send?.({ type: 'sent', deliveries } satisfies SenderMessage),
      (error: Error) =>
        process.send?.({ type: 'failed', error: error.stack ?? error.message } satisfies SenderMessage),
    );
  });
}

async function sendDeliveries(request: SendRequest): Promise<SentDelivery[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: request.concurrency });
  const buffer: OutgoingDelivery[] = [];
  let exhausted = false;
  let fetching: Promise<void> | null = null;
  const prefetch = () => {
    fetching ??= getJson<OutgoingDelivery[]>(
      `${request.controlUrl}/deliveries?max=64&generate=${request.generate ? 1 : 0}`,
    )
      .then((batch) => {
        buffer.push(...batch);
        if (batch.length === 0) exhausted = true;
      })
      .finally(() => {
        fetching = null;
      });
    return fetching;
  };

  const sent: SentDelivery[] = [];
  const inFlight = new Set<Promise<void>>();
  const startedAt = performance.now();
  for (let i = 0; i < request.limit; i++) {
    if (buffer.length < 32 && !exhausted) void prefetch();
    while (buffer.length === 0 && !exhausted) await prefetch();
    const delivery = buffer.shift();
    if (delivery === undefined) break;
    if (request.rate > 0) {
      const wait = startedAt + (i * 1000) / request.rate - performance.now();
      if (wait >= 1) await sleep(wait);
    }
    while (inFlight.size >= request.concurrency) await Promise.race(inFlight);
    const posted = post(agent, request.webhookUrl, delivery).then((result) => {
      sent.push(result);
      inFlight.delete(posted);
    });
    inFlight.add(posted);
  }
  await Promise.all(inFlight);
  agent.destroy();
  return sent;
}

function post(agent: Agent, url: string, delivery: OutgoingDelivery): Promise<SentDelivery> {
  const id = randomUUID();
  const body = Buffer.from(delivery.body);
  const signature = `sha256=${createHmac('sha256', WEBHOOK_SECRET).update(body).digest('hex')}`;
  const event = delivery.action === null ? delivery.name : `${delivery.name}.${delivery.action}`;
  return new Promise((resolve, reject) => {
    const sentAt = wall();
    const req = httpRequest(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': body.length,
          'user-agent': 'GitHub-Hookshot/bench',
          'x-github-delivery': id,
          'x-github-event': delivery.name,
          'x-github-hook-id': '420100',
          'x-github-hook-installation-target-type': 'integration',
          'x-hub-signature-256': signature,
        },
      },
      (response) => {
        response.resume();
        response.on('end', () =>
          resolve({ id, event, sentAt, ackAt: wall(), status: response.statusCode ?? 0 }),
        );
        response.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function getJson<T>(url: string): Promise<T> {
  return new Promise((resolve, reject) => {
    httpRequest(url, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as T);
        } catch (error) {
          reject(error);
        }
      });
      response.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

// ---------------------------------------------------------------------------------------
// The main process: Trainyard, and the measurements

interface Child {
  process: ChildProcess;
  next<T>(accept: (message: T) => boolean): Promise<T>;
  send(message: object): void;
  stop(): Promise<void>;
}

/**
 * The V8 flags `npm start` runs the server with (package.json's start script: a larger young
 * generation), so that the measured Trainyard runs as it ships.
 */
function serverNodeFlags(): string[] {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    scripts: { start: string };
  };
  return manifest.scripts.start.split(/\s+/).filter((token) => /^--max-[a-z-]+=\d+$/.test(token));
}

function startChild(role: 'github' | 'sender' | 'app', args: string[] = []): Child {
  const child = fork(fileURLToPath(import.meta.url), [role, ...args], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    // tsx's loader carries over; a profiler (node --cpu-prof) stays on Trainyard's process.
    execArgv:
      role === 'app'
        ? [...process.execArgv, ...serverNodeFlags()]
        : process.execArgv.filter((arg) => !arg.startsWith('--cpu-prof')),
  });
  const waiters: { accept: (message: unknown) => boolean; resolve: (message: unknown) => void }[] = [];
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.on('message', (message) => {
    const index = waiters.findIndex((w) => w.accept(message));
    if (index >= 0) waiters.splice(index, 1)[0]!.resolve(message);
  });
  child.once('exit', (code) => {
    if (waiters.length > 0) {
      const error = new Error(`the ${role} process exited (code ${code}) while awaited`);
      for (const waiter of waiters.splice(0)) waiter.resolve(Promise.reject(error));
    }
  });
  return {
    process: child,
    next: <T>(accept: (message: T) => boolean) =>
      new Promise<T>((resolve) =>
        waiters.push({
          accept: accept as (message: unknown) => boolean,
          resolve: resolve as (message: unknown) => void,
        }),
      ),
    send: (message) => child.send(message),
    async stop() {
      if (child.exitCode !== null) return;
      child.send({ type: 'stop' });
      const timeout = sleep(5_000).then(() => child.kill());
      await Promise.race([exited, timeout]);
    },
  };
}

/** What the app says through its logger: the processor's claim and "delivery processed" lines. */
class ProcessingTrace {
  readonly claimed = new Map<string, number>();
  readonly processed = new Map<string, number>();
  readonly warnings = new Map<string, number>();
  /** Deliveries drain() waits for. */
  private readonly awaited = new Set<string>();

  /** Waits until every one of `ids` was processed, or `timeoutMs`; returns how many were not. */
  async drain(ids: readonly string[], timeoutMs: number): Promise<number> {
    for (const id of ids) if (!this.processed.has(id)) this.awaited.add(id);
    const until = Date.now() + timeoutMs;
    while (this.awaited.size > 0 && Date.now() < until) await sleep(20);
    const left = this.awaited.size;
    this.awaited.clear();
    return left;
  }

  /**
   * A pino logger at debug level that lets through only what info level would write (to
   * /dev/null, paying the serialization production pays), and catches the two markers.
   */
  createLogger(): pino.Logger {
    const trace = this;
    return pino(
      {
        level: 'debug',
        onChild(child) {
          // DeliveryProcessor.processGroup() makes this child right after the claim. (Looked for in
          // the serialized bindings first: parsing those of every request's child costs.)
          const serialized = (child as unknown as Record<symbol, unknown>)[pino.symbols.chindingsSym];
          if (typeof serialized === 'string' && !serialized.includes('"delivery":')) return;
          const bindings = child.bindings();
          const id = bindings['delivery'];
          if (typeof id === 'string' && typeof bindings['attempt'] === 'number' && !trace.claimed.has(id))
            trace.claimed.set(id, wall());
        },
        hooks: {
          logMethod(args, method, level) {
            if (args[0] === 'webhooks: delivery processed') {
              const id = this.bindings()['delivery'];
              if (typeof id === 'string') {
                trace.processed.set(id, wall());
                trace.awaited.delete(id);
              }
              return;
            }
            if (level < 30) return;
            if (level >= 40) {
              const message = typeof args[0] === 'string' ? args[0] : String(args[1] ?? '?');
              trace.warnings.set(message, (trace.warnings.get(message) ?? 0) + 1);
            }
            method.apply(this, args);
          },
        },
      },
      pino.destination({ dest: '/dev/null', sync: false }),
    );
  }
}

interface OpenedStore {
  store: Store;
  label: string;
  cleanup(): Promise<void>;
}

async function openBackend(backend: 'pglite' | 'postgres'): Promise<OpenedStore> {
  if (backend === 'postgres') {
    await preparePostgres();
    const store = await openStore({ databaseUrl: config.databaseUrl, schema: config.schema });
    const { rows } = await store.pool.query<{ server_version: string }>('SHOW server_version');
    return {
      store,
      label: `PostgreSQL ${rows[0]?.server_version}`,
      cleanup: () => store.close(),
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'trainyard-webhooks-bench-'));
  const store = await openStore({ dataDir: join(dir, 'db') });
  const { rows } = await store.pool.query<{ server_version: string }>('SHOW server_version');
  return {
    store,
    label: `PGlite (PostgreSQL ${rows[0]?.server_version})`,
    async cleanup() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function preparePostgres(): Promise<void> {
  await freshBenchSchema(config.databaseUrl, config.schema);
}

interface RunResult {
  backend: string;
  label: string;
  sent: number;
  accepted: number;
  notAccepted: Map<number, number>;
  unprocessed: number;
  offeredRate: number;
  sendRate: number;
  deliveriesPerSecond: number;
  ack: ReturnType<typeof summarize>;
  processing: ReturnType<typeof summarize>;
  inboxWait: ReturnType<typeof summarize>;
  handling: ReturnType<typeof summarize>;
  database: { retried: number; givenUp: number; outboxDone: number; outboxPending: number; events: number };
  mix: Map<string, number>;
  handlingByEvent: Map<string, Summary>;
  warnings: Map<string, number>;
  workload: WorkloadCounts;
  loadBefore: number[];
  loadAfter: number[];
  seconds: number;
  /** CPU time of this process (Trainyard) during the measured deliveries (ms). */
  cpuMs: number;
  loopDelayMs: { p50: number; p99: number; max: number };
}

const log = (message: string) =>
  process.stdout.write(`[${new Date().toISOString().slice(11, 19)}] ${message}\n`);

async function runBackend(backend: 'pglite' | 'postgres', privateKey: string): Promise<RunResult> {
  const opened = await openBackend(backend);
  const { store } = opened;
  const github = startChild('github');
  const sender = startChild('sender');
  const trace = new ProcessingTrace();
  const logger = trace.createLogger();
  let app: Awaited<ReturnType<typeof createGithubApp>> | null = null;
  let server: Awaited<ReturnType<typeof buildServer>> | null = null;
  try {
    const ready = await github.next<GithubMessage>((m) => m.type === 'ready');
    if (ready.type !== 'ready') throw new Error('unexpected message');
    server = await buildServer({
      store,
      github: new GithubPermissions({ apiBaseUrl: ready.apiUrl }),
      logger,
    });
    app = await createGithubApp({
      store,
      server,
      credentials: { appId: ready.appId, privateKey, baseUrl: ready.apiUrl, webhookSecret: WEBHOOK_SECRET },
      logger,
      policy: requestPolicy,
    });
    const url = await server.listen({ host: '127.0.0.1', port: 0 });
    app.start();
    const webhookUrl = `${url}${webhookPath}`;
    const send = async (request: Omit<SendRequest, 'type' | 'webhookUrl' | 'controlUrl'>) => {
      const answer = sender.next<SenderMessage>(() => true);
      sender.send({
        type: 'send',
        webhookUrl,
        controlUrl: ready.controlUrl,
        ...request,
      } satisfies SendRequest);
      const message = await answer;
      if (message.type === 'failed') throw new Error(`the sender failed: ${message.error}`);
      return message.deliveries;
    };
    const drain = (deliveries: SentDelivery[], timeoutMs: number) =>
      trace.drain(
        deliveries.filter((d) => d.status === 202).map((d) => d.id),
        timeoutMs,
      );

    // 1. Set-up, not measured: the installation webhook; the app stores the repositories and
    // reads each one's configuration.
    const setup = await send({ limit: 1_000, rate: 0, concurrency: 1, generate: false });
    if ((await drain(setup, 60_000)) > 0) throw new Error('the installation delivery was not processed');
    const repositories = await store.db
      .selectFrom('repositories')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirst();
    await fillHistory(store);
    log(
      `${opened.label}: ${repositories?.n} repositories installed, ${config.history} processed deliveries ` +
        `in the inbox's history; sending ${config.warmup} deliveries to warm up, then ${config.deliveries}`,
    );
    if (config.warmup > 0) {
      const warm = await send({
        limit: config.warmup,
        rate: config.rate,
        concurrency: config.concurrency,
        generate: true,
      });
      const left = await drain(warm, config.drainMs);
      log(`${opened.label}: warmed up${left > 0 ? ` (${left} warm-up deliveries still waiting)` : ''}`);
    }

    // 2. The measured deliveries, then the backlog they leave.
    const loadBefore = loadavg();
    github.send({ type: 'measure' });
    const profiler = config.cpuProfile === undefined ? null : await startProfiler();
    const cpuBefore = process.cpuUsage();
    // How late the app's event loop runs its callbacks: a busy loop delays every answer and query.
    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    loopDelay.enable();
    const started = performance.now();
    const sent = await send({
      limit: config.deliveries,
      rate: config.rate,
      concurrency: config.concurrency,
      generate: true,
    });
    const unprocessed = await drain(sent, config.drainMs);
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    loopDelay.disable();
    const loadAfter = loadavg();
    if (profiler !== null) {
      const file = `${config.cpuProfile}-${backend}.cpuprofile`;
      writeFileSync(file, JSON.stringify(await profiler.stop()));
      log(`${opened.label}: CPU profile of the measured deliveries written to ${file}`);
    }

    const countsAnswer = github.next<GithubMessage>((m) => m.type === 'counts');
    github.send({ type: 'counts' });
    const counts = await countsAnswer;
    if (counts.type !== 'counts') throw new Error('unexpected message');
    const result = await summarizeRun({
      store,
      sent,
      trace,
      backend,
      label: opened.label,
      unprocessed,
      workload: counts.counts,
      loadBefore,
      loadAfter,
      seconds,
      cpuMs: (cpu.user + cpu.system) / 1000,
      loopDelayMs: {
        p50: loopDelay.percentile(50) / 1e6,
        p99: loopDelay.percentile(99) / 1e6,
        max: loopDelay.max / 1e6,
      },
    });
    return result;
  } finally {
    await sender.stop();
    await app?.stop();
    await server?.close();
    await github.stop();
    logger.flush();
    await opened.cleanup();
  }
}

/**
 * V8's sampling profiler in this process, through the inspector (node --cpu-prof would cover
 * the set-up and the warm-up too). Sampled every 500 µs.
 */
async function startProfiler(): Promise<{ stop: () => Promise<object> }> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 500 });
  await session.post('Profiler.start');
  return {
    stop: async () => {
      const { profile } = await session.post('Profiler.stop');
      session.disconnect();
      return profile;
    },
  };
}

/**
 * Processed deliveries of the past week, as a running instance keeps them (pruned after seven
 * days): what every query on the inbox table works beside.
 */
async function fillHistory(store: Store): Promise<void> {
  if (config.history === 0) return;
  await store.pool.query(
    `INSERT INTO webhook_deliveries
       (delivery_id, event, received_at, ordering_key, processed_at, attempts, available_at)
     SELECT 'history-' || i, 'check_run', at, 'repository:acme/service-' || lpad((i % $2)::text, 2, '0'),
            at + interval '40 milliseconds', 1, at
     FROM generate_series(1, $1::int) AS i,
          LATERAL (SELECT now() - interval '7 days' + i * (interval '6 days' / $1::int)) AS t(at)`,
    [config.history, config.repositories],
  );
  // Vacuumed, not only analyzed: the first reads of 200,000 fresh rows would set their hint bits
  // and visibility map, writing them all again, and autovacuum would then visit the table — a
  // setup cost of the benchmark, not of a running instance, that landed in the first measured
  // seconds. The checkpoint writes the fill out before the clock starts.
  await store.pool.query('VACUUM (ANALYZE) webhook_deliveries');
  if (store.backend === 'postgres') await store.pool.query('CHECKPOINT').catch(() => {});
}

async function summarizeRun(params: {
  store: Store;
  sent: SentDelivery[];
  trace: ProcessingTrace;
  backend: string;
  label: string;
  unprocessed: number;
  workload: WorkloadCounts;
  loadBefore: number[];
  loadAfter: number[];
  seconds: number;
  cpuMs: number;
  loopDelayMs: { p50: number; p99: number; max: number };
}): Promise<RunResult> {
  const { sent, trace, store } = params;
  const accepted = sent.filter((d) => d.status === 202);
  const notAccepted = new Map<number, number>();
  for (const d of sent) if (d.status !== 202) notAccepted.set(d.status, (notAccepted.get(d.status) ?? 0) + 1);
  const firstSent = Math.min(...sent.map((d) => d.sentAt));
  const lastSent = Math.max(...sent.map((d) => d.sentAt));
  // Still waiting after the drain: infinitely slow.
  const timed = accepted.map((d) => ({
    ...d,
    processedAt: trace.processed.get(d.id) ?? Number.POSITIVE_INFINITY,
    claimedAt: trace.claimed.get(d.id) ?? Number.POSITIVE_INFINITY,
  }));
  const done = timed.filter((d) => Number.isFinite(d.processedAt));
  const lastProcessed = Math.max(...done.map((d) => d.processedAt));
  const mix = new Map<string, number>();
  for (const d of sent) mix.set(d.event, (mix.get(d.event) ?? 0) + 1);
  // Handling (claimed → processed) by event: which deliveries are slow to apply.
  const byEvent = new Map<string, number[]>();
  for (const d of timed) {
    if (!Number.isFinite(d.claimedAt)) continue;
    const list = byEvent.get(d.event) ?? [];
    list.push(d.processedAt - d.claimedAt);
    byEvent.set(d.event, list);
  }
  const handlingByEvent = new Map([...byEvent].map(([event, times]) => [event, summarize(times)]));

  const ids = accepted.map((d) => d.id);
  const deliveries = await store.db
    .selectFrom('webhook_deliveries')
    .select((eb) => [
      eb.fn.countAll<string>().as('n'),
      eb.fn.count<string>('delivery_id').filterWhere('attempts', '>', 1).as('retried'),
      eb.fn.count<string>('delivery_id').filterWhere('last_error', 'is not', null).as('given_up'),
    ])
    .where('delivery_id', 'in', ids.length > 0 ? ids : [''])
    .executeTakeFirst();
  const outbox = await store.db
    .selectFrom('outbox')
    .select((eb) => [
      eb.fn.count<string>('id').filterWhere('done_at', 'is not', null).as('done'),
      eb.fn.count<string>('id').filterWhere('done_at', 'is', null).as('pending'),
    ])
    .executeTakeFirst();
  const events = await store.db
    .selectFrom('events')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirst();

  return {
    backend: params.backend,
    label: params.label,
    sent: sent.length,
    accepted: accepted.length,
    notAccepted,
    unprocessed: params.unprocessed,
    offeredRate: config.rate,
    sendRate: sent.length / ((lastSent - firstSent) / 1000),
    deliveriesPerSecond: done.length / ((lastProcessed - firstSent) / 1000),
    ack: summarize(sent.map((d) => d.ackAt - d.sentAt)),
    processing: summarize(timed.map((d) => d.processedAt - d.ackAt)),
    inboxWait: summarize(timed.map((d) => d.claimedAt - d.ackAt)),
    handling: summarize(
      timed.flatMap((d) => (Number.isFinite(d.claimedAt) ? [d.processedAt - d.claimedAt] : [])),
    ),
    database: {
      retried: Number(deliveries?.retried ?? 0),
      givenUp: Number(deliveries?.given_up ?? 0),
      outboxDone: Number(outbox?.done ?? 0),
      outboxPending: Number(outbox?.pending ?? 0),
      events: Number(events?.n ?? 0),
    },
    mix,
    handlingByEvent,
    warnings: trace.warnings,
    workload: params.workload,
    loadBefore: params.loadBefore,
    loadAfter: params.loadAfter,
    seconds: params.seconds,
    cpuMs: params.cpuMs,
    loopDelayMs: params.loopDelayMs,
  };
}

function report(results: RunResult[]): void {
  const f0 = (x: number) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en') : '–');
  const f1 = (x: number) =>
    Number.isFinite(x) ? x.toFixed(1) : x > 0 ? `> ${config.drainMs / 1000} s` : '–';
  const pair = (a: number, b: number) => `${f1(a)} / ${f1(b)}`;
  const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(' ');
  const rows: [string, (r: RunResult) => string][] = [
    ['deliveries sent (202 accepted)', (r) => `${f0(r.sent)} (${f0(r.accepted)})`],
    [
      'offered / achieved send rate (/s)',
      (r) => `${r.offeredRate === 0 ? 'max' : f0(r.offeredRate)} / ${f0(r.sendRate)}`,
    ],
    ['deliveries/s sustained (first send → last processed)', (r) => f0(r.deliveriesPerSecond)],
    ['acknowledgement p50 / p99 (ms)', (r) => pair(r.ack.p50, r.ack.p99)],
    ['processing p50 / p99 (ms, 202 → processed)', (r) => pair(r.processing.p50, r.processing.p99)],
    ['  waiting in the inbox p50 / p99 (ms, 202 → claimed)', (r) => pair(r.inboxWait.p50, r.inboxWait.p99)],
    ['  handling p50 / p99 (ms, claimed → processed)', (r) => pair(r.handling.p50, r.handling.p99)],
    ['processing max (ms)', (r) => f1(r.processing.max)],
    ['not processed after the drain', (r) => f0(r.unprocessed)],
    [
      'retried / given up (webhook_deliveries)',
      (r) => `${f0(r.database.retried)} / ${f0(r.database.givenUp)}`,
    ],
    ['events appended', (r) => f0(r.database.events)],
    [
      'outbox effects done / pending at the end',
      (r) => `${f0(r.database.outboxDone)} / ${f0(r.database.outboxPending)}`,
    ],
    [
      'workload: PRs opened / queue cmds / merged',
      (r) => `${f0(r.workload.opened)} / ${f0(r.workload.queueCommands)} / ${f0(r.workload.merged)}`,
    ],
    ['workload: CI runs', (r) => f0(r.workload.ciRuns)],
    ['load average before (1/5/15 min)', (r) => load(r.loadBefore)],
    ['load average after (1/5/15 min)', (r) => load(r.loadAfter)],
    ['run time (s, sending + drain)', (r) => f1(r.seconds)],
    [
      "Trainyard's event-loop delay p50 / p99 / max (ms)",
      (r) => `${pair(r.loopDelayMs.p50, r.loopDelayMs.p99)} / ${f1(r.loopDelayMs.max)}`,
    ],
    [
      'CPU busy: Trainyard / GitHub stub (% of one core)',
      (r) => `${f0(r.cpuMs / r.seconds / 10)} / ${f0(r.workload.cpuMs / r.seconds / 10)}`,
    ],
    ["Trainyard's CPU per delivery sent (ms)", (r) => (r.cpuMs / r.sent).toFixed(2)],
  ];
  process.stdout.write(
    `\n${table(
      ['', ...results.map((r) => r.label)],
      rows.map(([name, cell]) => [name, ...results.map(cell)]),
    )}\n`,
  );

  const events = [...new Set(results.flatMap((r) => [...r.mix.keys()]))].sort(
    (a, b) => (results[0]?.mix.get(b) ?? 0) - (results[0]?.mix.get(a) ?? 0),
  );
  process.stdout.write(
    `\nDelivery mix (${results.map((r) => r.backend).join(' / ')}): ${events
      .map((e) => `${e} ${results.map((r) => r.mix.get(e) ?? 0).join('/')}`)
      .join(', ')}\n`,
  );
  for (const r of results) {
    process.stdout.write(
      `Handling p50/p99 ms by event (${r.backend}): ${[...r.handlingByEvent]
        .sort((a, b) => b[1].p99 - a[1].p99)
        .map(([e, h]) => `${e} ${h.p50.toFixed(0)}/${h.p99.toFixed(0)}`)
        .join(', ')}\n`,
    );
    if (r.notAccepted.size > 0)
      process.stdout.write(`${r.backend}: answers other than 202: ${JSON.stringify([...r.notAccepted])}\n`);
    if (r.warnings.size > 0)
      process.stdout.write(`${r.backend}: warnings and errors logged: ${JSON.stringify([...r.warnings])}\n`);
  }

  const postgres = results.find((r) => r.backend === 'postgres');
  if (postgres === undefined) {
    process.stdout.write('\nTarget (PostgreSQL): not run\n');
    return;
  }
  // A run whose queue never merged measured only half the product (no merges, base moves, rebuilds).
  const pass =
    postgres.workload.merged > 0 &&
    postgres.unprocessed === 0 &&
    postgres.deliveriesPerSecond >= target.deliveriesPerSecond &&
    postgres.processing.p99 < target.p99ProcessingMs;
  process.stdout.write(
    `\nTarget on PostgreSQL: ≥ ${target.deliveriesPerSecond} deliveries/s sustained with p99 processing < ${target.p99ProcessingMs} ms — ` +
      `measured ${f0(postgres.deliveriesPerSecond)}/s, p99 ${f1(postgres.processing.p99)} ms: ${pass ? 'PASS' : 'FAIL'}\n`,
  );
}

async function main(): Promise<void> {
  log(
    `webhook ingestion: ${config.deliveries} deliveries, ${config.repositories} repositories, ` +
      `${config.rate === 0 ? 'unpaced' : `${config.rate}/s`}, ≤ ${config.concurrency} in flight; ` +
      `${cpus().length} CPUs, load ${loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}`,
  );
  // The sandbox checks a JWT's shape, not its signature; any RSA key will do.
  const { privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const results: RunResult[] = [];
  for (const backend of config.backends) results.push(await runBackendInChild(backend, privateKey));
  report(results);
}

/** A run's result as it crosses processes: its maps as entry lists. */
type SentResult = {
  [K in keyof RunResult]: RunResult[K] extends Map<infer A, infer B> ? [A, B][] : RunResult[K];
};

const mapFields = ['notAccepted', 'mix', 'handlingByEvent', 'warnings'] as const;

/**
 * Each back end in a Trainyard process of its own, as a deployment runs one: what a run leaves
 * behind (PGlite's heap, a grown old generation) is not charged to the next, whose event loop it
 * could otherwise stall.
 */
async function runBackendInChild(backend: 'pglite' | 'postgres', privateKey: string): Promise<RunResult> {
  const app = startChild('app', [backend]);
  const answer = app.next<{ type: 'result'; result: SentResult }>((m) => m.type === 'result');
  app.send({ type: 'run', privateKey });
  const { result } = await answer;
  await app.stop();
  const revived = { ...result } as unknown as Record<string, unknown>;
  for (const field of mapFields) revived[field] = new Map(result[field] as [unknown, unknown][]);
  return revived as unknown as RunResult;
}

async function runAppProcess(backend: 'pglite' | 'postgres'): Promise<void> {
  const { privateKey } = await new Promise<{ privateKey: string }>((resolve) =>
    process.once('message', (m) => resolve(m as { privateKey: string })),
  );
  const result = await runBackend(backend, privateKey);
  const sent = { ...result } as unknown as Record<string, unknown>;
  for (const field of mapFields) sent[field] = [...result[field]];
  process.send?.({ type: 'result', result: sent });
  // The parent's stop, or its exit.
  await new Promise<void>((resolve) => {
    process.on('message', (m) => (m as { type?: string }).type === 'stop' && resolve());
    process.once('disconnect', () => resolve());
  });
  process.exit(0);
}

const role = process.argv[2];
if (role === 'github') await runGithubProcess();
else if (role === 'sender') await runSenderProcess();
else if (role === 'app') await runAppProcess(process.argv[3] as 'pglite' | 'postgres');
else await main();
