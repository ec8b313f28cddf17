import type { EventMetadata, EventOf, NewEventOf } from '../../shared/schemas/event.schema.ts';
import { computeOutcome } from '../../shared/schemas/event-outcome.ts';
import type { EventType } from '../../shared/schemas/event-types.ts';

/*
 * Valid examples of every event type, for tests that need events. Every call returns fresh
 * objects, so a test may change them.
 */

export const exampleIds = {
  session: '3f1c2b9e-8d4a-4c1e-9b2f-6a7d5e4c3b21',
  trainCar: '9b8e7d6c-5a4b-4c3d-8e2f-1a0b9c8d7e6f',
  retryRule: 'c0ffee00-1234-4abc-8def-0123456789ab',
  ciIssue: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d',
  otherCiIssue: 'd4c3b2a1-6f5e-4b7a-9d8c-5d4c3b2a1f0e',
  apiKey: '7e57ab1e-0000-4000-8000-00000000a11c',
} as const;

const queuedAt = '2026-11-01T09:00:00Z';

const check = () => ({
  name: 'ci/test',
  description: 'Tests failed',
  url: 'https://ci.example.com/runs/1',
  state: 'failure' as const,
  avatar_url: 'https://avatars.example.com/ci.png',
});

const conditionLeaf = () => ({
  match: true,
  label: 'check-success=ci/test',
  is_label_user_input: true,
  description: 'ci/test passed',
  attribute_name: 'check-success',
  operator: '=',
  schedule: { days: 'Mon-Fri', hours: '09:00-17:00', timezone: 'Europe/Paris' },
  subconditions: [],
  evaluations: [{ pull_request: 42, match: true }],
});

const conditionTree = () => ({
  ...conditionLeaf(),
  label: 'all of',
  is_label_user_input: false,
  subconditions: [conditionLeaf()],
});

const author = () => ({ login: 'alice', id: 1001, type: 'User' as const });
const userActor = () => ({ type: 'user' as const, id: 1001, name: 'alice' });
const keyActor = () => ({ type: 'application' as const, id: exampleIds.apiKey, name: 'oncall' });

const freeze = (matching: Record<string, unknown> | string[]) => ({
  reason: 'Release week',
  start: '2026-11-02T00:00:00Z',
  end: '2026-11-09T00:00:00+01:00',
  timezone: 'Europe/Paris',
  matching_conditions: matching,
  exclude_conditions: ['label=hotfix'],
});

const checkRun = () => ({
  speculative_check_pull_request: { number: 1042, in_place: false },
  checks_timed_out: false,
  checks_conclusion: 'success' as const,
  checks_started_at: '2026-11-01T09:01:00Z',
  checks_ended_at: '2026-11-01T09:11:00Z',
  unsuccessful_checks: [check()],
  pull_request_numbers: [41, 42],
  train_car_id: exampleIds.trainCar,
  session_id: exampleIds.session,
});

const queueRun = () => ({
  branch: 'main',
  partition_name: '__default__',
  priority_rule_name: 'default',
  queue_name: 'default',
  queued_at: queuedAt,
});

const command = () => ({ author: author(), comment_id: 555001, session_id: exampleIds.session });
const ciIssue = () => ({ ci_issue_id: exampleIds.ciIssue, name: 'Flaky integration test' });
const bisection = () => ({
  queue_name: 'default',
  partition_name: '__default__',
  priority_rule_name: 'default',
  original_batch_pr_numbers: [41, 42, 43],
});

type Examples = { [T in EventType]: () => EventMetadata<T> };

