import { z } from 'zod';

/** 403, 404, 409: `{"detail": "<message>"}`, compatible with Mergify's v1 API (docs/api.md, "Errors"). */
export const messageErrorSchema = z.object({ detail: z.string() }).describe('Error with a message');

/** One problem of a 422: where it is, what is wrong, and its kind. */
export const validationIssueSchema = z.object({
  loc: z.array(z.union([z.string(), z.number()])),
  msg: z.string(),
  type: z.string(),
});

export const validationErrorSchema = z
  .object({ detail: z.array(validationIssueSchema) })
  .describe('Invalid request: each problem with its location');

export const internalErrorSchema = z
  .object({ detail: z.literal('internal error'), request_id: z.string() })
  .describe('A server fault; quote the request id when reporting it');

export type ValidationIssue = z.infer<typeof validationIssueSchema>;
