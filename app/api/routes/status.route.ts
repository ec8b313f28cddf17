import { repoParamsSchema } from '../../../shared/schemas/common.schema.ts';
import { DEFAULT_PARTITION_NAME } from '../../../shared/schemas/default-names.ts';
import {
  mergeQueueStatusQuerySchema,
  mergeQueueStatusSchema,
} from '../../../shared/schemas/merge-queue.schema.ts';
import { computeMergeQueueStatus } from '../../queue/status-projection.ts';
import { loadPause } from '../../store/pauses.ts';
import { errorResponses } from '../error-responses.ts';
import { readQueueState } from '../queue-state-read.ts';
import type { RouteContext } from '../route-context.ts';
import type { ZodApp } from '../zod-app.ts';
import { toPauseBody } from './pause.route.ts';

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
      const repo = request.repository;
      // The stored state is parsed, not trusted: an inconsistent one is a server fault (500), not a
      // wrong answer.
      const [pause, state] = await Promise.all([
        loadPause(ctx.store.readDb, repo.id),
        readQueueState(ctx.store, repo.id),
      ]);
      const pauseRecord = pause ? toPauseBody(pause) : null;
      // A repository the engine has not run for yet has an empty queue.
      if (state === null) {
        return {
          mode: 'serial' as const,
          scope_queues: { [DEFAULT_PARTITION_NAME]: [] },
          batches: [],
          waiting_pull_requests: [],
          pause: pauseRecord,
        };
      }
      const status = computeMergeQueueStatus(state, {
        base: request.query.branch ?? repo.defaultBranch,
        now: ctx.now(),
      });
      if (Object.keys(status.scope_queues).length === 0) status.scope_queues[DEFAULT_PARTITION_NAME] = [];
      return { ...status, pause: pauseRecord };
    },
  );
}
