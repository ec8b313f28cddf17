import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { repoParamsSchema } from '../../../shared/schemas/common.schema.ts';
import {
  mergeQueueStatusQuerySchema,
  mergeQueueStatusSchema,
} from '../../../shared/schemas/merge-queue.schema.ts';
import { loadPause } from '../../store/pauses.ts';
import { errorResponses } from '../error-responses.ts';
import type { RouteContext } from '../server.ts';

export function registerStatusRoute(
  app: FastifyInstance<any, any, any, any, ZodTypeProvider>,
  ctx: RouteContext,
) {
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
