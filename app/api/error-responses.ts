import { z } from 'zod';
import {
  internalErrorSchema,
  messageErrorSchema,
  validationErrorSchema,
} from '../../shared/schemas/errors.schema.ts';

/** The error answers every repository endpoint can give: 403, 404, 409, 422 (docs/api.md, "Errors"). */
export const errorResponses = {
  403: messageErrorSchema.describe('Missing, unknown or insufficient credential'),
  404: messageErrorSchema.describe('Unknown repository (or, for pause, the queue is not paused)'),
  409: messageErrorSchema.describe('Conflicting concurrent write; retry'),
  422: validationErrorSchema,
  500: internalErrorSchema,
  503: z
    .object({ detail: z.string(), request_id: z.string() })
    .describe(
      'GitHub could not be reached to verify a token, or the request needed more time than it may use; retry (Retry-After)',
    ),
} as const;
