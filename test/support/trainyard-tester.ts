import { createHmac, generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { GithubPermissions } from '../../app/api/auth/github-permissions.ts';
import { buildServer } from '../../app/api/server.ts';
import { InstallationOctokits, testRequestPolicy } from '../../app/github/client/octokit.ts';
import { createGithubApp, type GithubApp } from '../../app/github/github-app.ts';
import { webhookPath } from '../../app/github/inbox/webhook-endpoint.ts';
import { createEffectRunner } from '../../app/github/outbox/effect-runner.ts';
import { appIdentityOf } from '../../app/github/outbox/effects/ownership.ts';
import type { RepositoryLookup } from '../../app/github/translation/repository-lookup.ts';
import { SandboxCi, type SandboxCiOptions } from '../../app/sandbox/ci.ts';
import { VirtualClock } from '../../app/sandbox/clock.ts';
import type { CheckRun, IssueComment, PullRequest, Repository } from '../../app/sandbox/entities.ts';
import { SandboxGithub } from '../../app/sandbox/model.ts';
import { type SandboxServer, startSandboxServer } from '../../app/sandbox/server.ts';
import type { CiModel } from '../../app/sim/ci-model.ts';
import { createApiKey } from '../../app/store/api-keys.ts';
import type { Store } from '../../app/store/database.ts';
import { claimOutbox } from '../../app/store/outbox.ts';
import { createReopenableStore, openTestStore, type ReopenableStore } from './test-store.ts';

export const WEBHOOK_SECRET = 'tester-webhook-secret';
const MINUTE = 60_000;

let rsaKey: string | undefined;
/** The RSA key the tester's app signs its JWTs with (made once per process). */
export function appPrivateKey(): string {
  rsaKey ??= generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  }).privateKey;
  return rsaKey;
}

/** One running Trainyard: its store, HTTP server (v1 API and webhook endpoint) and GitHub App. */
export interface TrainyardInstance {
  store: Store;
  app: GithubApp;
  server: FastifyInstance;
  /** The server's base URL. */
  url: string;
}

/** A stored event, as the events table holds it. */
export interface EventRow {
  id: string;
  type: string;
  pull_request: number | null;
  trigger: string;
  metadata: Record<string, unknown>;
}

export interface Tester {
  clock: VirtualClock;
  github: SandboxGithub;
  sandbox: SandboxServer;
  ci: SandboxCi;
  /** The first instance's store, app, server and URL (the only ones unless `instances: 2`). */
  store: Store;
  app: GithubApp;
  server: FastifyInstance;
  /** The Trainyard server's base URL (v1 API and webhook endpoint). */
  url: string;
  /** Every running instance; webhooks go to each in turn. */
  instances: TrainyardInstance[];
  /** Per instance (by index): webhooks it received, deliveries it processed, effects it ran. */
  work: { webhooks: number; deliveries: number; effects: number }[];
  /** An admin application key for the v1 API. */
  adminKey: string;
  /** Every pull request the sandbox merged, in order (a merge done twice shows twice). */
  merges: { repo: string; number: number }[];
  /** Deliver every pending webhook, process it, run the outbox and due timers, until quiet. */
  settle(): Promise<void>;
  /** Move the virtual clock (CI finishes, wake-ups come due) in steps, settling after each. */
  advance(ms: number, stepMs?: number): Promise<void>;
  /** GET a v1 API path with the admin key; the parsed body. */
  api<T = unknown>(
    path: string,
    init?: { method?: string; body?: unknown },
  ): Promise<{ status: number; body: T }>;
  /** A comment on a pull request, by `login` (alice, the write collaborator, by default). */
  comment(repo: Repository, number: number, body: string, login?: string): void;
  /** The "Trainyard" check run on a pull request's current head, or undefined. */
  trainyardCheck(repo: Repository, number: number): CheckRun | undefined;
  /** What Trainyard commented on a pull request, oldest first. */
  appComments(repo: Repository, number: number): IssueComment[];
  /** Trainyard's draft pull requests (batches under test), open ones unless `all`. */
  drafts(repo: Repository, all?: boolean): PullRequest[];
  /** The repository's stored events, oldest first. */
  events(repo: Repository): Promise<EventRow[]>;
  /** `type #n` per event, oldest first (`type` alone for events of no pull request). */
  eventLines(repo: Repository): Promise<string[]>;
  /** Work left behind: outbox rows not done, deliveries not processed, timers already due. */
  leftovers(): Promise<{ outbox: number; deliveries: number; dueTimers: number }>;
  /**
   * A crash and a restart (needs `persistent: true`): the app, server and store of every
   * instance go away without running anything more, then new ones start on the same database.
   */
  restart(): Promise<void>;
  /**
   * Half of the outbox worker's job, as a process that dies in the middle does it: claims the
   * due rows, carries their effects out on GitHub, and records nothing (the rows stay leased).
   * Returns the effect types run. Follow it with restart().
   */
  crashDuringEffects(): Promise<string[]>;
  close(): Promise<void>;
}

