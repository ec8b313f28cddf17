import { z } from 'zod';
import { dateTimeQuerySchema, integerQuery, repeatedQuery, storableText } from './common.schema.ts';
import { eventSchema } from './event.schema.ts';
import { eventTypeSchema } from './event-types.ts';

export const LOGS_DEFAULT_PER_PAGE = 10;

/** `GET /v1/repos/{owner}/{repository}/logs`; unknown parameters are ignored (compatible). */
export const logsQuerySchema = z
  .object({
    pull_request: integerQuery(1, 2147483647).optional().describe('Only events of this pull request'),
    base_ref: storableText(z.string().min(1).max(255))
      .optional()
      .describe('Only events for pull requests to this base ref'),
    event_type: repeatedQuery(eventTypeSchema)
      .optional()
      .describe('Only these event types (repeat the parameter for several)'),
    received_from: dateTimeQuerySchema.optional().describe('Events received at or after this time'),
    received_to: dateTimeQuerySchema.optional().describe('Events received at or before this time'),
    cursor: z
      .string()
      .min(1)
      .max(1000)
      .optional()
      .describe('Opaque page cursor, taken only from the Link header (first, prev, next, last)'),
    per_page: integerQuery(1, 101).default(LOGS_DEFAULT_PER_PAGE).describe('Events per page, 1 to 100'),
  })
  .refine((q) => !q.received_from || !q.received_to || q.received_from <= q.received_to, {
    path: ['received_from'],
    message: 'received_from must not be after received_to',
  });

export type LogsQuery = z.output<typeof logsQuerySchema>;

export const logsPageSchema = z
  .object({
    size: z.int().min(0).describe('Number of events in this page'),
    per_page: z.int().min(1).max(100).describe('Events per page'),
    events: z.array(eventSchema).describe('Events, newest first'),
  })
  .describe('One page of the event log; further pages are linked from the Link header');

export type LogsPage = z.output<typeof logsPageSchema>;
