import { z } from 'zod';

/**
 * Every event type the `event_type` filter of Mergify's v1 event log accepts, in Mergify's
 * order. Its placeholder `action.vcs_actions` is `action.github_actions` on the wire, since
 * the code host is GitHub (docs/api.md, "Compatibility with Mergify's v1 API").
 */
export const eventTypes = [
  'action.assign',
  'action.backport',
  'action.close',
  'action.comment',
  'action.copy',
  'action.delete_head_branch',
  'action.dismiss_reviews',
  'action.edit',
  'action.github_actions',
  'action.label',
  'action.merge',
  'action.post_check',
  'action.queue.batch_bisection_end',
  'action.queue.batch_bisection_start',
  'action.queue.change',
  'action.queue.checks.change',
  'action.queue.checks_end',
  'action.queue.checks_not_started',
  'action.queue.checks_stalled',
  'action.queue.checks_start',
  'action.queue.enter',
  'action.queue.leave',
  'action.queue.merge_verified',
  'action.queue.merged',
  'action.rebase',
  'action.refresh',
  'action.request_reviews',
  'action.requeue',
  'action.review',
  'action.squash',
  'action.unqueue',
  'action.update',
  'ci_insights.job_retried',
  'ci_issue.created',
  'ci_issue.linked',
  'ci_issue.merged',
  'ci_issue.renamed',
  'ci_issue.reopened',
  'ci_issue.resolved',
  'ci_issue.unresolved',
  'command.dequeue',
  'command.queue',
  'command.requeue',
  'queue.pause.create',
  'queue.pause.delete',
  'queue.pause.update',
  'scheduled_freeze.create',
  'scheduled_freeze.delete',
  'scheduled_freeze.update',
] as const;

export const eventTypeSchema = z.enum(eventTypes).describe('Event type');

export type EventType = z.infer<typeof eventTypeSchema>;