export interface TrainyardOptions {
  ci?: Partial<CiModel>;
  ciAuto?: boolean;
  /** Which pushed branches get a CI run (default: every branch). */
  ciRunsOn?: SandboxCiOptions['runsOn'];
  /** A database that outlives the app (PGlite on disk), so restart() can reopen it. */
  persistent?: boolean;
  /**
   * Instances on one database (PostgreSQL only: PGlite is one process); the sandbox's webhooks
   * go to each in turn, and settle() runs them all at once.
   */
  instances?: number;
  /** The first instance's repository lookup (tests that look behind it). */
  repositories?: RepositoryLookup;
}

/**
 * The end-to-end tester: the real app (HTTP server, webhook inbox, Probot handlers, engine,
 * outbox, scheduler) on PGlite or PostgreSQL, talking over loopback HTTP to the sandbox code
 * host, which delivers signed webhooks to the real endpoint and runs simulated CI on a virtual
 * clock. Nothing of ours is stubbed.
 */
export async function startTrainyard(options: TrainyardOptions = {}): Promise<Tester> {
  const count = options.instances ?? 1;
  const clock = new VirtualClock();
  const github = new SandboxGithub({ clock });
  const sandbox = await startSandboxServer({ github, retryDelaysMs: [5, 10, 20] });
  const ci = new SandboxCi({
    github,
    clock,
    model: { seed: 11, medianMs: 10 * MINUTE, spread: 0, flakeRate: 0, ...options.ci },
    ...(options.ciAuto === false ? { auto: false } : {}),
    ...(options.ciRunsOn === undefined ? {} : { runsOn: options.ciRunsOn }),
  });
  const merges: { repo: string; number: number }[] = [];
  github.on((event) => {
    if (event.type === 'pull_request' && event.action === 'closed' && event.pull.merged)
      merges.push({ repo: event.repo.name, number: event.pull.number });
  });
  const shared: ReopenableStore | null =
    options.persistent || count > 1 ? await createReopenableStore() : null;
  const openStore = () => (shared === null ? openTestStore() : shared.open());
  const logger = pino({ level: process.env.TESTER_LOG_LEVEL ?? 'silent' });
  const now = () => new Date(clock.now());
  const work = Array.from({ length: count }, () => ({ webhooks: 0, deliveries: 0, effects: 0 }));
  /** Several instances: each logs at debug level into its `work` counts (and on, if asked). */
  const loggerOf = (index: number) => {
    if (count === 1) return logger;
    return pino(
      { level: 'debug' },
      {
        write(line: string) {
          if (line.includes('"webhooks: delivery processed"')) work[index]!.deliveries++;
          if (line.includes('"outbox: effect done"')) work[index]!.effects++;
          if (process.env.TESTER_LOG_LEVEL) process.stdout.write(`[instance ${index}] ${line}`);
        },
      },
    );
  };

  const credentials = {
    appId: github.app.id,
    privateKey: appPrivateKey(),
    baseUrl: sandbox.url,
    webhookSecret: WEBHOOK_SECRET,
  };
  const effectOptions = { headPolling: { delaysMs: [0, 0, 0], sleep: async () => {} } };
  /**
   * One instance: its loops are run by settle(), one after the other (deterministic). Several:
   * their polling loops run in the background, as in production (woken by new work, polling
   * every 20 ms), so steps of one repository from different instances and loops contend.
   */
  const boot = async (store: Store, index: number): Promise<TrainyardInstance> => {
    const server = await buildServer({
      store,
      github: new GithubPermissions({ apiBaseUrl: sandbox.url }),
      now,
    });
    const app = await createGithubApp({
      store,
      server,
      credentials,
      logger: loggerOf(index),
      policy: testRequestPolicy,
      effectOptions,
      now,
      ...(count > 1 ? { pollMs: 20 } : {}),
      ...(index === 0 && options.repositories ? { repositories: options.repositories } : {}),
    });
    const url = await server.listen({ host: '127.0.0.1', port: 0 });
    if (count > 1) app.start();
    return { store, app, server, url };
  };

  const instances: TrainyardInstance[] = [];
  for (let i = 0; i < count; i++) instances.push(await boot(await openStore(), i));
  const splitter =
    count > 1
      ? await startWebhookSplitter(
          () => instances.map((i) => i.url),
          (index) => work[index]!.webhooks++,
        )
      : null;
  const target = () =>
    splitter === null ? `${instances[0]!.url}${webhookPath}` : `${splitter.url}${webhookPath}`;
  sandbox.webhooks.configure({ url: target(), secret: WEBHOOK_SECRET });
  const { secret: adminKey } = await createApiKey(instances[0]!.store.db, {
    name: 'tester',
    owner: 'acme',
    repository: null,
    role: 'admin',
    now: now(),
  });

  /** Nothing left that the app could do now: every delivery, due effect and due wake-up done. */
  const isQuiet = async (): Promise<boolean> => {
    const db = instances[0]!.store.db;
    const at = now();
    const [deliveries, effects, timers] = await Promise.all([
      db
        .selectFrom('webhook_deliveries')
        .select('delivery_id')
        .where('processed_at', 'is', null)
        .where('available_at', '<=', at)
        .limit(1)
        .execute(),
      db
        .selectFrom('outbox')
        .select('id')
        .where('done_at', 'is', null)
        .where('available_at', '<=', at)
        .limit(1)
        .execute(),
      db.selectFrom('timers').select('key').where('due_at', '<=', at).limit(1).execute(),
    ]);
    return deliveries.length + effects.length + timers.length === 0;
  };
  const settle = async () => {
    if (count === 1) {
      for (let round = 0; round < 500; round++) {
        await sandbox.webhooks.flush();
        const done = await instances[0]!.app.runUntilIdle();
        if (done === 0 && sandbox.webhooks.pendingCount() === 0) return;
      }
      throw new Error('the system did not settle in 500 rounds');
    }
    // Quiet twice in a row, 30 ms apart: a loop that was between two rows has shown its work.
    let quiet = 0;
    for (let round = 0; round < 3000; round++) {
      await sandbox.webhooks.flush();
      for (const { app } of instances) {
        app.processor.wake();
        app.worker.wake();
        app.scheduler.wake();
      }
      // The sandbox first: a webhook an effect sends is queued there before the effect's row is done.
      if (sandbox.webhooks.pendingCount() === 0 && (await isQuiet())) quiet++;
      else quiet = 0;
      if (quiet === 2) return;
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
    throw new Error('the instances did not settle in 3000 rounds');
  };

  const repositoryId = async (repo: Repository) => {
    const row = await instances[0]!.store.db
      .selectFrom('repositories')
      .select('id')
      .where('owner', '=', repo.owner.login)
      .where('name', '=', repo.name)
      .executeTakeFirst();
    if (!row) throw new Error(`Trainyard does not know ${repo.owner.login}/${repo.name}`);
    return row.id;
  };
  const events = async (repo: Repository): Promise<EventRow[]> => {
    const rows = await instances[0]!.store.db
      .selectFrom('events')
      .select(['id', 'type', 'pull_request', 'trigger', 'metadata'])
      .where('repository_id', '=', await repositoryId(repo))
      .orderBy('id')
      .execute();
    return rows;
  };

  const tester: Tester = {
    clock,
    github,
    sandbox,
    ci,
    get store() {
      return instances[0]!.store;
    },
    get app() {
      return instances[0]!.app;
    },
    get server() {
      return instances[0]!.server;
    },
    get url() {
      return instances[0]!.url;
    },
    instances,
    work,
    adminKey,
    merges,
    settle,
    async advance(ms, stepMs = 30_000) {
      const end = clock.now() + ms;
      while (clock.now() < end) {
        clock.advance(Math.min(stepMs, end - clock.now()));
        await settle();
      }
    },
    async api(path, init = {}) {
      const response = await fetch(`${instances[0]!.url}${path}`, {
        method: init.method ?? 'GET',
        headers: {
          authorization: `Bearer ${adminKey}`,
          ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      });
      const text = await response.text();
      return { status: response.status, body: (text ? JSON.parse(text) : null) as never };
    },
    comment(repo, number, body, login = 'alice') {
      github.issues.comment(repo, { number, body, user: github.account(login) });
    },
    trainyardCheck(repo, number) {
      const head = github.pulls.get(repo, number).headSha;
      return (repo.checkRunsBySha.get(head) ?? [])
        .map((id) => repo.checkRuns.get(id)!)
        .find((run) => run.app.id === github.app.id && run.name === 'Trainyard');
    },
    appComments(repo, number) {
      return github.issues.commentsOf(repo, number).filter((c) => c.user.id === github.app.bot.id);
    },
    drafts(repo, all = false) {
      return [...repo.pulls.values()].filter(
        (p) => p.user.id === github.app.bot.id && (all || p.state === 'open'),
      );
    },
    events,
    async eventLines(repo) {
      return (await events(repo)).map(
        (e) => `${e.type}${e.pull_request === null ? '' : ` #${e.pull_request}`}`,
      );
    },
    async leftovers() {
      const db = instances[0]!.store.db;
      const count = async (query: Promise<{ n: string | number | bigint } | undefined>) =>
        Number((await query)?.n ?? 0);
      return {
        outbox: await count(
          db
            .selectFrom('outbox')
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .where('done_at', 'is', null)
            .executeTakeFirst(),
        ),
        deliveries: await count(
          db
            .selectFrom('webhook_deliveries')
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .where('processed_at', 'is', null)
            .executeTakeFirst(),
        ),
        dueTimers: await count(
          db
            .selectFrom('timers')
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .where('due_at', '<=', now())
            .executeTakeFirst(),
        ),
      };
    },
    async restart() {
      if (shared === null) throw new Error('restart() needs startTrainyard({ persistent: true })');
      for (const instance of instances.splice(0)) {
        await instance.app.stop();
        await instance.server.close();
        await instance.store.close();
      }
      for (let i = 0; i < count; i++) instances.push(await boot(await openStore(), i));
      sandbox.webhooks.configure({ url: target(), secret: WEBHOOK_SECRET });
    },
    async crashDuringEffects() {
      const { store } = instances[0]!;
      const execute = createEffectRunner({
        store,
        octokits: new InstallationOctokits(credentials, { policy: testRequestPolicy }),
        logger,
        identity: appIdentityOf(github.app.slug),
        options: effectOptions,
      });
      const rows = await claimOutbox(store.db, { limit: 100, leaseMs: 120_000, now: now() });
      for (const row of rows) await execute(row.repositoryId, row.effect);
      return rows.map((row) => row.effect.type);
    },
    async close() {
      ci.close();
      for (const instance of instances) {
        await instance.app.stop();
        await instance.server.close();
      }
      await splitter?.close();
      await sandbox.close();
      for (const instance of instances) await instance.store.close();
      await shared?.dispose();
    },
  };
  return tester;
}

/**
 * A loopback HTTP server that forwards each request to the next of `targets()` in turn (real
 * HTTP both ways, headers and body as they came): GitHub's deliveries split between instances.
 */
async function startWebhookSplitter(
  targets: () => string[],
  forwarded: (index: number) => void,
): Promise<{ url: string; close(): Promise<void> }> {
  let next = 0;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const urls = targets();
      const index = next++ % urls.length;
      const target = urls[index]!;
      forwarded(index);
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers))
        if (typeof value === 'string' && name !== 'host' && name !== 'content-length') headers[name] = value;
      fetch(`${target}${request.url ?? '/'}`, {
        method: request.method ?? 'POST',
        headers,
        body: Buffer.concat(chunks),
      })
        .then(async (answer) => {
          response.writeHead(answer.status, {
            'content-type': answer.headers.get('content-type') ?? 'text/plain',
          });
          response.end(Buffer.from(await answer.arrayBuffer()));
        })
        .catch((error: Error) => {
          response.writeHead(502);
          response.end(error.message);
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  };
}

/**
 * POSTs one webhook delivery to a Trainyard server, as GitHub does: signed with `secret` (the
 * tester's by default) unless `signature` is given; `omit` leaves headers out. The answer's
 * status and parsed body.
 */
export async function postWebhook(
  baseUrl: string,
  delivery: {
    id: string;
    event: string;
    body: string;
    secret?: string;
    signature?: string;
    omit?: ('x-github-delivery' | 'x-github-event' | 'x-hub-signature-256')[];
  },
): Promise<{ status: number; body: { delivery?: string; status?: string; detail?: string } | null }> {
  const signature =
    delivery.signature ??
    `sha256=${createHmac('sha256', delivery.secret ?? WEBHOOK_SECRET)
      .update(delivery.body)
      .digest('hex')}`;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'GitHub-Hookshot/test',
    'x-github-delivery': delivery.id,
    'x-github-event': delivery.event,
    'x-hub-signature-256': signature,
  };
  for (const name of delivery.omit ?? []) delete headers[name];
  const response = await fetch(`${baseUrl}${webhookPath}`, { method: 'POST', headers, body: delivery.body });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

/** A repository `acme/<name>` with the app installed and a write collaborator `alice`. */
export function installRepository(t: Tester, name: string, files: Record<string, string> = {}): Repository {
  const repo = t.github.createRepository({ owner: 'acme', name, files });
  t.github.grant(repo, 'alice', 'write');
  t.github.grant(repo, 'mallory', 'read');
  t.github.install([repo]);
  return repo;
}