const examples: Examples = {
  'action.assign': () => ({ added: ['alice'], removed: ['bob'] }),
  'action.backport': () => ({ to: 'release/1.x', pull_request_number: 77, conflicts: false }),
  'action.close': () => ({ message: 'Closed by rule' }),
  'action.comment': () => ({ message: 'Hello' }),
  'action.copy': () => ({ to: 'release/2.x', pull_request_number: 78, conflicts: true }),
  'action.delete_head_branch': () => ({ branch: 'feature/x' }),
  'action.dismiss_reviews': () => ({ users: ['bob'] }),
  'action.edit': () => ({ draft: false }),
  'action.github_actions': () => ({ workflow: 'deploy.yml', inputs: { environment: 'staging' } }),
  'action.label': () => ({ added: ['ready'], removed: [] }),
  'action.merge': () => ({ branch: 'main' }),
  'action.post_check': () => ({ conclusion: 'success', title: 'Rule: default', summary: 'All good' }),
  'action.queue.batch_bisection_end': () => ({
    ...bisection(),
    culprit_found: true,
    culprit_pr_numbers: [42],
    remaining_pr_numbers: [41, 43],
    max_failure_resolution_reached: false,
    session_id: exampleIds.session,
  }),
  'action.queue.batch_bisection_start': () => ({
    ...bisection(),
    batch_size_before_split: 3,
    number_of_sub_batches: 2,
    bisection_depth: 1,
    is_top_level: true,
    session_id: exampleIds.session,
  }),
  'action.queue.change': () => ({
    queue_name: 'default',
    partition_name: '__default__',
    priority_rule_name: 'default',
    size: 3,
  }),
  'action.queue.checks.change': () => ({
    queue_name: 'default',
    partition_name: '__default__',
    running_checks: 2,
  }),
  'action.queue.checks_end': () => ({
    aborted: false,
    abort_code: null,
    abort_reason: null,
    abort_status: null,
    ...queueRun(),
    retry_attempt: 0,
    max_retries: 1,
    ...checkRun(),
    unsuccessful_checks: [],
  }),
  'action.queue.checks_not_started': () => ({
    ...queueRun(),
    reason: 'Draft pull request could not be created',
    session_id: exampleIds.session,
  }),
  'action.queue.checks_stalled': () => ({
    ...queueRun(),
    train_car_id: exampleIds.trainCar,
    checks_started_at: queuedAt,
    stalled_after_seconds: 900,
    missing_checks: [
      {
        name: 'ci',
        reported_on_pull_requests: [42],
        message: 'Check ci reports on pull request heads (#42) but never reported on the tested commit',
        next_action: 'Make the workflow that runs ci also run on the test branches',
      },
    ],
    session_id: exampleIds.session,
  }),
  'action.queue.checks_start': () => ({ ...queueRun(), start_reason: 'First time checks', ...checkRun() }),
  'action.queue.enter': () => ({
    queue_name: 'default',
    branch: 'main',
    queued_at: queuedAt,
    partition_name: '__default__',
    priority_rule_name: 'default',
    session_id: exampleIds.session,
  }),
  'action.queue.leave': () => ({
    reason: 'PR_MERGED: Pull request #42 has been merged',
    reason_code: 'merged',
    next_action: null,
    merged: true,
    queue_name: 'default',
    branch: 'main',
    partition_name: '__default__',
    queued_at: queuedAt,
    seconds_waiting_for_schedule: 0,
    seconds_waiting_for_freeze: 120,
    priority_rule_name: 'default',
    conditions_evaluation: conditionTree(),
    checks: [check()],
    pull_request_head_sha: 'a94a8fe5ccb19ba61c4c0873d391e987982fbbd3',
    session_id: exampleIds.session,
  }),
  'action.queue.merge_verified': () => ({
    branch: 'main',
    train_car_id: exampleIds.trainCar,
    batch_name: 'batch-1',
    pull_request_numbers: [42],
    outcome: 'equal',
    partial: false,
    tested_sha: 'a'.repeat(40),
    tested_tree: 'b'.repeat(40),
    landed_sha: 'c'.repeat(40),
    landed_tree: 'b'.repeat(40),
  }),
  'action.queue.merged': () => ({
    branch: 'main',
    partition_names: ['__default__'],
    queue_name: 'default',
    queued_at: queuedAt,
    priority_rule_name: 'default',
    session_id: exampleIds.session,
  }),
  'action.rebase': () => ({}),
  'action.refresh': () => ({}),
  'action.request_reviews': () => ({ reviewers: ['carol'], team_reviewers: ['octo-org/core'] }),
  'action.requeue': () => ({}),
  'action.review': () => ({ review_type: 'APPROVE', reviewer: 'carol', message: 'LGTM' }),
  'action.squash': () => ({}),
  'action.unqueue': () => ({}),
  'action.update': () => ({}),
  'ci_insights.job_retried': () => ({
    rule_id: exampleIds.retryRule,
    rule_name: 'Retry flaky jobs',
    max_retry: 2,
    retry_mode: 'job',
    retry_attempt: 1,
    condition_matches: [
      { type: 'job_name', pattern: '^integration', matched: 'integration (ubuntu)' },
      { type: 'log_pattern', pattern: 'ECONNRESET', excerpt: 'Error: read ECONNRESET' },
      { type: 'exit_code', code: 137 },
    ],
  }),
  'ci_issue.created': ciIssue,
  'ci_issue.linked': () => ({ ...ciIssue(), pull_request_number: 42 }),
  'ci_issue.merged': () => ({ ...ciIssue(), merged_into_ci_issue_id: exampleIds.otherCiIssue }),
  'ci_issue.renamed': () => ({ ...ciIssue(), previous_name: 'Integration test timeout' }),
  'ci_issue.reopened': ciIssue,
  'ci_issue.resolved': ciIssue,
  'ci_issue.unresolved': ciIssue,
  'command.dequeue': command,
  'command.queue': command,
  'command.requeue': command,
  'queue.pause.create': () => ({ reason: 'Incident', created_by: keyActor() }),
  'queue.pause.delete': () => ({ deleted_by: userActor() }),
  'queue.pause.update': () => ({ reason: 'Incident, still', updated_by: userActor() }),
  'scheduled_freeze.create': () => ({
    scheduled_freeze_attributes: freeze({ and: ['base=main'] }),
    created_by: userActor(),
    created_at: '2026-11-01T08:00:00Z',
  }),
  'scheduled_freeze.delete': () => ({
    scheduled_freeze_attributes: freeze(['base=main']),
    reason: 'Release done',
    deleted_by: keyActor(),
    deleted_at: '2026-11-05T08:00:00Z',
  }),
  'scheduled_freeze.update': () => ({
    scheduled_freeze_attributes_before: freeze(['base=main']),
    scheduled_freeze_attributes_after: { ...freeze({ or: ['base=main', 'base=release'] }), end: null },
    updated_by: userActor(),
    updated_at: '2026-11-03T08:00:00Z',
  }),
};

