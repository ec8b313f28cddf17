import { afterEach, describe, expect, it } from 'vitest';
import type { Repository } from '../../../app/sandbox/entities.ts';
import { backend } from '../../support/test-store.ts';
import {
  type EventRow,
  installRepository,
  startTrainyard,
  type Tester,
} from '../../support/trainyard-tester.ts';

const MINUTE = 60_000;
const REPOSITORIES = ['widgets', 'gadgets'];
const PULL_REQUESTS = 8;
let t: Tester | undefined;

afterEach(async () => {
  await t?.close();
  t = undefined;
});

/**
 * What the event log alone must show when every step applied alone, in order: sessions enter
 * and leave once, checks start and end once each, a step's pairs stay together (a command and
 * the entry it caused, a merge and its leave), and each queue size is the count of sessions the
 * log has opened and not closed at that point. Steps of two instances interleaved or applied on
 * stale state break at least one of these.
 */
function checkLog(events: EventRow[]): string[] {
  const problems: string[] = [];
  const open = new Map<number, unknown>();
  const left = new Set<unknown>();
  const running = new Set<string>();
  events.forEach((event, i) => {
    const n = event.pull_request;
    const next = events[i + 1];
    const m = event.metadata;
    switch (event.type) {
      case 'command.queue':
        if (m.session_id !== null && (next?.type !== 'action.queue.enter' || next.pull_request !== n))
          problems.push(`${event.id}: command.queue #${n} not followed by its enter`);
        break;
      case 'action.queue.enter':
        if (open.has(n!)) problems.push(`${event.id}: #${n} entered twice`);
        open.set(n!, m.session_id);
        break;
      case 'action.queue.merged':
        if (next?.type !== 'action.queue.leave' || next.pull_request !== n)
          problems.push(`${event.id}: merged #${n} not followed by its leave`);
        break;
      case 'action.queue.leave':
        if (left.has(m.session_id)) problems.push(`${event.id}: session of #${n} left twice`);
        if (open.get(n!) !== m.session_id) problems.push(`${event.id}: #${n} left a session it was not in`);
        for (const key of running)
          if (key.startsWith(`${String(m.session_id)}/`))
            problems.push(`${event.id}: #${n} left with checks running`);
        left.add(m.session_id);
        open.delete(n!);
        break;
      case 'action.queue.checks_start':
      case 'action.queue.checks_end': {
        const key = `${String(m.session_id)}/${String(m.train_car_id)}`;
        if (event.type === 'action.queue.checks_start') {
          if (running.has(key)) problems.push(`${event.id}: checks ${key} started twice`);
          running.add(key);
        } else {
          if (!running.has(key)) problems.push(`${event.id}: checks ${key} ended without running`);
          running.delete(key);
        }
        break;
      }
      case 'action.queue.change':
        if (m.size !== open.size)
          problems.push(`${event.id}: queue size ${m.size}, but ${open.size} sessions are open`);
        break;
    }
  });
  if (open.size > 0) problems.push(`sessions still open: ${[...open.keys()]}`);
  return problems;
}

describe('two app instances on one database', () => {
  it.skipIf(backend === 'pglite')(
    'receive the deliveries of the same repositories in turn: no interleaving within a repository, every queue ends right (PostgreSQL only: PGlite is one process)',
    async () => {
      t = await startTrainyard({ instances: 2 });
      const tester = t;
      const repos: Repository[] = REPOSITORIES.map((name) =>
        installRepository(tester, name, {
          'README.md': `${name}\n`,
          '.github/trainyard.yml': 'queue_rules:\n  - name: default\n    batch_size: 2\n',
        }),
      );
      await t.settle();
      for (const repo of repos) {
        for (let n = 1; n <= PULL_REQUESTS; n++)
          t.github.openPullRequest(repo, {
            author: 'alice',
            title: `Change ${n}`,
            files: { [`file-${n}.txt`]: `${repo.name} ${n}\n` },
          });
      }
      // One bad PR in the first repository: its batch fails and is bisected.
      t.ci.markBad(repos[0]!, 3);
      await t.settle();
      for (let n = 1; n <= PULL_REQUESTS; n++)
        for (const repo of repos) t.comment(repo, n, '@trainyard queue');
      await t.settle();
      await t.advance(90 * MINUTE, MINUTE);

      // Both instances took deliveries and did the work.
      for (const [i, work] of t.work.entries()) {
        expect(work.webhooks, `instance ${i}`).toBeGreaterThan(20);
        expect(work.deliveries, `instance ${i}`).toBeGreaterThan(10);
        expect(work.effects, `instance ${i}`).toBeGreaterThan(10);
      }
      for (const [r, repo] of repos.entries()) {
        const merged = t.merges.filter((m) => m.repo === repo.name).map((m) => m.number);
        const all = Array.from({ length: PULL_REQUESTS }, (_, i) => i + 1);
        const expected = r === 0 ? all.filter((n) => n !== 3) : all;
        expect(merged, repo.name).toEqual(expected);
        for (const n of expected)
          expect(t.github.fileText(repo, 'main', `file-${n}.txt`)).toBe(`${repo.name} ${n}\n`);
        const events = await t.events(repo);
        expect(checkLog(events), repo.name).toEqual([]);
        expect(events.filter((e) => e.type === 'action.queue.merged').map((e) => e.pull_request)).toEqual(
          expected,
        );
        expect(t.drafts(repo)).toEqual([]);
        const status = await t.api<{ batches: unknown[]; waiting_pull_requests: unknown[] }>(
          `/v1/repos/acme/${repo.name}/merge-queue/status`,
        );
        expect(status.body).toMatchObject({ batches: [], waiting_pull_requests: [] });
      }
      const culprit = (await t.events(repos[0]!)).find(
        (e) => e.type === 'action.queue.leave' && e.pull_request === 3,
      )!;
      expect(String(culprit.metadata.reason)).toMatch(/^CHECKS_FAILED: /);
      expect(await t.leftovers()).toEqual({ outbox: 0, deliveries: 0, dueTimers: 0 });
    },
  );
});
