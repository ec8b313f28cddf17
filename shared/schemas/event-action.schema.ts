import { z } from 'zod';
import { pullRequestNumberSchema } from './event-parts.schema.ts';

/*
 * Metadata of the `action.*` events outside the queue, as in Mergify's v1 event log (docs/api.md,
 * "Event types and metadata"): exactly those fields, all required.
 */

export const emptyMetadataSchema = z.strictObject({}).describe('No metadata');

export const addedRemovedMetadataSchema = z
  .strictObject({
    added: z.array(z.string()).describe('Names added'),
    removed: z.array(z.string()).describe('Names removed'),
  })
  .describe('Assignees or labels added and removed');

export const backportMetadataSchema = z
  .strictObject({
    to: z.string().describe('Target branch'),
    pull_request_number: pullRequestNumberSchema.describe('Pull request created on the target branch'),
    conflicts: z.boolean().describe('Whether the copy had conflicts'),
  })
  .describe('The pull request was backported or copied to another branch');

export const messageMetadataSchema = z
  .strictObject({ message: z.string().describe('Text posted') })
  .describe('A message posted on the pull request');

export const branchMetadataSchema = z
  .strictObject({ branch: z.string().describe('Branch name') })
  .describe('The branch acted upon');

export const dismissReviewsMetadataSchema = z
  .strictObject({ users: z.array(z.string()).describe('Logins whose reviews were dismissed') })
  .describe('Reviews were dismissed');

export const editMetadataSchema = z
  .strictObject({ draft: z.boolean().describe('Whether the pull request is now a draft') })
  .describe('The pull request was edited');

export const githubActionsMetadataSchema = z
  .strictObject({
    workflow: z.string().describe('Workflow dispatched'),
    inputs: z.record(z.string(), z.unknown()).describe('Workflow inputs'),
  })
  .describe('A GitHub Actions workflow was dispatched');

export const postCheckMetadataSchema = z
  .strictObject({
    conclusion: z.string().describe('Check conclusion (GitHub vocabulary: success, failure, neutral, ...)'),
    title: z.string().describe('Check title'),
    summary: z.string().describe('Check summary'),
  })
  .describe('A check was posted on the pull request');

export const requestReviewsMetadataSchema = z
  .strictObject({
    reviewers: z.array(z.string()).describe('Logins asked for a review'),
    team_reviewers: z.array(z.string()).describe('Teams asked for a review'),
  })
  .describe('Reviews were requested');

export const reviewMetadataSchema = z
  .strictObject({
    review_type: z.string().describe('Kind of review (e.g. APPROVE, REQUEST_CHANGES)'),
    reviewer: z.string().nullable().describe('Reviewer login, or null'),
    message: z.string().nullable().describe('Review body, or null'),
  })
  .describe('A review was posted');
