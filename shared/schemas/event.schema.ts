import { z } from 'zod';
import { dateTimeSchema } from './common.schema.ts';
import {
  addedRemovedMetadataSchema,
  backportMetadataSchema,
  branchMetadataSchema,
  dismissReviewsMetadataSchema,
  editMetadataSchema,
  emptyMetadataSchema,
  githubActionsMetadataSchema,
  messageMetadataSchema,
  postCheckMetadataSchema,
  requestReviewsMetadataSchema,
  reviewMetadataSchema,
} from './event-action.schema.ts';
import {
  ciIssueLinkedMetadataSchema,
  ciIssueMergedMetadataSchema,
  ciIssueMetadataSchema,
  ciIssueRenamedMetadataSchema,
  jobRetriedMetadataSchema,
} from './event-ci.schema.ts';
import {
  commandMetadataSchema,
  freezeCreateMetadataSchema,
  freezeDeleteMetadataSchema,
  freezeUpdateMetadataSchema,
  pauseCreateMetadataSchema,
  pauseDeleteMetadataSchema,
  pauseUpdateMetadataSchema,
} from './event-control.schema.ts';
import {
  batchBisectionEndMetadataSchema,
  batchBisectionStartMetadataSchema,
  checksEndMetadataSchema,
  checksNotStartedMetadataSchema,
  checksStalledMetadataSchema,
  checksStartMetadataSchema,
  mergeVerifiedMetadataSchema,
  queueChangeMetadataSchema,
  queueChecksChangeMetadataSchema,
  queueEnterMetadataSchema,
  queueLeaveMetadataSchema,
  queueMergedMetadataSchema,
} from './event-queue.schema.ts';
import { type EventType, eventTypes } from './event-types.ts';

/**
 * The metadata schema of every event type (docs/api.md, "Event types and metadata"). Where
 * Mergify's v1 event log does not show the metadata: `action.requeue` has none,
 * `command.requeue` is shaped like `command.queue`, and `ci_issue.*` are described in
 * `event-ci.schema.ts`.
 */
export const eventMetadataSchemas = {
  'action.assign': addedRemovedMetadataSchema,
  'action.backport': backportMetadataSchema,
  'action.close': messageMetadataSchema,
  'action.comment': messageMetadataSchema,
  'action.copy': backportMetadataSchema,
  'action.delete_head_branch': branchMetadataSchema,
  'action.dismiss_reviews': dismissReviewsMetadataSchema,
  'action.edit': editMetadataSchema,
  'action.github_actions': githubActionsMetadataSchema,
  'action.label': addedRemovedMetadataSchema,
  'action.merge': branchMetadataSchema,
  'action.post_check': postCheckMetadataSchema,
  'action.queue.batch_bisection_end': batchBisectionEndMetadataSchema,
  'action.queue.batch_bisection_start': batchBisectionStartMetadataSchema,
  'action.queue.change': queueChangeMetadataSchema,
  'action.queue.checks.change': queueChecksChangeMetadataSchema,
  'action.queue.checks_end': checksEndMetadataSchema,
  'action.queue.checks_not_started': checksNotStartedMetadataSchema,
  'action.queue.checks_stalled': checksStalledMetadataSchema,
  'action.queue.checks_start': checksStartMetadataSchema,
  'action.queue.enter': queueEnterMetadataSchema,
  'action.queue.leave': queueLeaveMetadataSchema,
  'action.queue.merge_verified': mergeVerifiedMetadataSchema,
  'action.queue.merged': queueMergedMetadataSchema,
  'action.rebase': emptyMetadataSchema,
  'action.refresh': emptyMetadataSchema,
  'action.request_reviews': requestReviewsMetadataSchema,
  'action.requeue': emptyMetadataSchema,
  'action.review': reviewMetadataSchema,
  'action.squash': emptyMetadataSchema,
  'action.unqueue': emptyMetadataSchema,
  'action.update': emptyMetadataSchema,
  'ci_insights.job_retried': jobRetriedMetadataSchema,
  'ci_issue.created': ciIssueMetadataSchema,
  'ci_issue.linked': ciIssueLinkedMetadataSchema,
  'ci_issue.merged': ciIssueMergedMetadataSchema,
  'ci_issue.renamed': ciIssueRenamedMetadataSchema,
  'ci_issue.reopened': ciIssueMetadataSchema,
  'ci_issue.resolved': ciIssueMetadataSchema,
  'ci_issue.unresolved': ciIssueMetadataSchema,
  'command.dequeue': commandMetadataSchema,
  'command.queue': commandMetadataSchema,
  'command.requeue': commandMetadataSchema,
  'queue.pause.create': pauseCreateMetadataSchema,
  'queue.pause.delete': pauseDeleteMetadataSchema,
  'queue.pause.update': pauseUpdateMetadataSchema,
  'scheduled_freeze.create': freezeCreateMetadataSchema,
  'scheduled_freeze.delete': freezeDeleteMetadataSchema,
  'scheduled_freeze.update': freezeUpdateMetadataSchema,
} as const satisfies { [T in EventType]: z.ZodType };