/** A valid, typical metadata of `type` (checks_end: passed; leave: merged). */
export function exampleMetadata<T extends EventType>(type: T): EventMetadata<T> {
  return examples[type]() as EventMetadata<T>;
}

/** More valid metadata of `type` with the nullable fields the typical one leaves null set. */
export function exampleMetadataVariants<T extends EventType>(type: T): EventMetadata<T>[] {
  const variants: EventMetadata<EventType>[] = [exampleMetadata(type)];
  if (type === 'action.queue.checks_end') {
    variants.push({
      ...exampleMetadata('action.queue.checks_end'),
      aborted: true,
      abort_code: 'CHECKS_FAILED',
      abort_reason: 'ci/test failed',
      abort_status: 'DEFINITIVE',
      checks_conclusion: 'failure',
      unsuccessful_checks: [check()],
    });
  }
  return variants as EventMetadata<T>[];
}

// Events about the whole queue or repository rather than one pull request.
const repositoryWide = new Set<EventType>([
  'queue.pause.create',
  'queue.pause.delete',
  'queue.pause.update',
  'scheduled_freeze.create',
  'scheduled_freeze.delete',
  'scheduled_freeze.update',
  'ci_issue.created',
  'ci_issue.merged',
  'ci_issue.renamed',
  'ci_issue.reopened',
  'ci_issue.resolved',
  'ci_issue.unresolved',
]);

/** A valid event to append, of `type`, with `overrides` applied. */
export function exampleNewEvent<T extends EventType>(
  type: T,
  overrides: Partial<Omit<NewEventOf<T>, 'type'>> = {},
): NewEventOf<T> {
  const wide = repositoryWide.has(type);
  return {
    type,
    metadata: exampleMetadata(type),
    trigger: wide ? 'API: pause by key "oncall"' : 'Rule: default',
    pull_request: wide ? null : 42,
    base_ref: wide ? null : 'main',
    received_at: '2026-11-01T10:00:00Z',
    ...overrides,
  } as unknown as NewEventOf<T>;
}

/** A valid event as `GET /logs` shows it, of `type`, with `overrides` applied. */
export function exampleEvent<T extends EventType>(
  type: T,
  overrides: Partial<Omit<EventOf<T>, 'type'>> = {},
): EventOf<T> {
  const added = exampleNewEvent(type);
  const metadata = (overrides.metadata ?? added.metadata) as EventMetadata<T>;
  return {
    id: 1,
    received_at: added.received_at ?? '2026-11-01T10:00:00Z',
    trigger: added.trigger,
    repository: 'octo-org/widgets',
    pull_request: added.pull_request,
    base_ref: added.base_ref,
    type,
    metadata,
    outcome: computeOutcome(type, metadata),
    ...overrides,
  } as unknown as EventOf<T>;
}
