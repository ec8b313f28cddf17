import fc from 'fast-check';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  type Event,
  type EventMetadata,
  type EventOf,
  eventMetadataSchemas,
  eventSchema,
  type NewEventOf,
  newEventSchema,
} from '../../shared/schemas/event.schema.ts';
import {
  computeOutcome,
  failureLeaveCodes,
  type LeaveCode,
  leaveCodes,
  leaveReasonCode,
  renderLeaveReason,
} from '../../shared/schemas/event-outcome.ts';
import {
  abortCodeSchema,
  abortCodes,
  actorSchema,
  checkStates,
  checksConclusions,
} from '../../shared/schemas/event-parts.schema.ts';
import { type EventType, eventTypeSchema, eventTypes } from '../../shared/schemas/event-types.ts';
import {
  exampleEvent,
  exampleIds,
  exampleMetadata,
  exampleMetadataVariants,
  exampleNewEvent,
} from '../support/event-examples.ts';

// The `event_type` filter list of Mergify's v1 event log, verbatim, with `vcs` spelled `github`
// (the code host is GitHub: docs/api.md).
const filterListTypes =
  'action.assign, action.backport, action.close, action.comment, action.copy, action.delete_head_branch, action.dismiss_reviews, action.edit, action.vcs_actions, action.label, action.merge, action.post_check, action.queue.batch_bisection_end, action.queue.batch_bisection_start, action.queue.change, action.queue.checks.change, action.queue.checks_end, action.queue.checks_not_started, action.queue.checks_start, action.queue.enter, action.queue.leave, action.queue.merged, action.rebase, action.refresh, action.request_reviews, action.requeue, action.review, action.squash, action.unqueue, action.update, ci_insights.job_retried, ci_issue.created, ci_issue.linked, ci_issue.merged, ci_issue.renamed, ci_issue.reopened, ci_issue.resolved, ci_issue.unresolved, command.dequeue, command.queue, command.requeue, queue.pause.create, queue.pause.delete, queue.pause.update, scheduled_freeze.create, scheduled_freeze.delete, scheduled_freeze.update'
    .replace('action.vcs_actions', 'action.github_actions')
    .split(', ');

const checkRun =
  'speculative_check_pull_request checks_timed_out checks_conclusion checks_started_at checks_ended_at unsuccessful_checks pull_request_numbers train_car_id session_id';
const queueRun = 'branch partition_name priority_rule_name queue_name queued_at';
const ciIssue = 'ci_issue_id name';
const command = 'author comment_id session_id';

// The metadata of each type in Mergify's v1 event log, field by field (where it shows none: our
// choice, docs/api.md "Event types and metadata").
const metadataFields: Record<EventType, string> = {
  'action.assign': 'added removed',
  'action.backport': 'to pull_request_number conflicts',
  'action.close': 'message',
  'action.comment': 'message',
  'action.copy': 'to pull_request_number conflicts',
  'action.delete_head_branch': 'branch',
  'action.dismiss_reviews': 'users',
  'action.edit': 'draft',
  'action.github_actions': 'workflow inputs',
  'action.label': 'added removed',
  'action.merge': 'branch',
  'action.post_check': 'conclusion title summary',
  'action.queue.batch_bisection_end':
    'queue_name partition_name priority_rule_name original_batch_pr_numbers culprit_found culprit_pr_numbers remaining_pr_numbers max_failure_resolution_reached session_id',
  'action.queue.batch_bisection_start':
    'queue_name partition_name priority_rule_name original_batch_pr_numbers batch_size_before_split number_of_sub_batches bisection_depth is_top_level session_id',
  'action.queue.change': 'queue_name partition_name priority_rule_name size',
  'action.queue.checks.change': 'queue_name partition_name running_checks',
  'action.queue.checks_end': `aborted abort_code abort_reason abort_status ${queueRun} retry_attempt max_retries ${checkRun}`,
  'action.queue.checks_not_started': `${queueRun} reason session_id`,
  'action.queue.checks_stalled': `${queueRun} train_car_id checks_started_at stalled_after_seconds missing_checks session_id`,
  'action.queue.checks_start': `${queueRun} start_reason ${checkRun}`,
  'action.queue.enter': 'queue_name branch queued_at partition_name priority_rule_name session_id',
  'action.queue.leave':
    'reason reason_code next_action merged queue_name branch partition_name queued_at seconds_waiting_for_schedule seconds_waiting_for_freeze priority_rule_name conditions_evaluation checks pull_request_head_sha session_id',
  'action.queue.merge_verified':
    'branch train_car_id batch_name pull_request_numbers outcome partial tested_sha tested_tree landed_sha landed_tree',
  'action.queue.merged': 'branch partition_names queue_name queued_at priority_rule_name session_id',
  'action.rebase': '',
  'action.refresh': '',
  'action.request_reviews': 'reviewers team_reviewers',
  'action.requeue': '',
  'action.review': 'review_type reviewer message',
  'action.squash': '',
  'action.unqueue': '',
  'action.update': '',
  'ci_insights.job_retried': 'rule_id rule_name max_retry retry_mode retry_attempt condition_matches',
  'ci_issue.created': ciIssue,
  'ci_issue.linked': `${ciIssue} pull_request_number`,
  'ci_issue.merged': `${ciIssue} merged_into_ci_issue_id`,
  'ci_issue.renamed': `${ciIssue} previous_name`,
  'ci_issue.reopened': ciIssue,
  'ci_issue.resolved': ciIssue,
  'ci_issue.unresolved': ciIssue,
  'command.dequeue': command,
  'command.queue': command,
  'command.requeue': command,
  'queue.pause.create': 'reason created_by',
  'queue.pause.delete': 'deleted_by',
  'queue.pause.update': 'reason updated_by',
  'scheduled_freeze.create': 'scheduled_freeze_attributes created_by created_at',
  'scheduled_freeze.delete': 'scheduled_freeze_attributes reason deleted_by deleted_at',
  'scheduled_freeze.update':
    'scheduled_freeze_attributes_before scheduled_freeze_attributes_after updated_by updated_at',
};

