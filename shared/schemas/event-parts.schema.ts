import { z } from 'zod';
import { dateTimeSchema, uuidSchema } from './common.schema.ts';

/*
 * Building blocks of event metadata (docs/api.md, "Event types and metadata"): enumerations
 * and the nested objects that several event types share. Objects are strict: an unknown field
 * is an error.
 */

/** A pull request number (GitHub numbers start at 1). */
export const pullRequestNumberSchema = z.int().min(1).describe('Pull request number');

/** A count or duration that cannot be negative. */
export const countSchema = z.int().min(0);

export const checkStates = [
  'failure',
  'error',
  'cancelled',
  'action_required',
  'timed_out',
  'pending',
  'neutral',
  'skipped',
  'stale',
  'success',
] as const;

export const checkStateSchema = z.enum(checkStates).describe('State of a queue check');

export const checksConclusions = [
  'success',
  'failure',
  'neutral',
  'cancelled',
  'skipped',
  'stale',
  'action_required',
  'timed_out',
  'error',
  'pending',
] as const;

export const checksConclusionSchema = z
  .enum(checksConclusions)
  .describe('Overall conclusion of the checks of a queue check run');

/** Why running checks were aborted: the 31 codes of Mergify's v1 event log. */
export const abortCodes = [
  'PR_DEQUEUED',
  'PR_DEQUEUED_FROM_PARTITION',
  'PR_AHEAD_DEQUEUED',
  'BATCH_AHEAD_FAILED',
  'PR_WITH_HIGHER_PRIORITY_QUEUED',
  'SCHEDULED_FREEZE_STATUS_CHANGED',
  'SPECULATIVE_CHECK_NUMBER_REDUCED',
  'CHECKS_TIMEOUT',
  'CHECKS_FAILED',
  'QUEUE_RULE_MISSING',
  'BASE_BRANCH_MISSING',
  'BASE_BRANCH_CHANGED',
  'PR_UNEXPECTEDLY_FAILED_TO_MERGE',
  'BATCH_MAX_FAILURE_RESOLUTION_ATTEMPTS',
  'PR_CHECKS_STOPPED_BECAUSE_MERGE_QUEUE_PAUSE',
  'CONFLICT_WITH_BASE_BRANCH',
  'CONFLICT_WITH_PULL_AHEAD',
  'BRANCH_UPDATE_FAILED',
  'DRAFT_PULL_REQUEST_CHANGED',
  'PULL_REQUEST_UPDATED',
  'MERGE_QUEUE_RESET',
  'INCOMPATIBILITY_WITH_BRANCH_PROTECTIONS',
  'PR_MANUALLY_MERGED',
  'DRAFT_PULL_REQUEST_CREATION_FAILED',
  'DRAFT_PULL_REQUEST_CREATION_BRANCH_NOT_INDEXED',
  'CONFIGURATION_CHANGED',
  'UNPROCESSABLE_PULL_REQUEST',
  'PR_MANUALLY_DEQUEUED',
  'STACK_PREDECESSOR_DEQUEUED',
  'INTERMEDIATE_RESULTS_SKIPPED',
  'CHECKS_RETRIED',
] as const;

export const abortCodeSchema = z.enum(abortCodes).describe('Why the checks were aborted');

export type AbortCode = z.infer<typeof abortCodeSchema>;

export const abortStatusSchema = z
  .enum(['DEFINITIVE', 'REEMBARKED'])
  .describe('DEFINITIVE: the pull request left the queue; REEMBARKED: it went back to waiting');

export const retryModeSchema = z
  .enum(['job', 'pipeline'])
  .describe('Whether the failed job alone or the whole pipeline is retried');

/** An account of the code host (Mergify's `VcsAccount`): here always GitHub (docs/api.md). */
export const githubAccountSchema = z
  .strictObject({
    login: z.string().describe('GitHub login'),
    id: z.int().describe('GitHub account id'),
    type: z.enum(['User', 'Organization', 'Bot', 'Mannequin', 'Enterprise']).describe('GitHub account type'),
  })
  .describe('A GitHub account');

export const actorSchema = z
  .strictObject({
    type: z.enum(['application', 'user']).describe('An application key or a user'),
    id: z.union([z.int(), uuidSchema]).describe('Integer id (user) or uuid (application key)'),
    name: z.string().describe('Display name of the actor'),
  })
  .describe('Who performed an operation');

/** Who performed an operation: an API key or a user. The one definition (the engine's inputs, the API, the pause record use it). */
export type Actor = z.infer<typeof actorSchema>;

/** A check as the queue's events show it (Mergify's `QueueCheck_Serialized`). */
export const checkSchema = z
  .strictObject({
    name: z.string().describe('Check name'),
    description: z.string().describe('Check description'),
    url: z.string().nullable().describe('Link to the check details'),
    state: checkStateSchema,
    avatar_url: z.string().nullable().describe('Avatar of the app that reported the check'),
  })
  .describe('A check (check run or commit status) on a queue check run');

export type Check = z.infer<typeof checkSchema>;

/** A conditions dictionary: Mergify's v1 event log leaves its shape open. */
const conditionsDictionarySchema = z.record(z.string(), z.unknown()).describe('Conditions dictionary');

/**
 * The evaluation of a condition, a tree (Mergify's `QueueConditionEvaluationResult_Serialized`).
 * Mergify does not show the shapes of `schedule` and of the items of `evaluations`: any JSON
 * object is accepted.
 */
export const conditionEvaluationSchema = z
  .strictObject({
    match: z.boolean().describe('Whether the condition holds'),
    label: z.string().describe('The condition as written'),
    is_label_user_input: z.boolean().describe('Whether the label was written by a user'),
    description: z.string().nullable().describe('Human description of the condition'),
    attribute_name: z.string().nullable().describe('Attribute tested (leaf conditions)'),
    operator: z.string().nullable().describe('Operator used (leaf conditions)'),
    schedule: z.record(z.string(), z.unknown()).nullable().describe('Schedule of a schedule condition'),
    get subconditions() {
      return z.array(conditionEvaluationSchema).describe('Nested conditions (and, or, not)');
    },
    evaluations: z
      .array(z.record(z.string(), z.unknown()))
      .describe('Per pull request evaluations (shape not fixed)'),
  })
  .describe('Result of evaluating a condition, with its subconditions')
  .meta({ id: 'ConditionEvaluation' });

export type ConditionEvaluation = z.infer<typeof conditionEvaluationSchema>;

const freezeConditionsSchema = z
  .union([conditionsDictionarySchema, z.array(z.string())])
  .describe('A conditions dictionary or a list of conditions');

/** A scheduled freeze as its events show it (Mergify's `ScheduledFreezeEventLogAttributes`). */
export const freezeAttributesSchema = z
  .strictObject({
    reason: z.string().describe('Why the queue is frozen'),
    start: dateTimeSchema.describe('Start of the freeze'),
    end: dateTimeSchema.nullable().describe('End of the freeze; null when open-ended'),
    timezone: z.string().describe('IANA time zone of the freeze'),
    matching_conditions: freezeConditionsSchema.describe('Pull requests the freeze applies to'),
    exclude_conditions: freezeConditionsSchema.describe('Pull requests exempt from the freeze'),
  })
  .describe('Attributes of a scheduled freeze');
