import { describe, expect, it } from 'vitest';
import type { Event } from '../../../shared/schemas/event.schema.ts';
import { eventTypes } from '../../../shared/schemas/event-types.ts';
import { eventKind, eventSentence, hasSentence } from '../../src/event-log/event-sentence.ts';

const event = (type: string, metadata: Record<string, unknown>, pull_request: number | null = 12): Event =>
  ({
    id: 'e1',
    type,
    pull_request,
    base_ref: 'main',
    received_at: '2026-11-29T10:00:00Z',
    trigger: 'Queue',
    outcome: 'neutral',
    metadata,
    repository: 'acme/app',
  }) as unknown as Event;

describe('event sentences', () => {
  it('one sentence per type the queue writes, naming who, what and why', () => {
    expect(
      eventSentence(
        event('action.queue.enter', { queue_name: 'default', branch: 'main', partition_name: null }),
      ),
    ).toBe('#12 entered the queue default for main');
    expect(
      eventSentence(event('action.queue.leave', { merged: false, reason: 'CHECKS_FAILED: ci/test failed' })),
    ).toBe('#12 was removed from the queue: CHECKS_FAILED: ci/test failed');
    expect(eventSentence(event('action.queue.leave', { merged: true, reason: 'PR_MERGED: merged' }))).toBe(
      '#12 left the queue: merged',
    );
    expect(
      eventSentence(
        event(
          'action.queue.batch_bisection_end',
          {
            culprit_found: true,
            original_batch_pr_numbers: [1, 2, 3],
            culprit_pr_numbers: [2],
            remaining_pr_numbers: [1, 3],
          },
          null,
        ),
      ),
    ).toBe('Bisection of #1, #2, #3 found the culprit #2; #1, #3 stay queued');
    expect(
      eventSentence(
        event(
          'queue.pause.create',
          { reason: 'deploy', created_by: { type: 'application', id: 'x', name: 'ops-key' } },
          null,
        ),
      ),
    ).toBe('ops-key paused the queue: deploy');
    expect(
      eventSentence(
        event('action.queue.checks_end', {
          aborted: true,
          abort_code: 'PR_DEQUEUED',
          abort_reason: 'dequeued by bob',
        }),
      ),
    ).toBe('Checks of #12 were stopped (PR_DEQUEUED): dequeued by bob');
  });

  it('every type gets a sentence without raw values; the queue’s types have their own', () => {
    for (const type of eventTypes) {
      const text = eventSentence(event(type, {}));
      expect(text).not.toMatch(/undefined|\[object/);
      expect(text.length).toBeGreaterThan(5);
    }
    for (const type of [
      'action.queue.enter',
      'action.queue.leave',
      'action.queue.merged',
      'queue.pause.delete',
    ])
      expect(hasSentence(type)).toBe(true);
    expect(eventKind('action.queue.enter')).toBe('Merge queue');
    expect(eventKind('queue.pause.create')).toBe('Pause and freezes');
    expect(eventKind('action.label')).toBe('Other actions');
  });
});