// Fields that may be null ("or null" in Mergify's v1 event log, and our choices), as paths:
// `a.b`, `list[].field`.
const conditionNullables = (at: string) =>
  ['description', 'attribute_name', 'operator', 'schedule'].map((f) => `${at}.${f}`);
const checkRunNullables = [
  'checks_started_at',
  'checks_ended_at',
  'train_car_id',
  'unsuccessful_checks[].url',
  'unsuccessful_checks[].avatar_url',
];
// Ours beyond Mergify's fields, optional because events stored before them lack them.
const optionalFields: Partial<Record<EventType, string[]>> = {
  'action.queue.leave': ['reason_code', 'next_action'],
};

const nullableFields: Partial<Record<EventType, string[]>> = {
  'action.review': ['reviewer', 'message'],
  'action.queue.batch_bisection_end': ['priority_rule_name'],
  'action.queue.batch_bisection_start': ['priority_rule_name'],
  'action.queue.change': ['priority_rule_name'],
  'action.queue.checks_not_started': ['partition_name', 'priority_rule_name'],
  'action.queue.checks_stalled': ['priority_rule_name'],
  'action.queue.checks_start': ['partition_name', 'priority_rule_name', ...checkRunNullables],
  'action.queue.checks_end': [
    'abort_code',
    'abort_reason',
    'abort_status', // our decision: null when not aborted
    'priority_rule_name',
    'retry_attempt',
    'max_retries',
    ...checkRunNullables,
  ],
  'action.queue.enter': ['partition_name', 'priority_rule_name'],
  'action.queue.leave': [
    'next_action',
    'priority_rule_name',
    'conditions_evaluation',
    ...conditionNullables('conditions_evaluation'),
    ...conditionNullables('conditions_evaluation.subconditions[]'),
    'checks[].url',
    'checks[].avatar_url',
    'session_id',
  ],
  'action.queue.merge_verified': ['tested_tree'],
  'action.queue.merged': ['priority_rule_name'],
  'command.dequeue': ['session_id'],
  'command.queue': ['session_id'],
  'command.requeue': ['session_id'],
  'scheduled_freeze.create': ['scheduled_freeze_attributes.end'],
  'scheduled_freeze.delete': ['scheduled_freeze_attributes.end'],
  'scheduled_freeze.update': [
    'scheduled_freeze_attributes_before.end',
    'scheduled_freeze_attributes_after.end',
  ],
};

// Values whose keys are free (records): their contents are not walked.
const freeForm = new Set(['inputs', 'schedule', 'evaluations', 'matching_conditions', 'exclude_conditions']);

