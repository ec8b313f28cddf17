import { z } from 'zod';
import { dateTimeSchema, integerQuery, repoParamsSchema, storableText } from './common.schema.ts';
import { checkSchema } from './event-parts.schema.ts';
import { queueReasonSchema } from './queue-reason.schema.ts';

/*
 * One queued pull request, Mergify's v1 shapes (docs/api.md, "One pull request"): its place in
 * the queue and its checks (`MergeQueuePullRequest`), what dequeuing it would cost
 * (`MergeQueueDequeueImpact`), and the path that names it.
 */

export const pullRequestParamsSchema = repoParamsSchema.extend({
  pr_number: integerQuery(1, 2_147_483_647).describe('Pull request number (1 to 2147483646)'),
});

/** An evaluation of one pull request at one node of a conditions tree. */
export const pullConditionEvaluationSchema = z.object({
  pull_request: z.int().min(1),
  match: z.boolean(),
  evaluation_error: z.string().nullable(),
  related_checks: z.array(z.string()).describe('Checks the condition reads'),
  next_evaluation_at: dateTimeSchema.nullable().describe('When a schedule changes the answer next'),
});

export interface ConditionEvaluationJson {
  match: boolean;
  label: string;
  description: string | null;
  documentation_url: string | null;
  schedule: Record<string, unknown> | null;
  subconditions: ConditionEvaluationJson[];
  evaluations: z.output<typeof pullConditionEvaluationSchema>[];
}

/** Mergify's `QueueConditionEvaluationJsonSerialized`: a conditions tree evaluated for pull requests. */
export const conditionEvaluationJsonSchema: z.ZodType<ConditionEvaluationJson> = z
  .object({
    match: z.boolean(),
    label: z.string().describe('The condition as written, or "all of" / "any of" / "not"'),
    description: z.string().nullable(),
    documentation_url: z.string().nullable(),
    schedule: z
      .record(z.string(), z.unknown())
      .nullable()
      .describe('A schedule condition, with its next change'),
    get subconditions() {
      return z.array(conditionEvaluationJsonSchema);
    },
    evaluations: z.array(pullConditionEvaluationSchema),
  })
  .meta({ id: 'ConditionEvaluationJson' });

export const mergeabilityCheckSchema = z
  .object({
    check_type: z
      .enum(['in_place', 'draft_pr', 'trusted'])
      .describe(
        'in_place: CI runs on the pull request itself; draft_pr: on a draft pull request of the queue',
      ),
    queue_pull_request_number: z.int().min(0).describe('The pull request the checks run on'),
    started_at: dateTimeSchema.nullable(),
    ci_ended_at: dateTimeSchema.nullable(),
    ci_state: z.enum(['pending', 'success', 'failed']),
    state: z
      .enum(['pending', 'success', 'failure', 'timed_out'])
      .describe('The outcome of the test: timed_out when checks_timeout was reached'),
    checks: z.array(checkSchema).describe('The checks reported on the tested commit'),
    conditions_evaluation: conditionEvaluationJsonSchema
      .nullable()
      .describe("The queue rule's merge conditions on the tested commit"),
  })
  .describe('The test of the pull request in its batch');

export const mergeQueuePullRequestSchema = z
  .object({
    number: z.int().min(1),
    head_ref: z
      .string()
      .nullable()
      .describe(
        "Its head branch (a fork's branch name without the owner); null when its details are not known",
      ),
    queued_at: dateTimeSchema,
    estimated_time_of_merge: dateTimeSchema
      .nullable()
      .describe('The median estimate (p50); null while no estimate can be given'),
    estimated_time_of_merge_p90: dateTimeSchema
      .nullable()
      .describe(
        'The late estimate: 9 in 10 pull requests should have merged by then (p90); null with estimated_time_of_merge',
      ),
    reasons: z
      .array(queueReasonSchema)
      .describe('Why it is where it is (docs/api.md, "Reasons"), most important first'),
    position: z
      .int()
      .min(0)
      .describe('0-based: batched pull requests first (batch order), then the waiting ones in queue order'),
    priority_rule_name: z.string().nullable().describe('null: no priority rule applies'),
    queue_rule_name: z.string(),
    checks_timeout_at: dateTimeSchema
      .nullable()
      .describe('When the running checks time out; null when none run'),
    queue_rule: z.object({
      name: z.string(),
      config: z
        .record(z.string(), z.unknown())
        .describe('The queue rule as configured (durations in seconds)'),
    }),
    mergeability_check: mergeabilityCheckSchema
      .nullable()
      .describe('null until its batch is tested (waiting, or its test branch is being prepared)'),
  })
  .describe('A pull request in the merge queue');

export type MergeQueuePullRequest = z.output<typeof mergeQueuePullRequestSchema>;

export const dequeueImpactSchema = z
  .object({
    interrupted_batches: z.int().min(0).describe('Batches whose checks would be stopped and restarted'),
    rechecked_pull_requests: z.int().min(0).describe('Other pull requests of those batches, tested again'),
    cascaded_pull_requests: z
      .int()
      .min(0)
      .describe('Pull requests that would leave with it (always 0: there are no stacks)'),
  })
  .describe('What dequeuing the pull request would cost');

export type DequeueImpact = z.output<typeof dequeueImpactSchema>;

export const requeueRequestSchema = z
  .strictObject({
    queue_name: storableText(z.string().trim().min(1).max(255))
      .optional()
      .describe('The queue rule to enter by; absent: the first whose queue conditions accept it'),
  })
  .describe('Queue the pull request again (as `@trainyard requeue [rule]`); the body may be left out');
