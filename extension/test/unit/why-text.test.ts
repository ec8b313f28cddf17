import { describe, expect, it } from 'vitest';
import type { MergeQueuePullRequest } from '../../../shared/schemas/merge-queue-pull.schema.ts';
import { type TimeWords, whyWaitingText } from '../../src/queue/why-text.ts';

const now = new Date('2026-11-29T10:00:00Z');
// Times as the server sends them, so the expected text does not depend on the machine's zone.
const t: TimeWords = { now, at: (iso) => iso.slice(11, 16) };

const view = (extra: Partial<MergeQueuePullRequest> = {}): MergeQueuePullRequest => ({
  number: 12,
  head_ref: 'fix-parser',
  queued_at: '2026-11-29T09:40:00Z',
  estimated_time_of_merge: '2026-11-29T10:30:00Z',
  estimated_time_of_merge_p90: '2026-11-29T11:00:00Z',
  reasons: [
    {
      code: 'check_never_reported',
      message: 'Stalled in batch-3: the check ci never reported',
      since: '2026-11-29T09:50:00Z',
      until: null,
      next_action: 'Make the workflow run on trainyard/merge-queue/** branches',
      checks: ['ci'],
    },
  ],
  position: 2,
  priority_rule_name: null,
  queue_rule_name: 'default',
  checks_timeout_at: '2026-11-29T10:50:00Z',
  queue_rule: { name: 'default', config: {} },
  mergeability_check: {
    check_type: 'draft_pr',
    queue_pull_request_number: 9001,
    started_at: '2026-11-29T09:45:00Z',
    ci_ended_at: null,
    ci_state: 'pending',
    state: 'pending',
    checks: [
      {
        name: 'lint',
        description: 'ok',
        url: 'https://ci.example/run/7',
        state: 'success',
        avatar_url: null,
      },
    ],
    conditions_evaluation: {
      match: false,
      label: 'all of',
      description: null,
      documentation_url: null,
      schedule: null,
      subconditions: [
        {
          match: false,
          label: 'check-success=ci',
          description: null,
          documentation_url: null,
          schedule: null,
          subconditions: [],
          evaluations: [],
        },
        {
          match: true,
          label: 'check-success=lint',
          description: null,
          documentation_url: null,
          schedule: null,
          subconditions: [],
          evaluations: [],
        },
      ],
      evaluations: [],
    },
  },
  ...extra,
});

describe('Why is this pull request waiting? (the text)', () => {
  it('says place, reasons (since, checks, what to do), p50 and p90, the test and its checks in sentences', () => {
    expect(whyWaitingText(view(), { repository: 'acme/app', title: 'Fix the parser' }, t)).toBe(
      [
        '# Why is #12 Fix the parser waiting?',
        '',
        '#12 is 3rd in the merge queue of acme/app (queue rule "default", no priority rule). It was queued on 09:40 (20 min. ago).',
        '',
        '## Why it is where it is',
        '',
        '- Stalled in batch-3: the check ci never reported. Since 09:50 (10 min. ago). Checks concerned: ci. What to do: Make the workflow run on trainyard/merge-queue/** branches. (`check_never_reported`)',
        '',
        '## When it should merge',
        '',
        'Most likely merged by 10:30 (in 30 min.): the median estimate.',
        'Late case: 9 in 10 pull requests merge by 11:00 (in 1 hr.): the 90th percentile, counting failures ahead.',
        '',
        '## Its test',
        '',
        'Tested on draft pull request #9001, started 09:45 (15 min. ago). CI is pending; the test is pending.',
        'Its checks time out on 10:50 (in 50 min.).',
        '',
        'Merge conditions not met yet: check-success=ci.',
        '',
        '- lint: success — [open the run](https://ci.example/run/7)',
        '',
      ].join('\n'),
    );
  });

  it('a waiting pull request: its until, nothing to do, no test yet; no estimate while paused', () => {
    const text = whyWaitingText(
      view({
        reasons: [
          {
            code: 'waiting_for_batch_fill',
            message: 'Waiting for its batch to fill',
            since: null,
            until: '2026-11-29T10:05:00Z',
            next_action: null,
          },
        ],
        estimated_time_of_merge: null,
        estimated_time_of_merge_p90: null,
        mergeability_check: null,
        checks_timeout_at: null,
        priority_rule_name: 'hotfix',
      }),
      { repository: 'acme/app', title: null },
      t,
    );
    expect(text).toContain('# Why is #12 waiting?');
    expect(text).toContain('(queue rule "default", priority rule "hotfix")');
    expect(text).toContain(
      '- Waiting for its batch to fill. Expected to end by 10:05 (in 5 min.). Nothing to do: it needs time. (`waiting_for_batch_fill`)',
    );
    expect(text).toContain('No estimate now: the queue is paused');
    expect(text).toContain('Not tested yet: it waits for a batch');
  });
});