type Path = (string | number)[];

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every key of every nested object (`fields`) and every nested object (`objects`). */
function walk(value: unknown, path: Path = [], out = { fields: [] as Path[], objects: [] as Path[] }) {
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) walk(item, [...path, i], out);
  } else if (isPlainObject(value)) {
    out.objects.push(path);
    for (const [key, child] of Object.entries(value)) {
      out.fields.push([...path, key]);
      if (!freeForm.has(key)) walk(child, [...path, key], out);
    }
  }
  return out;
}

const label = (path: Path) =>
  path
    .map((p) => (typeof p === 'number' ? '[]' : `.${p}`))
    .join('')
    .slice(1);

function changed(value: unknown, path: Path, change: (parent: Record<string, unknown>, key: string) => void) {
  const copy = structuredClone(value);
  let parent: unknown = copy;
  for (const step of path.slice(0, -1)) parent = (parent as Record<string | number, unknown>)[step];
  change(parent as Record<string, unknown>, path.at(-1) as string);
  return copy;
}

const parses = (type: EventType, metadata: unknown) =>
  (eventMetadataSchemas[type] as z.ZodType).safeParse(metadata).success;

describe('event types', () => {
  it('are the 47 types of the event_type filter, in its order, with action.github_actions, and ours', () => {
    // Ours beyond Mergify's list: the stall doctor's event (docs/api.md, "Reasons") and merge integrity's.
    const ours = ['action.queue.checks_stalled', 'action.queue.merge_verified'];
    expect(eventTypes).toHaveLength(47 + ours.length);
    expect(eventTypes.filter((type) => !ours.includes(type))).toEqual(filterListTypes);
    expect(new Set(eventTypes).size).toBe(47 + ours.length);
  });

  it('have one metadata schema each, and no other', () => {
    expect(Object.keys(eventMetadataSchemas)).toEqual([...eventTypes]);
  });

  it('reject an unlisted type, and the vcs placeholder', () => {
    expect(eventTypeSchema.safeParse('action.vcs_actions').success).toBe(false);
    expect(eventTypeSchema.safeParse('action.queue.unknown').success).toBe(false);
    expect(eventTypeSchema.safeParse('action.queue.enter').success).toBe(true);
  });
});

describe('enumerations', () => {
  it('have exactly the documented values', () => {
    expect(checkStates).toHaveLength(10);
    expect(checksConclusions).toHaveLength(10);
    expect(abortCodes).toHaveLength(31);
    expect(new Set(abortCodes).size).toBe(31);
    expect(abortCodeSchema.safeParse('CHECKS_RETRIED').success).toBe(true);
    expect(abortCodeSchema.safeParse('checks_retried').success).toBe(false);
  });

  it('actor ids are integers or uuids', () => {
    const actor = { type: 'user', id: 7, name: 'alice' };
    expect(actorSchema.safeParse(actor).success).toBe(true);
    expect(actorSchema.safeParse({ ...actor, type: 'application', id: exampleIds.apiKey }).success).toBe(
      true,
    );
    expect(actorSchema.safeParse({ ...actor, id: 'alice' }).success).toBe(false);
    expect(actorSchema.safeParse({ ...actor, id: 7.5 }).success).toBe(false);
    expect(actorSchema.safeParse({ ...actor, type: 'bot' }).success).toBe(false);
  });
});

