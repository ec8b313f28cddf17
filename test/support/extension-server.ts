/*
 * The real Trainyard server for the VS Code extension's tests (extension/test/suite): PGlite in
 * memory, the v1 API on loopback HTTP, and a queue with batches made by the real engine.
 *
 *   npx tsx test/support/extension-server.ts
 *
 * Prints one JSON line on stdout once listening ({ url, adminKey, readKey, repository, github, … })
 * and runs until SIGTERM/SIGINT. Nothing here answers a request: every response is the server's,
 * and GitHub's answers come from the sandbox code host.
 *
 * Seeding, all through the server's own code paths:
 *  - repository acme/app, an admin key and a read-only key (app/store/api-keys.ts, as `keys create`);
 *  - a queue made by the engine (test/queue/support/scenario.ts drives app/queue/step.ts): a
 *    bisecting batch with sub-batches, and waiting pull requests;
 *  - the events the engine emitted on the way, written to JSONL and imported by the
 *    `events import` code path (app/cli/import-events.ts);
 *  - the engine state, saved with saveQueueState (app/store/queue-state.ts) for the status route;
 *  - GitHub: the sandbox code host (app/sandbox) on loopback with a private acme/app, a reader
 *    (pull), a writer (push) and an outsider (no access), each with a user token minted by the
 *    sandbox; the API's GithubPermissions asks it, as it asks GitHub, what a token may do;
 *  - acme/merges: #1 and #2 (alice's), each alone in a batch under test, seeded the same way. A
 *    control endpoint on loopback (`POST <control>/merges/advance`, not part of the API) lets time
 *    pass there: the engine steps on through the scenario's shell (CI passes #1, fails #2 with a
 *    link to its run; merges are answered), and the new state and events are stored as at seeding.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GithubPermissions } from '../../app/api/auth/github-permissions.ts';
import { buildServer } from '../../app/api/server.ts';
import { importEvents } from '../../app/cli/import-events.ts';
import { computeMergeQueueStatus } from '../../app/queue/status-projection.ts';
import { VirtualClock } from '../../app/sandbox/clock.ts';
import { SandboxGithub } from '../../app/sandbox/model.ts';
import { startSandboxServer } from '../../app/sandbox/server.ts';
import { createApiKey } from '../../app/store/api-keys.ts';
import { openStore, type Store } from '../../app/store/database.ts';
import { saveQueueState } from '../../app/store/queue-state.ts';
import { ensureRepository } from '../../app/store/repositories.ts';
import { mergeQueueStatusSchema } from '../../shared/schemas/merge-queue.schema.ts';
import { failIfContains, Scenario } from '../queue/support/scenario.ts';

const OWNER = 'acme';
const NAME = 'app';

/** batch-1 (PRs 1–3) bisecting because PR 2 fails, with two sub-batches; PRs 4–11 waiting. */
function buildQueue(): Scenario {
  const s = new Scenario({
    queue_rules: [{ name: 'default', batch_size: 3 }],
    merge_queue: { max_parallel_checks: 4 },
  });
  s.queue(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
  s.runUntilIdle({ ci: failIfContains(2), until: '11m' });
  return s;
}

/** The link of the failing CI run of #2 in acme/merges (the removal notification's button). */
const MERGES_FAILING_RUN = (sha: string) => `https://ci.example.test/acme/merges/runs/${sha}`;

/** acme/merges: #1 and #2, one batch each, tested side by side; CI will pass #1 and fail #2. */
function buildMerges(): Scenario {
  const s = new Scenario({
    queue_rules: [{ name: 'default', batch_size: 1, batch_max_wait_time: '0s' }],
    merge_queue: { max_parallel_checks: 2 },
  });
  s.queue(1, 2);
  // The CI results are decided when the test branches are made; they arrive 10 minutes later.
  s.runUntilIdle({ ci: failIfContains(2), ciUrl: MERGES_FAILING_RUN, until: '1m' });
  return s;
}

/** Stores a scenario's state and its events from `from` on, as the seeding does. */
async function storeScenario(
  store: Store,
  target: { id: string; owner: string; name: string },
  s: Scenario,
  from: number,
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'trainyard-ext-'));
  const file = join(dir, 'events.jsonl');
  writeFileSync(
    file,
    s
      .events()
      .slice(from)
      .map((e) => JSON.stringify(e))
      .join('\n'),
  );
  const report = await importEvents(store, { file, owner: target.owner, name: target.name, now: new Date() });
  rmSync(dir, { recursive: true, force: true });
  if (report.badLines > 0) throw new Error(`event import failed: ${JSON.stringify(report.problems)}`);
  await saveQueueState(store.db, target.id, s.state, new Date());
}