export type EventMetadata<T extends EventType> = z.infer<(typeof eventMetadataSchemas)[T]>;

export const eventOutcomes = ['success', 'failure', 'pending', 'neutral'] as const;

export const eventOutcomeSchema = z
  .enum(eventOutcomes)
  .describe('How the event turned out for the pull request (computed from type and metadata)');

export type EventOutcome = z.infer<typeof eventOutcomeSchema>;

const triggerSchema = z.string().describe('What caused the event, e.g. `Rule: default`');
const pullRequestSchema = z.int().min(1).lt(2147483647).nullable().describe('Pull request number, or null');
const baseRefSchema = z.string().min(1).max(255).nullable().describe('Base ref of the pull request, or null');

/*
 * The response envelope is a plain (stripping) object, so a stored row never fails to
 * serialize because of a column the API does not show; metadata stays strict.
 */
function eventEnvelopeSchema<T extends EventType>(type: T) {
  return z
    .object({
      id: z.int().min(1).describe('Event id, strictly increasing in insertion order'),
      received_at: dateTimeSchema.describe('When the event was recorded'),
      trigger: triggerSchema,
      repository: z
        .string()
        .regex(/^[a-zA-Z0-9-]{1,40}\/[\w\-.]{1,100}$/, 'owner/name')
        .describe('Repository, `owner/name`'),
      pull_request: z.int().nullable().describe('Pull request number, or null'),
      base_ref: z.string().nullable().describe('Base ref of the pull request, or null'),
      type: z.literal(type),
      metadata: eventMetadataSchemas[type],
      outcome: eventOutcomeSchema,
    })
    .describe(`Event \`${type}\``);
}

/** The shape used to append an event (engine output, import lines): strict. */
function newEventVariantSchema<T extends EventType>(type: T) {
  return z
    .strictObject({
      type: z.literal(type),
      metadata: eventMetadataSchemas[type],
      trigger: triggerSchema.min(1).max(500),
      pull_request: pullRequestSchema,
      base_ref: baseRefSchema,
      received_at: dateTimeSchema
        .optional()
        .describe('When the event happened; the store uses now when absent'),
    })
    .describe(`New event \`${type}\``);
}

// One schema per type, in `eventTypes` order, typed as a tuple so that the unions below stay
// discriminated by `type` in TypeScript too.
type Envelopes<Ts extends readonly EventType[]> = {
  -readonly [K in keyof Ts]: ReturnType<typeof eventEnvelopeSchema<Ts[K] & EventType>>;
};
type NewEventVariants<Ts extends readonly EventType[]> = {
  -readonly [K in keyof Ts]: ReturnType<typeof newEventVariantSchema<Ts[K] & EventType>>;
};
type EnvelopeSchemas = Envelopes<typeof eventTypes>;
type NewEventVariantSchemas = NewEventVariants<typeof eventTypes>;

/** An event as `GET /logs` shows it, discriminated by `type`. */
export const eventSchema = z
  .discriminatedUnion('type', eventTypes.map(eventEnvelopeSchema) as unknown as EnvelopeSchemas)
  .describe('An event of the event log; `metadata` depends on `type`');

export type Event = z.infer<typeof eventSchema>;
export type EventOf<T extends EventType> = Extract<Event, { type: T }>;

/** An event to append; `received_at` defaults to now in the store. Unknown keys are rejected. */
export const newEventSchema = z
  .discriminatedUnion('type', eventTypes.map(newEventVariantSchema) as unknown as NewEventVariantSchemas)
  .describe('An event to append to the event log');

export type NewEvent = z.infer<typeof newEventSchema>;
export type NewEventOf<T extends EventType> = Extract<NewEvent, { type: T }>;
