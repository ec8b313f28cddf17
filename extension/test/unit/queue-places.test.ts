import { describe, expect, it } from 'vitest';
import { DEFAULT_PARTITION_NAME } from '../../../shared/schemas/default-names.ts';
import type {
  Batch,
  MergeQueueStatus,
  QueuedPullRequest,
} from '../../../shared/schemas/merge-queue.schema.ts';
import { readBisection } from '../../src/queue/bisection.ts';
import {
  clockTime,
  etaText,
  ordinal,
  placeLine,
  statusBarLine,
  updatedAgo,
} from '../../src/queue/place-text.ts';
import { myPlaces, placesOf } from '../../src/queue/pull-request-place.ts';
import { transitions } from '../../src/queue/transitions.ts';

const pr = (number: number, login = 'alice', extra: Record<string, unknown> = {}): QueuedPullRequest =>
  ({
    number,
    title: `PR ${number}`,
    url: `https://github.com/acme/app/pull/${number}`,
    author: { id: 1, login },
    head_ref: `feature-${number}`,
    queued_at: '2026-11-29T10:00:00Z',
    priority_alias: 'medium',
    priority_rule_name: null,
    labels: [],
    github_labels: [],
    scopes: [],
    estimated_merge_at: '2026-11-29T14:05:00Z',
    estimated_merge_at_p90: null,
    reasons: [],
    ...extra,
  }) as QueuedPullRequest;

let ids = 0;
const batch = (
  name: string,
  code: Batch['status']['code'],
  prs: QueuedPullRequest[],
  more: Partial<Batch> = {},
): Batch => ({
  id: `00000000-0000-4000-8000-${String(++ids).padStart(12, '0')}`,
  parent_ids: [],
  name,
  status: { code },
  started_at: '2026-11-29T10:00:00Z',
  estimated_merge_at: null,
  estimated_merge_at_p90: null,
  estimated_ci_finish_at: null,
  ci_finished_at: null,
  checks_timeout_at: null,
  scopes: [],
  queue_rule_name: 'default',
  checks_summary: { passed: 0, total: 0 },
  pull_requests: prs,
  ...more,
});

const status = (
  batches: Batch[],
  waiting: QueuedPullRequest[],
  pause: MergeQueueStatus['pause'] = null,
): MergeQueueStatus => ({
  mode: 'serial',
  scope_queues: { [DEFAULT_PARTITION_NAME]: batches.map((b) => b.id) },
  batches,
  waiting_pull_requests: waiting,
  pause,
});

describe('places of queued pull requests', () => {
  it('counts positions through the lane’s batches, then the waiting ones; each pull request once', () => {
    const b1 = batch('batch-1', 'running', [pr(1), pr(2)], { checks_summary: { passed: 1, total: 3 } });
    const b2 = batch('batch-2', 'waiting_for_batch', [pr(3)]);
    const places = placesOf(status([b1, b2], [pr(4, 'bob'), pr(5)]));
    expect([...places.values()].map((p) => [p.pr.number, p.position, p.state])).toEqual([
      [1, 1, 'running'],
      [2, 2, 'running'],
      [3, 3, 'waiting for batch'],
      [4, 4, 'waiting'],
      [5, 5, 'waiting'],
    ]);
    expect(places.get(1)?.reason).toBe('testing in batch-1 (1/3 checks passed)');
    expect(places.get(4)?.reason).toBe('waiting for a batch');
  });

  it('prefers the server’s reasons and p90 when it gives them, and says paused otherwise', () => {
    const withReason = pr(7, 'alice', {
      reasons: [
        {
          code: 'waiting_for_checks',
          message: 'waiting for checks ci/test',
          since: null,
          next_action: 'none',
        },
      ],
      estimated_merge_at_p90: '2026-11-29T14:40:00Z',
    });
    const places = placesOf(
      status([], [withReason, pr(8)], { paused: true, reason: 'deploy', paused_at: '2026-11-29T09:00:00Z' }),
    );
    expect(places.get(7)?.reason).toBe('waiting for checks ci/test');
    expect(places.get(7)?.etaP90).toBe('2026-11-29T14:40:00Z');
    expect(places.get(8)?.reason).toBe('queue paused: deploy');
    expect(places.get(8)?.state).toBe('paused');
  });

  it('puts the current branch’s pull request first, then the login’s by position', () => {
    const places = placesOf(
      status([batch('b', 'running', [pr(1, 'Alice')])], [pr(2, 'bob', { head_ref: 'feat' }), pr(3, 'alice')]),
    );
    expect(myPlaces(places, { login: 'alice', branch: 'feat' }).map((p) => p.pr.number)).toEqual([2, 1, 3]);
    expect(myPlaces(places, { login: null, branch: null })).toEqual([]);
  });
});

