import { describe, expect, it } from 'vitest';
import { computePullRequestView } from '../../../app/queue/pull-projection.ts';
import type { NewEventOf } from '../../../shared/schemas/event.schema.ts';
import { allPass, failIfContains, pullRequest, scenario } from '../support/scenario.ts';

/*
 * Why a pull request is where it is (app/queue/reasons.ts): each reason as the status, the
 * per-pull-request view and the check run show it, at the points of a pull request's life where
 * it applies; the stall doctor (app/queue/stall.ts); and the leave's reason_code / next_action.
 */

const ops = { type: 'user' as const, id: 7, name: 'ops' };

type S = ReturnType<typeof scenario>;

/** Every queued pull request's reasons in the status, by number. */
function reasonsOf(s: S): Map<number, { code: string; message: string; until: string | null }[]> {
  const status = s.status();
  const all = [...status.batches.flatMap((b) => b.pull_requests), ...status.waiting_pull_requests];
  return new Map(all.map((p) => [p.number, p.reasons]));
}

const codes = (s: S, number: number) => (reasonsOf(s).get(number) ?? []).map((r) => r.code);

const leaveOf = (s: S, number: number) =>
  s.events('action.queue.leave').find((e) => e.pull_request === number) as
    | NewEventOf<'action.queue.leave'>
    | undefined;