describe.each(eventTypes)('metadata of %s', (type) => {
  const variants = exampleMetadataVariants(type);
  const expectedNullable = new Set(nullableFields[type] ?? []);

  it('has exactly the listed fields', () => {
    const shape = (eventMetadataSchemas[type] as unknown as z.ZodObject).shape;
    const expected = metadataFields[type].split(' ').filter(Boolean);
    expect(Object.keys(shape).sort()).toEqual([...expected].sort());
    expect(Object.keys(exampleMetadata(type)).sort()).toEqual([...expected].sort());
  });

  it('accepts the examples', () => {
    for (const metadata of variants) {
      expect((eventMetadataSchemas[type] as z.ZodType).parse(metadata)).toEqual(metadata);
    }
  });

  it('rejects each required field removed', () => {
    for (const metadata of variants) {
      for (const path of walk(metadata).fields) {
        if (optionalFields[type]?.includes(label(path))) continue;
        const without = changed(metadata, path, (parent, key) => {
          delete parent[key];
        });
        expect(parses(type, without), `without ${label(path)}`).toBe(false);
      }
    }
  });

  it('rejects an unknown field in any object', () => {
    for (const metadata of variants) {
      for (const path of walk(metadata).objects) {
        const extended = structuredClone(metadata) as unknown;
        let target = extended;
        for (const step of path) target = (target as Record<string | number, unknown>)[step];
        (target as Record<string, unknown>).unexpected = 1;
        expect(parses(type, extended), `unknown field in ${label(path) || 'metadata'}`).toBe(false);
      }
    }
  });

  it('accepts null exactly where a field is listed as nullable', () => {
    const seen = new Set<string>();
    for (const metadata of variants) {
      for (const path of walk(metadata).fields) {
        seen.add(label(path));
        const nulled = changed(metadata, path, (parent, key) => {
          parent[key] = null;
        });
        expect(parses(type, nulled), `${label(path)} = null`).toBe(expectedNullable.has(label(path)));
      }
    }
    // Every expected nullable field was reached by an example.
    expect([...expectedNullable].filter((p) => !seen.has(p))).toEqual([]);
  });

  it('is accepted in an event to append and in an API event', () => {
    expect(newEventSchema.parse(exampleNewEvent(type))).toEqual(exampleNewEvent(type));
    expect(eventSchema.parse(exampleEvent(type))).toEqual(exampleEvent(type));
  });
});

describe('metadata details', () => {
  it('dates need an offset; integers are integers', () => {
    const enter = exampleMetadata('action.queue.enter');
    expect(parses('action.queue.enter', { ...enter, queued_at: '2026-11-01T09:00:00+02:00' })).toBe(true);
    expect(parses('action.queue.enter', { ...enter, queued_at: '2026-11-01T09:00:00' })).toBe(false);
    expect(parses('action.queue.enter', { ...enter, queued_at: '2026-11-01' })).toBe(false);
    expect(parses('action.queue.enter', { ...enter, session_id: 'not-a-uuid' })).toBe(false);
    const change = exampleMetadata('action.queue.change');
    expect(parses('action.queue.change', { ...change, size: 1.5 })).toBe(false);
    expect(parses('action.queue.change', { ...change, size: -1 })).toBe(false);
  });

  it('checks_end accepts every abort code and rejects others', () => {
    const end = exampleMetadataVariants('action.queue.checks_end')[1]!;
    for (const code of abortCodes)
      expect(parses('action.queue.checks_end', { ...end, abort_code: code })).toBe(true);
    expect(parses('action.queue.checks_end', { ...end, abort_code: 'PR_MERGED' })).toBe(false);
    expect(parses('action.queue.checks_end', { ...end, abort_status: 'LATER' })).toBe(false);
    expect(parses('action.queue.checks_end', { ...end, checks_conclusion: 'ok' })).toBe(false);
  });

  it('condition evaluations nest to any depth', () => {
    const leave = exampleMetadata('action.queue.leave');
    const tree = leave.conditions_evaluation!;
    const deep = { ...tree, subconditions: [{ ...tree, subconditions: [{ ...tree, subconditions: [] }] }] };
    expect(parses('action.queue.leave', { ...leave, conditions_evaluation: deep })).toBe(true);
    const bad = { ...tree, subconditions: [{ ...tree, subconditions: [{ ...tree, match: 'yes' }] }] };
    expect(parses('action.queue.leave', { ...leave, conditions_evaluation: bad })).toBe(false);
    expect(
      parses('action.queue.leave', { ...leave, conditions_evaluation: { ...tree, evaluations: [1] } }),
    ).toBe(false);
  });

  it('freeze conditions are a dictionary or a list of strings', () => {
    const create = exampleMetadata('scheduled_freeze.create');
    const withConditions = (matching: unknown) => ({
      ...create,
      scheduled_freeze_attributes: { ...create.scheduled_freeze_attributes, matching_conditions: matching },
    });
    expect(parses('scheduled_freeze.create', withConditions({ and: ['base=main'] }))).toBe(true);
    expect(parses('scheduled_freeze.create', withConditions(['base=main']))).toBe(true);
    expect(parses('scheduled_freeze.create', withConditions([1]))).toBe(false);
    expect(parses('scheduled_freeze.create', withConditions('base=main'))).toBe(false);
  });

  it('condition matches take one of three shapes', () => {
    const retried = exampleMetadata('ci_insights.job_retried');
    const withMatch = (match: unknown) => ({ ...retried, condition_matches: [match] });
    expect(parses('ci_insights.job_retried', withMatch({ type: 'exit_code', code: 1 }))).toBe(true);
    expect(
      parses('ci_insights.job_retried', withMatch({ type: 'exit_code', pattern: 'x', matched: 'y' })),
    ).toBe(false);
    expect(parses('ci_insights.job_retried', withMatch({ type: 'other' }))).toBe(false);
    expect(parses('ci_insights.job_retried', { ...retried, retry_mode: 'step' })).toBe(false);
  });
});

