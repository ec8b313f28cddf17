import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PullRequest, Repository } from '../../../app/sandbox/entities.ts';
import { installRepository, startTrainyard, type Tester } from '../../support/trainyard-tester.ts';

const MINUTE = 60_000;
const CONFIG = '.github/trainyard.yml';
let t: Tester;
let repo: Repository;

beforeEach(async () => {
  t = await startTrainyard();
  repo = installRepository(t, 'widgets', {
    'README.md': 'hello\n',
    [CONFIG]: 'queue_rules:\n  - name: default\n    batch_size: 1\n',
  });
  await t.settle();
});
afterEach(async () => {
  await t?.close();
});

function open(n: number): PullRequest {
  return t.github.openPullRequest(repo, {
    author: 'alice',
    title: `Change ${n}`,
    files: { [`file-${n}.txt`]: `${n}\n` },
  });
}

/** A maintainer's push to main changing `.github/trainyard.yml`. */
function pushConfig(text: string): void {
  t.github.git.commit(repo, {
    branch: 'main',
    files: { [CONFIG]: text },
    message: 'Configure the merge queue',
    author: t.github.account('alice'),
  });
}

const batchTitles = () => t.drafts(repo, true).map((d) => d.title);

describe('configuration from .github/trainyard.yml (sandbox code host)', () => {
  it('a push to main changing the file reloads it: batch_size 1 → 3 puts the next three PRs in one batch', async () => {
    // batch_size 1: two PRs, two batches.
    const first = [open(1), open(2)];
    await t.settle();
    for (const pr of first) t.comment(repo, pr.number, '@trainyard queue');
    await t.advance(15 * MINUTE);
    expect(t.merges.map((m) => m.number)).toEqual([1, 2]);
    expect(batchTitles()).toEqual(['merge queue: batch-1 — #1', 'merge queue: batch-2 — #2']);

    pushConfig('queue_rules:\n  - name: default\n    batch_size: 3\n');
    await t.settle();
    const next = [open(5), open(6), open(7)];
    await t.settle();
    for (const pr of next) t.comment(repo, pr.number, '@trainyard queue');
    await t.advance(20 * MINUTE);
    const numbers = next.map((pr) => pr.number);
    expect(t.merges.map((m) => m.number)).toEqual([1, 2, ...numbers]);
    expect(batchTitles().slice(2)).toEqual([
      `merge queue: batch-3 — ${numbers.map((n) => `#${n}`).join(', ')}`,
    ]);
    expect(await t.leftovers()).toEqual({ outbox: 0, deliveries: 0, dueTimers: 0 });
  });

  it('an invalid file: its errors on the queued PRs’ Trainyard check run until it is fixed, the last valid configuration kept meanwhile', async () => {
    const prs = [open(1), open(2)];
    await t.settle();
    for (const pr of prs) t.comment(repo, pr.number, '@trainyard queue');
    await t.advance(MINUTE); // both batches running (batch_size 1)
    expect(batchTitles()).toEqual(['merge queue: batch-1 — #1', 'merge queue: batch-2 — #2']);

    pushConfig('queue_rules:\n  - name: default\n    batch_size: 0\n    merge_method: octopus\n');
    await t.settle();
    const showsErrors = (number: number) => {
      const check = t.trainyardCheck(repo, number)!;
      expect(check.title).toMatch(/^Invalid \.github\/trainyard\.yml: the last valid configuration is used/);
      expect(check.summary).toContain('`.github/trainyard.yml` on the default branch is invalid');
      expect(check.summary).toContain('`queue_rules[0].batch_size`');
      expect(check.summary).toContain('`queue_rules[0].merge_method`');
    };
    for (const pr of prs) showsErrors(pr.number);
    // CI goes on (check runs start, their webhooks are steps of the engine): the errors stay.
    await t.advance(3 * MINUTE);
    for (const pr of prs) showsErrors(pr.number);
    // A PR queued now is told too.
    const late = open(5);
    await t.settle();
    t.comment(repo, late.number, '@trainyard queue');
    await t.settle();
    showsErrors(late.number);

    // The last valid configuration runs the queue: one PR per batch, merged with `merge`.
    await t.advance(15 * MINUTE);
    expect(t.merges.map((m) => m.number)).toEqual([1, 2, late.number]);
    expect(t.github.shaHistory(repo, 'main').slice(0, 3)).toEqual([
      `merge-pr-${late.number}`,
      'merge-pr-2',
      'merge-pr-1',
    ]);
    expect(batchTitles()).toEqual([
      'merge queue: batch-1 — #1',
      'merge queue: batch-2 — #2',
      `merge queue: batch-3 — #${late.number}`,
    ]);

    // The configuration corrected (squash now): the check run of a PR queued while it was broken
    // loses the errors.
    const waiting = open(8);
    await t.settle();
    t.comment(repo, waiting.number, '@trainyard queue');
    await t.settle();
    showsErrors(waiting.number);
    pushConfig('queue_rules:\n  - name: default\n    merge_method: squash\n');
    await t.settle();
    const fixed = t.trainyardCheck(repo, waiting.number)!;
    expect(fixed.title).not.toContain('Invalid');
    expect(fixed.summary).not.toContain('invalid');
    await t.advance(15 * MINUTE);
    expect(t.merges.map((m) => m.number)).toEqual([1, 2, late.number, waiting.number]);
    expect(t.github.shaHistory(repo, 'main')[0]).toBe(`squash-pr-${waiting.number}`);
    expect(await t.leftovers()).toEqual({ outbox: 0, deliveries: 0, dueTimers: 0 });
  });
});
