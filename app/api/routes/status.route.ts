import { repoParamsSchema } from '../../../shared/schemas/common.schema.ts';
import {
  mergeQueueStatusQuerySchema,
  mergeQueueStatusSchema,
} from '../../../shared/schemas/merge-queue.schema.ts';
import { loadPause } from '../../store/pauses.ts';
import { errorResponses } from '../error-responses.ts';
import type { RouteContext } from '../server.ts';
import type { ZodApp } from '../zod-app.ts';

export function registerStatusRoute(app: ZodApp, ctx: RouteContext) {
  app.get(
    '/merge-queue/status',
    {
      schema: {
        summary: 'Live status of the merge queue: batches, their pull requests, and the waiting ones',
        params: repoParamsSchema,
        querystring: mergeQueueStatusQuerySchema,
        response: { 200: mergeQueueStatusSchema, ...errorResponses },
      },
    },
    async (request) => {
      const pause = await loadPause(ctx.store.db, request.repository.id);
      // Until the engine stores its state, a repository's queue is empty.
      return {
        scope_queues: { __default__: [] },
        batches: [],
        waiting_pull_requests: [],
        pause: pause ? { reason: pause.reason, paused_at: pause.pausedAt.toISOString() } : null,
      };
    },
  );
}