describe('texts', () => {
  it('ordinals, ETA with its spread, rows and the status bar line', () => {
    expect([1, 2, 3, 4, 11, 12, 13, 21, 22, 101].map(ordinal)).toEqual([
      '1st',
      '2nd',
      '3rd',
      '4th',
      '11th',
      '12th',
      '13th',
      '21st',
      '22nd',
      '101st',
    ]);
    const now = new Date('2026-11-29T12:00:00');
    const eta = new Date('2026-11-29T14:05:00').toISOString();
    const p90 = new Date('2026-11-29T14:40:00').toISOString();
    expect(clockTime(eta, now)).toBe('~14:05');
    expect(clockTime(new Date('2026-12-01T09:00:00').toISOString(), now)).toBe('~Tue 09:00');
    expect(etaText({ eta, etaP90: p90 }, now)).toBe('~14:05–14:40');
    expect(etaText({ eta: null, etaP90: null }, now)).toBe('no ETA');
    const place = [
      ...placesOf(status([], [pr(9), pr(123, 'alice', { estimated_merge_at: eta })])).values(),
    ][1]!;
    expect(placeLine(place, now)).toBe('2nd · waiting · ~14:05');
    expect(statusBarLine(place, now)).toBe('#123 · 2nd · ~14:05');
    expect(updatedAgo(new Date(now.getTime() - 12_000), now)).toBe('updated 12 s ago');
    expect(updatedAgo(new Date(now.getTime() - 190_000), now)).toBe('updated 3 min ago');
  });
});

describe('bisection', () => {
  it('shows each pull request once, under the smallest probe, and finds the culprit', () => {
    const passed = batch('probe-a', 'waiting_for_previous_batches', [pr(1)], {
      ci_finished_at: '2026-11-29T10:10:00Z',
    });
    const failed = batch('probe-b', 'failed', [pr(1), pr(2)], { ci_finished_at: '2026-11-29T10:10:00Z' });
    const parent = batch('batch-1', 'bisecting', [pr(1), pr(2), pr(3)], { sub_batches: [failed, passed] });
    const b = readBisection(parent);
    expect(b.probes.map((p) => [p.batch.name, p.outcome, p.shown])).toEqual([
      ['probe-b', 'failed', [2]],
      ['probe-a', 'passed', [1]],
    ]);
    expect(b.unprobed).toEqual([3]);
    expect(b.suspects).toEqual([2, 3]);
    expect(b.culprit).toBe(2);
  });

  it('has suspects and no culprit while probes run', () => {
    const running = batch('probe-a', 'running', [pr(1)]);
    const b = readBisection(batch('batch-1', 'bisecting', [pr(1), pr(2)], { sub_batches: [running] }));
    expect(b.suspects).toEqual([1, 2]);
    expect(b.culprit).toBeNull();
  });
});

describe('transitions', () => {
  it('announces a pause and my pull request leaving, not others', () => {
    const before = status([batch('b', 'running', [pr(1), pr(2, 'bob')])], [pr(3)]);
    const after = status([], [pr(3)], {
      paused: true,
      reason: 'incident',
      paused_at: '2026-11-29T11:00:00Z',
    });
    expect(transitions(before, after, new Set([1, 3]))).toEqual([
      { kind: 'paused', reason: 'incident' },
      { kind: 'left', number: 1, title: 'PR 1', url: 'https://github.com/acme/app/pull/1' },
    ]);
    expect(transitions(null, after, new Set([1]))).toEqual([]);
  });
});
