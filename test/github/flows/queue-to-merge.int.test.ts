import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Repository } from '../../../app/sandbox/entities.ts';
import { installRepository, startTrainyard, type Tester } from '../../support/trainyard-tester.ts';

const MINUTE = 60_000;
let t: Tester;
let repo: Repository;

beforeEach(async () => {
  t = await startTrainyard();
  repo = installRepository(t, 'widgets', {
    'README.md': 'hello\n',
    '.github/trainyard.yml': 'queue_rules:\n  - name: default\n',
  });
  await t.settle();
});
afterEach(async () => {
  await t?.close();
});

function comment(number: number, body: string, login = 'alice') {
  return t.github.issues.comment(repo, { number, body, user: t.github.account(login) });
}

async function eventTypes(): Promise<string[]> {
  const { body } = await t.api<{ events: { type: string; pull_request: number | null }[] }>(
    '/v1/repos/acme/widgets/logs?per_page=100',
  );
  return body.events.map((e) => `${e.type}${e.pull_request === null ? '' : ` #${e.pull_request}`}`).reverse();
}

describe('GitHub App flow against the sandbox code host (signed webhooks, real HTTP, real engine)', () => {
  it('queue command ⇒ test branch and CI ⇒ merged, events recorded, status empty again', async () => {
    const pr = t.github.openPullRequest(repo, {
      author: 'alice',
      title: 'Add feature',
      files: { 'a.txt': 'a\n' },
    });
    await t.settle();
    comment(pr.number, '@trainyard queue');
    await t.settle();
    // The command was acknowledged on GitHub.
    const status = await t.api<{ batches: unknown[] }>('/v1/repos/acme/widgets/merge-queue/status');
    expect(status.status).toBe(200);
    await t.advance(15 * MINUTE);
    const merged = t.github.pulls.get(repo, pr.number);
    expect(merged.merged).toBe(true);
    expect(t.github.fileText(repo, 'main', 'a.txt')).toBe('a\n');
    const types = await eventTypes();
    expect(types).toContain(`command.queue #${pr.number}`);
    expect(types).toContain(`action.queue.enter #${pr.number}`);
    expect(types).toContain(`action.queue.merged #${pr.number}`);
    const after = await t.api<{ batches: unknown[]; waiting: unknown[] }>(
      '/v1/repos/acme/widgets/merge-queue/status',
    );
    expect(after.body.batches).toEqual([]);
  });
});
