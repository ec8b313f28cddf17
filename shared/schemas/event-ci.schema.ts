import { z } from 'zod';
import { uuidSchema } from './common.schema.ts';
import { countSchema, pullRequestNumberSchema, retryModeSchema } from './event-parts.schema.ts';

/*
 * Metadata of the CI events: automatic job retries (`ci_insights.*`) and CI issues
 * (`ci_issue.*`, groups of similar CI failures).
 */

/*
 * Mergify's v1 event log says `condition_matches` holds "one of three match shapes" without
 * showing them. Trainyard's three, told apart by `type`: the job name matched a pattern, the
 * job log matched a pattern, or the job exited with a listed code.
 */
export const conditionMatchSchema = z
  .discriminatedUnion('type', [
    z
      .strictObject({
        type: z.literal('job_name'),
        pattern: z.string().describe('Pattern of the retry rule'),
        matched: z.string().describe('Job name that matched'),
      })
      .describe('The job name matched a pattern'),
    z
      .strictObject({
        type: z.literal('log_pattern'),
        pattern: z.string().describe('Pattern of the retry rule'),
        excerpt: z.string().describe('Log lines that matched'),
      })
      .describe('The job log matched a pattern'),
    z
      .strictObject({
        type: z.literal('exit_code'),
        code: z.int().describe('Exit code of the job'),
      })
      .describe('The job exited with a listed code'),
  ])
  .describe('Why a retry rule matched a failed job');

export type ConditionMatch = z.infer<typeof conditionMatchSchema>;

export const jobRetriedMetadataSchema = z
  .strictObject({
    rule_id: uuidSchema.describe('Retry rule id'),
    rule_name: z.string().describe('Retry rule name'),
    max_retry: countSchema.describe('Retries the rule allows'),
    retry_mode: retryModeSchema,
    retry_attempt: countSchema.describe('This retry attempt'),
    condition_matches: z.array(conditionMatchSchema).describe('What matched the retry rule'),
  })
  .describe('A failed CI job was retried automatically');

/*
 * Mergify's v1 event log does not show the `ci_issue.*` metadata. Trainyard's choice: every one
 * names the issue (`ci_issue_id`, `name`); `renamed` adds the `previous_name`, `linked` the
 * pull request the issue was seen on, `merged` the issue it was merged into. The other four
 * (created, reopened, resolved, unresolved) carry only the issue.
 */
const ciIssueFields = {
  ci_issue_id: uuidSchema.describe('CI issue id'),
  name: z.string().describe('CI issue name'),
};

export const ciIssueMetadataSchema = z.strictObject(ciIssueFields).describe('A CI issue changed state');

export const ciIssueRenamedMetadataSchema = z
  .strictObject({ ...ciIssueFields, previous_name: z.string().describe('Name before the change') })
  .describe('A CI issue was renamed');

export const ciIssueLinkedMetadataSchema = z
  .strictObject({
    ...ciIssueFields,
    pull_request_number: pullRequestNumberSchema.describe('Pull request whose CI failure was linked'),
  })
  .describe('A CI failure of a pull request was linked to a CI issue');

export const ciIssueMergedMetadataSchema = z
  .strictObject({
    ...ciIssueFields,
    merged_into_ci_issue_id: uuidSchema.describe('CI issue this one was merged into'),
  })
  .describe('A CI issue was merged into another');