/** The sandbox GitHub: acme/app (private) and a user token per kind of access. */
async function startGithub() {
  const github = new SandboxGithub({ clock: new VirtualClock() });
  const server = await startSandboxServer({ github });
  const repo = github.createRepository({ owner: OWNER, name: NAME, private: true });
  const user = (login: string) => {
    const account = github.account(login);
    return { login, id: account.id, token: github.access.issueUserToken(account) };
  };
  github.grant(repo, 'ext-reader', 'read');
  github.grant(repo, 'ext-writer', 'write');
  return {
    server,
    users: { reader: user('ext-reader'), writer: user('ext-writer'), outsider: user('ext-outsider') },
  };
}

async function main() {
  const store = await openStore({ dataDir: 'memory://' });
  const repository = await ensureRepository(store.db, { owner: OWNER, name: NAME });
  const now = new Date();
  const key = async (name: string, role: 'admin' | 'read') =>
    (await createApiKey(store.db, { name, owner: OWNER, repository: null, role, now })).secret;
  const adminKey = await key('extension-tests', 'admin');
  const readKey = await key('extension-tests-read', 'read');

  const s = buildQueue();
  const dir = mkdtempSync(join(tmpdir(), 'trainyard-ext-'));
  const file = join(dir, 'events.jsonl');
  const events = s.events();
  writeFileSync(file, events.map((e) => JSON.stringify(e)).join('\n'));
  const report = await importEvents(store, { file, owner: OWNER, name: NAME, now });
  rmSync(dir, { recursive: true, force: true });
  if (report.badLines > 0) throw new Error(`event import failed: ${JSON.stringify(report.problems)}`);
  // The status route should serve this state once it reads the store; a failure to save it is
  // reported (not hidden) so the tests can say why the tree has no batches.
  let queueStateSaveError: string | null = null;
  try {
    await saveQueueState(store.db, repository.id, s.state, now);
  } catch (error) {
    queueStateSaveError = (error as Error).message;
  }

  const mergesRepo = await ensureRepository(store.db, { owner: OWNER, name: 'merges' });
  const merges = buildMerges();
  const mergesTarget = { id: mergesRepo.id, owner: OWNER, name: 'merges' };
  await storeScenario(store, mergesTarget, merges, 0);
  const control = createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== '/merges/advance') {
      res.writeHead(404).end();
      return;
    }
    const stored = merges.events().length;
    merges.runUntilIdle({ ci: failIfContains(2), ciUrl: MERGES_FAILING_RUN });
    storeScenario(store, mergesTarget, merges, stored).then(
      () => res.writeHead(204).end(),
      (error: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(error.message),
    );
  });
  await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve));
  const controlUrl = `http://127.0.0.1:${(control.address() as { port: number }).port}`;

  const github = await startGithub();
  const app = await buildServer({ store, github: new GithubPermissions({ apiBaseUrl: github.server.url }) });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });

  // What the engine's projection says the status should show, for the tests to compare with.
  const expected = computeMergeQueueStatus(s.state, { base: 'main', now: new Date(s.now) });
  const served = (await fetch(`${url}/v1/repos/${OWNER}/${NAME}/merge-queue/status`, {
    headers: { authorization: `Bearer ${adminKey}` },
  }).then((r) => r.json())) as { batches: unknown[] };

  process.stdout.write(
    `${JSON.stringify({
      url,
      adminKey,
      readKey,
      repository: `${OWNER}/${NAME}`,
      // Test control of acme/merges (lets time pass there); not the API.
      control: controlUrl,
      // GitHub user tokens minted by the sandbox (pull ⇒ read, push ⇒ write, neither ⇒ none).
      github: { apiUrl: github.server.url, ...github.users },
      eventCount: report.imported,
      servesQueueState: served.batches.length > 0,
      queueStateSaveError,
      // The engine's status projection itself, validated by the shared schema: the tests render it
      // to check the tree's batch rows while the status route does not serve it yet.
      projection: mergeQueueStatusSchema.parse({ ...expected, pause: null }),
      expected: {
        batches: expected.batches.map((b) => ({
          name: b.name,
          status: b.status.code,
          pullRequests: b.pull_requests.map((p) => p.number),
          subBatches: (b.sub_batches ?? []).map((sub) => sub.name),
        })),
        waiting: expected.waiting_pull_requests.map((p) => p.number),
      },
    })}\n`,
  );

  const stop = async () => {
    control.close();
    await app.close();
    await github.server.close();
    await store.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
}

await main();