describe('reasons', () => {
  it('a pull request short of a full batch waits for it to fill, until batch_max_wait_time', () => {
    const s = scenario({ queue_rules: [{ name: 'default', batch_size: 3, batch_max_wait_time: '5m' }] });
    s.queue(1);
    s.runUntilIdle({ until: '1m' });
    expect(reasonsOf(s).get(1)).toEqual([
      {
        code: 'waiting_for_batch_fill',
        message:
          'Waiting for more pull requests to fill a batch of queue rule default, at most until 2026-11-02T09:05:00.000Z (batch_max_wait_time)',
        since: '2026-11-02T09:00:00.000Z',
        until: '2026-11-02T09:05:00.000Z',
        next_action: null,
      },
    ]);
    s.runUntilIdle({ ci: () => 'hang', until: '6m' });
    expect(codes(s, 1)).toEqual(['waiting_for_checks']);
  });

  it('behind full slots a pull request waits for a slot; in a batch it waits for the checks it names', () => {
    const s = scenario({
      queue_rules: [{ name: 'default', merge_conditions: ['check-success=ci', 'check-success=lint'] }],
      merge_queue: { max_parallel_checks: 1 },
    });
    const both = [
      { name: 'ci', state: 'success' as const },
      { name: 'lint', state: 'success' as const },
    ];
    s.open(1, { checkRuns: both }).open(2, { checkRuns: both });
    s.queue(1, 2);
    s.runUntilIdle({ ci: () => 'hang', until: '1m' });
    expect(codes(s, 2)).toEqual(['waiting_for_slot']);
    const waiting = reasonsOf(s).get(1)![0]!;
    expect(waiting).toMatchObject({
      code: 'waiting_for_checks',
      message: 'Waiting for checks ci, lint on batch-1',
      checks: ['ci', 'lint'],
      // Started at 0s; no CI duration seen yet: 10 minutes.
      until: '2026-11-02T09:10:00.000Z',
    });
    s.at('2m').ci('batch-1', 'success', 'lint');
    expect(reasonsOf(s).get(1)![0]).toMatchObject({
      message: 'Waiting for check ci on batch-1',
      checks: ['ci'],
    });
  });

  it('a merge condition that is not about checks is named while the checks run, and fails the batch', () => {
    const s = scenario({
      queue_rules: [{ name: 'default', merge_conditions: ['check-success=ci', '#approved-reviews-by>=2'] }],
    });
    s.queue(1);
    s.runUntilIdle({ ci: () => 'hang', until: '1m' });
    expect(reasonsOf(s).get(1)).toEqual([
      {
        code: 'waiting_for_checks',
        message: 'Waiting for check ci on batch-1',
        since: '2026-11-02T09:00:00.000Z',
        until: '2026-11-02T09:10:00.000Z',
        next_action: null,
        checks: ['ci'],
      },
      {
        code: 'conditions_not_met',
        message: 'Merge condition not met on the tested commit: #approved-reviews-by>=2',
        since: '2026-11-02T09:00:00.000Z',
        until: null,
        next_action:
          'Make #approved-reviews-by>=2 hold on the pull request (reviews, labels…); otherwise the batch fails when its checks report',
      },
    ]);
    s.at('3m').ci('batch-1', 'success');
    expect(leaveOf(s, 1)?.metadata.reason_code).toBe('checks_failed');
  });

  it('a passed batch behind the head waits for the batches ahead', () => {
    const s = scenario({ merge_queue: { max_parallel_checks: 2 } });
    s.queue(1, 2);
    s.runUntilIdle({ ci: () => 'hang', until: '1m' });
    s.at('5m').ci('batch-2', 'success');
    expect(reasonsOf(s).get(2)).toEqual([
      {
        code: 'waiting_for_batches_ahead',
        message: 'Checks passed in batch-2; it merges after batch-1',
        since: '2026-11-02T09:05:00.000Z',
        until: null,
        next_action: null,
      },
    ]);
  });

  it('paused: who paused, why and since when, with how to resume; the place is said after', () => {
    const s = scenario({ merge_queue: { max_parallel_checks: 1 } });
    s.queue(1, 2);
    s.runUntilIdle({ ci: () => 'hang', until: '1m' });
    s.at('2m').send({ type: 'pause_set', reason: 'incident', by: ops });
    const [paused] = reasonsOf(s).get(2)!;
    expect(paused).toEqual({
      code: 'paused',
      message: 'The merge queue is paused by ops (incident): no batch starts and nothing merges',
      since: '2026-11-02T09:02:00.000Z',
      until: null,
      next_action:
        'An admin unpauses the queue (DELETE /v1/repos/{owner}/{repository}/merge-queue/pause) when merges may resume',
    });
    expect(codes(s, 2)).toEqual(['paused']);
  });

  it('frozen: until when, by which freeze', () => {
    const s = scenario();
    s.send({
      type: 'freeze_saved',
      freeze: {
        id: 'release',
        reason: 'Release week',
        start: '2026-11-02T09:00:00Z',
        end: '2026-11-02T10:00:00Z',
        timezone: 'UTC',
        matchingConditions: [],
        excludeConditions: [],
      },
      by: ops,
    });
    s.queue(1);
    s.runUntilIdle({ until: '20m' });
    expect(reasonsOf(s).get(1)?.[0]).toMatchObject({
      code: 'frozen',
      message:
        'Held by the scheduled freeze "Release week" until 2026-11-02T10:00:00Z: it is tested but does not merge',
      until: '2026-11-02T10:00:00Z',
    });
  });

  it('in bisection: the round and the range still suspected', () => {
    const s = scenario({
      queue_rules: [{ name: 'default', batch_size: 4 }],
      merge_queue: { max_parallel_checks: 2 },
    });
    s.queue(1, 2, 3, 4);
    s.runUntilIdle({ ci: failIfContains(3), until: '15m' });
    expect(reasonsOf(s).get(3)?.[0]).toMatchObject({
      code: 'bisecting',
      message:
        'batch-1 failed; in bisection round 1, the failing pull request is among positions 1–4 of 4 (this one is 3)',
    });
  });

  it('merge conditions naming a check never seen on the repository are reported (configuration lint)', () => {
    const s = scenario({
      queue_rules: [{ name: 'default', merge_conditions: ['check-success=unit-tests'] }],
    });
    s.open(1, { checkRuns: [{ name: 'ci', state: 'success' }] });
    s.queue(1);
    s.runUntilIdle({ ci: () => 'hang', until: '1m' });
    expect(reasonsOf(s).get(1)?.[0]).toEqual({
      code: 'unknown_check_in_conditions',
      message:
        "The merge conditions of queue rule default name a check never seen on this repository's recent commits: unit-tests (seen: ci)",
      since: null,
      until: null,
      next_action:
        'Check the spelling of unit-tests in .github/trainyard.yml against the check names CI reports',
    });
    // The check run shows it too.
    const published = s
      .effects('publish_check_run')
      .filter((e) => e.number === 1)
      .at(-1)!;
    expect(published.details.kind === 'queued' && published.details.reasons?.[0]?.code).toBe(
      'unknown_check_in_conditions',
    );
  });

  it('the per-pull-request view carries the same reasons and both estimates', () => {
    const s = scenario({ merge_queue: { max_parallel_checks: 1 } });
    s.queue(1, 2);
    s.runUntilIdle({ ci: () => 'hang', until: '1m' });
    const view = computePullRequestView(s.state, { number: 2, now: new Date(s.now) })!;
    expect(view.reasons).toEqual(reasonsOf(s).get(2));
    expect(view.estimated_time_of_merge).toBe('2026-11-02T09:20:00.000Z');
    // p90: two batches up to it may fail (the default 10 % failure rate until some are seen):
    // P(none fails) = 0.81 < 0.9, so one failure's CI run (10 minutes) is allowed for.
    expect(view.estimated_time_of_merge_p90).toBe('2026-11-02T09:30:00.000Z');
  });

  it('a leave says why and what to do next in the same vocabulary', () => {
    const s = scenario();
    s.queue(1, 2);
    s.runUntilIdle({ ci: failIfContains(1) });
    expect(leaveOf(s, 1)?.metadata).toMatchObject({
      reason: 'CHECKS_FAILED: batch-1 failed: ci',
      reason_code: 'checks_failed',
      next_action: 'Fix the failing checks on the pull request, then queue it again',
    });
    expect(leaveOf(s, 2)?.metadata).toMatchObject({ reason_code: 'merged', next_action: null });
    const left = s
      .effects('publish_check_run')
      .filter((e) => e.number === 1)
      .at(-1)!;
    expect(left.details).toMatchObject({
      kind: 'left',
      nextAction: 'Fix the failing checks on the pull request, then queue it again',
    });
  });
});