describe('new events', () => {
  const base = exampleNewEvent('action.queue.enter');
  const accepts = (value: unknown) => newEventSchema.safeParse(value).success;

  it('received_at is optional and needs an offset', () => {
    const { received_at: _, ...withoutTime } = base;
    expect(accepts(withoutTime)).toBe(true);
    expect(accepts({ ...base, received_at: '2026-11-01T12:00:00+02:00' })).toBe(true);
    expect(accepts({ ...base, received_at: '2026-11-01 12:00' })).toBe(false);
  });

  it('rejects unknown keys, unknown types and metadata of another type', () => {
    expect(accepts({ ...base, id: 3 })).toBe(false);
    expect(accepts({ ...base, outcome: 'success' })).toBe(false);
    expect(accepts({ ...base, type: 'action.queue.unknown' })).toBe(false);
    expect(accepts({ ...base, type: 'action.queue.merged' })).toBe(false);
    expect(accepts({ ...base, metadata: exampleMetadata('action.queue.merged') })).toBe(false);
  });

  it('bounds trigger, pull_request and base_ref', () => {
    expect(accepts({ ...base, trigger: '' })).toBe(false);
    expect(accepts({ ...base, trigger: 'x'.repeat(500) })).toBe(true);
    expect(accepts({ ...base, trigger: 'x'.repeat(501) })).toBe(false);
    expect(accepts({ ...base, pull_request: null })).toBe(true);
    expect(accepts({ ...base, pull_request: 0 })).toBe(false);
    expect(accepts({ ...base, pull_request: 2147483646 })).toBe(true);
    expect(accepts({ ...base, pull_request: 2147483647 })).toBe(false);
    expect(accepts({ ...base, base_ref: null })).toBe(true);
    expect(accepts({ ...base, base_ref: '' })).toBe(false);
    expect(accepts({ ...base, base_ref: 'r'.repeat(255) })).toBe(true);
    expect(accepts({ ...base, base_ref: 'r'.repeat(256) })).toBe(false);
  });

  it('requires every other field', () => {
    for (const key of ['type', 'metadata', 'trigger', 'pull_request', 'base_ref'] as const) {
      const { [key]: _, ...without } = base;
      expect(accepts(without), `without ${key}`).toBe(false);
    }
  });
});

describe('API events', () => {
  const base = exampleEvent('action.queue.leave');
  const accepts = (value: unknown) => eventSchema.safeParse(value).success;

  it('require every envelope field and an outcome', () => {
    for (const key of Object.keys(base)) {
      const without: Record<string, unknown> = { ...base };
      delete without[key];
      expect(accepts(without), `without ${key}`).toBe(false);
    }
    expect(accepts({ ...base, outcome: 'unknown' })).toBe(false);
    expect(accepts({ ...base, repository: 'widgets' })).toBe(false);
  });

  it("keep the envelope's field order and drop columns the API does not show", () => {
    const parsed = eventSchema.parse({ ...base, repository_id: '12' });
    expect(Object.keys(parsed)).toEqual([
      'id',
      'received_at',
      'trigger',
      'repository',
      'pull_request',
      'base_ref',
      'type',
      'metadata',
      'outcome',
    ]);
  });

  it('reject metadata with unknown fields', () => {
    expect(accepts({ ...base, metadata: { ...base.metadata, extra: true } })).toBe(false);
  });
});

