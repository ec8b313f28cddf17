import { afterEach, describe, expect, it } from 'vitest';
import { isTestBranch } from '../../../app/queue/ids.ts';
import type { Repository } from '../../../app/sandbox/entities.ts';
import type { MergeQueueStatus } from '../../../shared/schemas/merge-queue.schema.ts';
import { installRepository, startTrainyard, type Tester } from '../../support/trainyard-tester.ts';

/*
 * The stall doctor end to end: the real app against the sandbox, whose CI stops running on the
 * queue's test branches (a workflow whose trigger misses them) after the repository's usual CI
 * durations were learnt. The stall reason must show within twice that duration, far before the
 * one-hour checks_timeout, in the status, the event log and the Trainyard check run.
 */

const MINUTE = 60_000;
let t: Tester | undefined;

afterEach(async () => {
  await t?.close();
});

describe('stall doctor against the sandbox', () => {
  it('a required check CI never runs on test branches is named within 2× the usual CI duration', async () => {
    let testBranchesRunCi = true;
    t = await startTrainyard({
      ci: { medianMs: 4 * MINUTE },
      ciRunsOn: (_repo, branch) => testBranchesRunCi || !isTestBranch(branch),
    });
    const tester = t;
    const repo: Repository = installRepository(tester, 'widgets', {
      'README.md': 'hello\n',
      '.github/trainyard.yml': 'queue_rules:\n  - name: default\n',
    });
    await tester.settle();
    // Five pull requests merged normally: the engine learns the repository's CI durations.
    const open = (n: number) =>
      tester.github.openPullRequest(repo, {
        author: 'alice',
        title: `Change ${n}`,
        files: { [`f${n}.txt`]: `${n}\n` },
      });
    const first = [1, 2, 3, 4, 5].map(open);
    await tester.advance(6 * MINUTE);
    for (const pr of first) tester.comment(repo, pr.number, '@trainyard queue');
    await tester.advance(30 * MINUTE, MINUTE);
    expect(tester.merges.map((m) => m.number).sort()).toEqual(first.map((pr) => pr.number).sort());
    const events = await tester.events(repo);
    const ends = events.filter((e) => e.type === 'action.queue.checks_end');
    const durations = ends.map(
      (e) =>
        Date.parse(e.metadata.checks_ended_at as string) - Date.parse(e.metadata.checks_started_at as string),
    );
    const usual = [...durations].sort((a, b) => a - b)[Math.floor(durations.length / 2)]!;
    expect(usual).toBeGreaterThan(3 * MINUTE);

    // The workflow no longer runs on the queue's branches; a new pull request's own CI still reports.
    testBranchesRunCi = false;
    const stuck = open(6);
    await tester.advance(6 * MINUTE);
    expect(tester.github.pulls.get(repo, stuck.number).merged).toBe(false);
    tester.comment(repo, stuck.number, '@trainyard queue');
    await tester.settle();
    const startedAt = tester.clock.now();
    let found: MergeQueueStatus['batches'][number]['pull_requests'][number]['reasons'][number] | undefined;
    let foundAt = 0;
    for (let waited = 0; waited <= 2 * usual && found === undefined; waited += 30_000) {
      await tester.advance(30_000, 30_000);
      const status = await tester.api<MergeQueueStatus>('/v1/repos/acme/widgets/merge-queue/status');
      found = status.body.batches
        .flatMap((b) => b.pull_requests)
        .find((p) => p.number === stuck.number)
        ?.reasons.find((r) => r.code === 'check_never_reported');
      foundAt = tester.clock.now();
    }
    expect(found, 'stall reason within 2× the usual CI duration').toBeDefined();
    expect(foundAt - startedAt).toBeLessThanOrEqual(2 * usual);
    expect(found).toMatchObject({ checks: ['ci'] });
    expect(found!.message).toContain(`#${stuck.number}`);
    expect(found!.next_action).toContain('trainyard/merge-queue/**');

    const stalled = (await tester.events(repo)).filter((e) => e.type === 'action.queue.checks_stalled');
    expect(stalled.map((e) => e.pull_request)).toEqual([stuck.number]);
    const view = await tester.api<{ reasons: { code: string }[] }>(
      `/v1/repos/acme/widgets/merge-queue/pull/${stuck.number}`,
    );
    expect(view.body.reasons.map((r) => r.code)).toContain('check_never_reported');
    const check = tester.trainyardCheck(repo, stuck.number);
    expect(check?.title).toContain('Stalled in');
    expect(check?.summary).toContain('check_never_reported');
  });
});