describe('the stall doctor', () => {
  it('a required check that never reports on the tested commit is named long before checks_timeout, once', () => {
    const s = scenario();
    // The pull request's own CI reports ci on its head; the queue's test branch gets nothing.
    s.queue(1);
    s.runUntilIdle({ ci: () => 'hang', until: '50m' });
    const stalled = s.events('action.queue.checks_stalled') as NewEventOf<'action.queue.checks_stalled'>[];
    expect(stalled).toHaveLength(1);
    // No CI duration learnt yet: 1.5 × the default 10 minutes.
    expect(stalled[0]!.received_at).toBe('2026-11-02T09:15:00.000Z');
    expect(stalled[0]!.metadata).toMatchObject({
      stalled_after_seconds: 900,
      missing_checks: [
        {
          name: 'ci',
          reported_on_pull_requests: [1],
          message:
            'Check ci reports on pull request heads (#1) but never reported on draft pull request #9000',
        },
      ],
    });
    expect(stalled[0]!.metadata.missing_checks[0]!.next_action).toContain('trainyard/merge-queue/**');
    const [reason] = reasonsOf(s).get(1)!;
    expect(reason).toMatchObject({
      code: 'check_never_reported',
      checks: ['ci'],
      since: '2026-11-02T09:00:00.000Z',
    });
    // The check run says so in its title.
    const published = s
      .effects('publish_check_run')
      .filter((e) => e.number === 1)
      .at(-1)!;
    expect(published.details.kind === 'queued' && published.details.reasons?.[0]?.code).toBe(
      'check_never_reported',
    );
    // At checks_timeout the leave names the check and its fix.
    s.runUntilIdle({ ci: () => 'hang', until: '2h' });
    expect(s.timeline({ checkRuns: true })).toMatchInlineSnapshot(`
      "
      0s     pull_request_updated #1 head=pr-1-head
      0s     command queue #1
               command.queue #1
               action.queue.enter #1
               → react +1
               → prepare_test_branch batch-1 [#1]
               → check_run #1 in_progress: Preparing the checks of batch-1
      0s     test_branch_prepared batch-1 (attempt 1) sha=test-batch-1-1
               action.queue.checks_start #1 batch-1 [#1]
               → check_run #1 in_progress: Checks running in batch-1
      15m    tick
               action.queue.checks_stalled #1
               → check_run #1 in_progress: Stalled in batch-1: ci never reported on the tested commit
      1h     tick
               action.queue.checks_end #1 batch-1 CHECKS_TIMEOUT DEFINITIVE
               action.queue.leave #1 CHECKS_TIMEOUT
               → close_draft_pr batch-1
               → check_run #1 completed: Left the queue: CHECKS_TIMEOUT
      "
    `);
    expect(leaveOf(s, 1)?.metadata).toMatchObject({ reason_code: 'check_never_reported' });
    expect(leaveOf(s, 1)?.metadata.next_action).toContain('trainyard/merge-queue/**');
    expect(s.events('action.queue.checks_stalled')).toHaveLength(1);
  });

  it("waits for the repository's own CI durations: 1.5 × their p90 once five are known", () => {
    const s = scenario({ merge_queue: { max_parallel_checks: 1 } });
    for (let n = 1; n <= 5; n++) s.queue(n);
    s.runUntilIdle({ ci: allPass, ciDuration: '4m' });
    expect(s.state.ciDurations).toEqual([240, 240, 240, 240, 240]);
    const mark = s.mark();
    const start = s.now;
    s.open(6, pullRequest(6, { checkRuns: [] }));
    s.queue(6);
    s.runUntilIdle({ ci: () => 'hang', until: '2h' });
    const stalled = s.events('action.queue.checks_stalled') as NewEventOf<'action.queue.checks_stalled'>[];
    expect(stalled).toHaveLength(1);
    expect(Date.parse(stalled[0]!.received_at!) - start).toBe(6 * 60_000);
    expect(stalled[0]!.metadata.missing_checks[0]).toMatchObject({
      name: 'ci',
      reported_on_pull_requests: [],
      message: "Check ci never reported on the tested commit, nor on any queued pull request's head",
    });
    expect(
      s
        .timeline({ from: mark })
        .split('\n')
        .filter((l) => l.includes('checks_stalled')),
    ).toHaveLength(1);
  });

  it('a check that reports in time is never called stalled', () => {
    const s = scenario();
    s.queue(1, 2, 3);
    s.runUntilIdle({ ci: allPass, ciDuration: '14m' });
    expect(s.events('action.queue.checks_stalled')).toEqual([]);
  });
});