describe('JSON Schema (OpenAPI)', () => {
  it('converts the API event with io output', () => {
    const schema = z.toJSONSchema(eventSchema, { io: 'output' });
    const variants = (schema.oneOf ?? schema.anyOf) as unknown[];
    expect(variants).toHaveLength(49);
    expect(JSON.stringify(schema)).toContain('action.github_actions');
  });

  it('converts the event to append with io input', () => {
    const schema = z.toJSONSchema(newEventSchema, { io: 'input' });
    expect((schema.oneOf ?? schema.anyOf) as unknown[]).toHaveLength(49);
  });
});

describe('leave reasons', () => {
  it('start with a leave code, alone or followed by ": "', () => {
    expect(leaveReasonCode('CHECKS_FAILED: 2 required checks failed')).toBe('CHECKS_FAILED');
    expect(leaveReasonCode('PR_MERGED')).toBe('PR_MERGED');
    expect(leaveReasonCode('Checks failed')).toBeNull();
    expect(leaveReasonCode('checks_failed: x')).toBeNull();
    expect(leaveReasonCode('CHECKS_FAILEDX: x')).toBeNull();
    expect(leaveReasonCode('CHECKS_FAILED:x')).toBeNull();
    expect(leaveReasonCode('NOT_A_CODE: x')).toBeNull();
    expect(leaveReasonCode('')).toBeNull();
  });

  it('round-trip through renderLeaveReason', () => {
    fc.assert(
      fc.property(fc.constantFrom(...leaveCodes), fc.string(), (code, detail) => {
        expect(leaveReasonCode(renderLeaveReason(code, detail))).toBe(code);
      }),
    );
    expect(renderLeaveReason('CHECKS_TIMEOUT', 'after 1h')).toBe('CHECKS_TIMEOUT: after 1h');
    expect(renderLeaveReason('PR_MERGED')).toBe('PR_MERGED');
  });

  it('never throw on any text', () => {
    fc.assert(
      fc.property(
        fc.string(),
        (reason) => leaveReasonCode(reason) === null || leaveCodes.includes(leaveReasonCode(reason)!),
      ),
    );
  });
});

