import { afterEach, describe, expect, it } from 'vitest';
import type { Repository } from '../../../app/sandbox/entities.ts';
import { installRepository, startTrainyard, type Tester } from '../../support/trainyard-tester.ts';

/*
 * A partitioned queue against the sandbox code host, with every request, answer and webhook
 * checked against GitHub's published descriptions (test/support/github-contract/, on for every
 * test): each partition tests and merges its own pull requests beside the other's; a pull
 * request in both partitions merges once, when both lanes have validated it.
 */

const MINUTE = 60_000;
let t: Tester;
let repo: Repository;

afterEach(async () => {
  await t?.close();
});

describe('a partitioned queue through the sandbox code host, GitHub’s contract checked', () => {
  it('web and api pull requests are tested in their own lanes and all merge; one touching both merges once, after both lanes passed it', async () => {
    t = await startTrainyard();
    repo = installRepository(t, 'widgets', {
      'README.md': 'hello\n',
      'web/index.html': '<p>\n',
      'api/server.ts': 'export {}\n',
      '.github/trainyard.yml': [
        'queue_rules:',
        '  - name: default',
        '    batch_size: 2',
        'partition_rules:',
        '  - name: web',
        '    conditions: ["files~=^web/"]',
        '  - name: api',
        '    conditions: ["files~=^api/"]',
        'merge_queue:',
        '  max_parallel_checks: 2',
        '',
      ].join('\n'),
    });
    await t.settle();
    const files: Record<string, string>[] = [
      { 'web/a.html': 'a\n' },
      { 'api/a.ts': 'a\n' },
      { 'web/b.html': 'b\n' },
      { 'api/b.ts': 'b\n' },
      { 'web/both.html': 'both\n', 'api/both.ts': 'both\n' },
    ];
    const prs = files.map((f, i) =>
      t.github.openPullRequest(repo, { author: 'alice', title: `Change ${i + 1}`, files: f }),
    );
    await t.settle();
    for (const pr of prs) t.comment(repo, pr.number, '@trainyard queue');
    await t.settle();
    await t.advance(120 * MINUTE);

    const numbers = prs.map((p) => p.number);
    expect(
      t.merges
        .map((m) => m.number)
        .filter((n) => numbers.includes(n))
        .sort((a, b) => a - b),
    ).toEqual(numbers);
    // Each merged once.
    expect(new Set(t.merges.map((m) => m.number)).size).toBe(t.merges.length);
    for (const f of files)
      for (const [path, text] of Object.entries(f)) expect(t.github.fileText(repo, 'main', path)).toBe(text);

    const events = await t.events(repo);
    const partitionOf = (n: number) =>
      events
        .filter((e) => e.type === 'action.queue.merged' && e.pull_request === n)
        .map((e) => (e.metadata.partition_names as string[]).slice().sort());
    expect(partitionOf(numbers[0]!)).toEqual([['web']]);
    expect(partitionOf(numbers[1]!)).toEqual([['api']]);
    expect(partitionOf(numbers[4]!)).toEqual([['api', 'web']]);
    // Tested in both lanes: a checks_start of its own in each partition.
    const starts = events.filter(
      (e) =>
        e.type === 'action.queue.checks_start' &&
        (e.metadata.pull_request_numbers as number[]).includes(numbers[4]!) &&
        e.pull_request === numbers[4],
    );
    expect(new Set(starts.map((e) => e.metadata.partition_name))).toEqual(new Set(['web', 'api']));
    // Several lanes on one base: no lane's tested tree is the base's, so nothing is verified.
    const { body } = await t.api<{ merge_integrity?: { counts: Record<string, number> } }>(
      '/v1/repos/acme/widgets/merge-queue/status',
    );
    expect(body.merge_integrity?.counts.different ?? 0).toBe(0);
    expect(events.filter((e) => e.type === 'action.queue.merge_verified')).toEqual([]);
    expect(events.filter((e) => e.type === 'action.queue.leave' && e.metadata.merged !== true)).toEqual([]);
    expect(await t.leftovers()).toEqual({ outbox: 0, deliveries: 0, dueTimers: 0 });
  }, 120_000);
});