describe('outcome', () => {
  const checksEnd = (change: Partial<EventMetadata<'action.queue.checks_end'>>) =>
    computeOutcome('action.queue.checks_end', { ...exampleMetadata('action.queue.checks_end'), ...change });
  const leave = (merged: boolean, reason: string) =>
    computeOutcome('action.queue.leave', { ...exampleMetadata('action.queue.leave'), merged, reason });

  it('success: merged, leave merged, checks passed, post_check success', () => {
    expect(computeOutcome('action.queue.merged', exampleMetadata('action.queue.merged'))).toBe('success');
    expect(leave(true, 'PR_MERGED')).toBe('success');
    expect(leave(true, 'anything')).toBe('success');
    expect(checksEnd({})).toBe('success');
    expect(computeOutcome('action.post_check', exampleMetadata('action.post_check'))).toBe('success');
  });

  it('checks_end: failed or timed out is a failure, an abort otherwise neutral', () => {
    expect(checksEnd({ checks_conclusion: 'failure' })).toBe('failure');
    expect(checksEnd({ checks_conclusion: 'timed_out' })).toBe('failure');
    expect(checksEnd({ checks_conclusion: 'error' })).toBe('failure');
    expect(checksEnd({ checks_timed_out: true })).toBe('failure');
    const abort = {
      aborted: true,
      abort_status: 'DEFINITIVE' as const,
      checks_conclusion: 'cancelled' as const,
    };
    expect(checksEnd({ ...abort, abort_code: 'CHECKS_FAILED' })).toBe('failure');
    expect(checksEnd({ ...abort, abort_code: 'CHECKS_TIMEOUT' })).toBe('failure');
    expect(checksEnd({ ...abort, abort_code: 'CHECKS_RETRIED', checks_conclusion: 'failure' })).toBe(
      'failure',
    );
    expect(checksEnd({ ...abort, abort_code: 'PR_WITH_HIGHER_PRIORITY_QUEUED' })).toBe('neutral');
    expect(
      checksEnd({
        ...abort,
        abort_code: 'PR_CHECKS_STOPPED_BECAUSE_MERGE_QUEUE_PAUSE',
        checks_conclusion: 'success',
      }),
    ).toBe('neutral');
    expect(checksEnd({ checks_conclusion: 'pending' })).toBe('neutral');
    expect(checksEnd({ checks_conclusion: 'neutral' })).toBe('neutral');
  });

  it('checks_end follows the rule for any combination', () => {
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.option(fc.constantFrom(...abortCodes)),
        fc.constantFrom(...checksConclusions),
        fc.boolean(),
        (aborted, abort_code, checks_conclusion, checks_timed_out) => {
          const failed =
            checks_timed_out ||
            ['failure', 'timed_out', 'error'].includes(checks_conclusion) ||
            abort_code === 'CHECKS_FAILED' ||
            abort_code === 'CHECKS_TIMEOUT';
          const passed = !aborted && checks_conclusion === 'success';
          const expected = failed ? 'failure' : passed ? 'success' : 'neutral';
          expect(checksEnd({ aborted, abort_code, checks_conclusion, checks_timed_out })).toBe(expected);
        },
      ),
    );
  });

  it('leave without merging: failure for a failure code, else neutral', () => {
    for (const code of failureLeaveCodes)
      expect(leave(false, renderLeaveReason(code, 'details'))).toBe('failure');
    expect(leave(false, 'CHECKS_FAILED')).toBe('failure');
    expect(leave(false, 'PR_MANUALLY_DEQUEUED: dequeued by @alice')).toBe('neutral');
    expect(leave(false, 'PR_MANUALLY_MERGED')).toBe('neutral');
    expect(leave(false, 'QUEUE_RULE_MISSING: rule removed')).toBe('neutral');
    expect(leave(false, 'Checks failed')).toBe('neutral');
    const failures: LeaveCode[] = ['CHECKS_FAILED', 'CHECKS_TIMEOUT', 'CONFLICT_WITH_BASE_BRANCH'];
    for (const code of failures) expect(failureLeaveCodes.has(code)).toBe(true);
    expect(failureLeaveCodes.has('PR_MERGED')).toBe(false);
  });

  it('failure: checks_not_started, bisection with a culprit', () => {
    const notStarted = exampleMetadata('action.queue.checks_not_started');
    expect(computeOutcome('action.queue.checks_not_started', notStarted)).toBe('failure');
    const end = exampleMetadata('action.queue.batch_bisection_end');
    expect(computeOutcome('action.queue.batch_bisection_end', end)).toBe('failure');
    expect(computeOutcome('action.queue.batch_bisection_end', { ...end, culprit_found: false })).toBe(
      'neutral',
    );
  });

  it('post_check other than success is neutral', () => {
    const post = exampleMetadata('action.post_check');
    expect(computeOutcome('action.post_check', { ...post, conclusion: 'failure' })).toBe('neutral');
    expect(computeOutcome('action.post_check', { ...post, conclusion: 'SUCCESS' })).toBe('neutral');
  });

  it('pending: enter, checks_start, bisection start; every other type neutral', () => {
    const pending: EventType[] = [
      'action.queue.enter',
      'action.queue.checks_start',
      'action.queue.batch_bisection_start',
    ];
    const ruled: EventType[] = [
      ...pending,
      'action.queue.merged',
      'action.queue.leave',
      'action.queue.checks_end',
      'action.post_check',
      'action.queue.checks_not_started',
      'action.queue.batch_bisection_end',
    ];
    for (const type of pending) expect(computeOutcome(type, exampleMetadata(type))).toBe('pending');
    const others = eventTypes.filter((t) => !ruled.includes(t));
    expect(others).toHaveLength(40);
    for (const type of others) expect(computeOutcome(type, exampleMetadata(type)), type).toBe('neutral');
  });
});

describe('types', () => {
  it('infer precise metadata and events', () => {
    expectTypeOf<z.infer<(typeof eventMetadataSchemas)['action.queue.enter']>>().toEqualTypeOf<{
      queue_name: string;
      branch: string;
      queued_at: string;
      partition_name: string | null;
      priority_rule_name: string | null;
      session_id: string;
    }>();
    expectTypeOf<Event['type']>().toEqualTypeOf<EventType>();
    expectTypeOf<EventOf<'action.queue.leave'>['metadata']['merged']>().toEqualTypeOf<boolean>();
    expectTypeOf<NewEventOf<'command.queue'>['metadata']['author']['type']>().toEqualTypeOf<
      'User' | 'Organization' | 'Bot' | 'Mannequin' | 'Enterprise'
    >();
    expectTypeOf<NewEventOf<'action.rebase'>['received_at']>().toEqualTypeOf<string | undefined>();
  });
});
